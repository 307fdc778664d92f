"""python manage.py seed_study: one study seeded from the annotations of another.

    seed_study --from QUESTIONS --to ANSWERS --kind vqa-answers
        CulturalVQA: every written (not skipped) question becomes an item of the answer study.
    seed_study --from FILTER --kept-prompts OUT.csv [--min-yes 2]
        CulturalFrames: the prompts kept by the filter, to complete with images and import.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.seeding import SeedError, seed_answer_items, seed_kept_prompts
from studies.models import Study

KINDS = ("vqa-answers",)


class Command(BaseCommand):
    help = (
        "Seed a study from another's annotations: --to TARGET --kind vqa-answers makes an answer item "
        "of every question written in the source; --kept-prompts OUT.csv writes the prompts the "
        "source's filter kept (at least --min-yes Yes votes), to complete with images and import."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="source", type=int, required=True, help="The source study's id.")
        parser.add_argument("--to", dest="target", type=int, help="The target study's id (with --kind).")
        parser.add_argument("--kind", choices=KINDS, help="What to seed into the target.")
        parser.add_argument("--kept-prompts", type=Path, help="Write the kept prompts to this .csv or .jsonl file.")
        parser.add_argument("--min-yes", type=int, default=2, help="Yes votes that keep a prompt (default 2).")

    def handle(self, *args, source, target, kind, kept_prompts, min_yes, **options):
        if (target is None) == (kept_prompts is None):
            raise CommandError("give either --to TARGET --kind KIND or --kept-prompts FILE")
        if target is not None and kind is None:
            raise CommandError(f"--to needs --kind ({', '.join(KINDS)})")
        if min_yes < 1:
            raise CommandError("--min-yes must be at least 1")
        origin = _study(source)
        try:
            if kept_prompts is not None:
                report = seed_kept_prompts(source=origin, out=kept_prompts, min_yes=min_yes)
                self.stdout.write(self.style.SUCCESS(report.summary()))
                return
            destination = _study(target)
            created = seed_answer_items(source=origin, target=destination)
        except SeedError as exc:
            raise CommandError(f"Nothing seeded: {exc}") from None
        self.stdout.write(self.style.SUCCESS(
            f"Created {created} answer item(s) in {destination.name!r} from the questions of {origin.name!r}."
        ))


def _study(pk: int) -> Study:
    study = Study.objects.filter(pk=pk).first()
    if study is None:
        raise CommandError(f"no study with id {pk}")
    return study

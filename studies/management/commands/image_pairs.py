"""python manage.py image_pairs SETS.csv PAIRS.csv [--per-prompt N] — a pairwise study's items from
sets of images (one row per prompt, image_1 … with model_1 …): every pair of each set, or N pairs of
each set dealt out so that every pair of places is compared about equally often in each country."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from studies.importing import ItemImportError
from studies.importing.pairs import pairs_file


class Command(BaseCommand):
    help = "Make a pairwise study's item file from sets of images (one row per prompt)."

    def add_arguments(self, parser):
        parser.add_argument("sets", type=Path, help="A .csv or .jsonl of sets: id, country, prompt, image_1, model_1…")
        parser.add_argument("pairs", type=Path, help="The item file to write (.csv), ready for import_items.")
        parser.add_argument("--per-prompt", type=int, help="Pairs per set (default: every pair).")

    def handle(self, *args, sets, pairs, per_prompt=None, **options):
        try:
            count = pairs_file(sets, pairs, per_prompt=per_prompt)
        except ItemImportError as exc:
            raise CommandError(f"{sets.name}: " + "\n  ".join(exc.errors)) from None
        self.stdout.write(f"Wrote {count} pair item{'s' if count != 1 else ''} to {pairs}")

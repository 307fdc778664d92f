"""python manage.py image_derivatives [--study N]: the lighter WebP copies of item images that lack
them (imported before derivatives existed, or whose background run was lost), made and recorded."""

from django.core.management.base import BaseCommand, CommandError

from studies.derivatives import derivatives_make
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Make the missing WebP derivatives (640, 1280, 2048 px wide, never wider than the original) of the "
        "item images of one study or of every study. Running it again makes nothing new."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", type=int, default=None, help="Only this study's id (pk).")

    def handle(self, *args, study: int | None, **options):
        if study is not None and not Study.objects.filter(pk=study).exists():
            raise CommandError(f"no study with id {study}")
        made = derivatives_make(study_id=study)
        self.stdout.write(self.style.SUCCESS(f"Derived {made} image file(s)."))

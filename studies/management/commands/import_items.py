"""python manage.py import_items STUDY FILE [--images PATH]: the command line of items_import (images
from the folder or zip, or already on the site's storage)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from studies.importing import ItemImportError, items_import
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Import items into a study from a .csv or .jsonl file and a folder or .zip of images. "
        "Columns: id, country, image (required when the protocol shows the image: a path in the folder or zip, "
        "or a file already on the site's storage in the study's import folder, imports/<study id>/..., "
        "named by its key, its URL under the storage's public base or s3://<bucket>/<key>), prompt, caption, "
        "question, background, reference (answers separated by '|', or a JSON list), answer, "
        "candidates (JSON list of {id, text}), documents (JSON list of {title, url, text}), "
        "author (Prolific id of the item's writer), model, category, is_example; other columns go to "
        "the item's metadata. Every row is checked first: a file with any problem imports nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", type=int, help="The study's id (pk).")
        parser.add_argument("file", type=Path, help="The rows: a .csv or .jsonl file.")
        parser.add_argument(
            "--images", type=Path, default=None,
            help="A folder or .zip holding the images (not needed when every image is on the site's storage).",
        )

    def handle(self, *args, study: int, file: Path, images: Path | None, **options):
        target = Study.objects.filter(pk=study).first()
        if target is None:
            raise CommandError(f"no study with id {study}")
        try:
            report = items_import(study=target, rows_file=file, images=images)
        except ItemImportError as exc:
            listing = "\n".join(f"  {error}" for error in exc.errors)
            raise CommandError(f"Nothing imported from {file.name}; {len(exc.errors)} problem(s):\n{listing}") from None
        self.stdout.write(self.style.SUCCESS(report.summary()))

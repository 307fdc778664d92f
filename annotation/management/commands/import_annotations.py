"""python manage.py import_annotations STUDY FILE: load annotations collected elsewhere."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importing import AnnotationImportError, annotations_import
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Load annotations collected elsewhere (CSV or JSONL: item, annotator, country, field, value; "
        "a multi field's values joined by |) so they can be analysed and exported here. "
        "A file with any problem imports nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", type=int, help="The study's id.")
        parser.add_argument("file", type=Path)

    def handle(self, *args, study: int, file: Path, **options):
        target = Study.objects.filter(pk=study).first()
        if target is None:
            raise CommandError(f"no study with id {study}")
        try:
            report = annotations_import(study=target, rows_file=file)
        except AnnotationImportError as exc:
            lines = "\n".join(f"  {e}" for e in exc.errors)
            raise CommandError(f"Nothing imported from {file.name}; {len(exc.errors)} problem(s):\n{lines}") from None
        self.stdout.write(f"{report.summary()}.")

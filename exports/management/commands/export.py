"""python manage.py export STUDY --format F [--out PATH] — a study's export, written here and now."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from exports.formats import FORMATS
from exports.formats.base import LICENSES
from exports.services import ExportRefused, export_to_path
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Write a study's export in this process (no queue), through the same service as the page: "
        "refused unless the latest analysis saw the current data (run `manage.py analyse STUDY` first). "
        "One file is written as itself with PATH.manifest.json beside it; several as one ZIP with manifest.json, "
        "always named .zip (PATH.zip when PATH names no .zip)."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", type=int, help="The study's id.")
        parser.add_argument("--format", required=True, help=f"One of: {', '.join(FORMATS)}.")
        parser.add_argument(
            "--out", type=Path, default=None,
            help="Where to write the export: a file, or a folder to write it in under the download's name "
            "(the Hugging Face folder's: its top folder's name, .zip). Default: the current folder.",
        )
        parser.add_argument("--license", choices=LICENSES, default=LICENSES[0],
                            help="The dataset card's license (format hf).")
        parser.add_argument("--images", action="store_true", help="Ship the items' images (format hf).")

    def handle(self, *args, study, format, out, license, images, **options):
        if format not in FORMATS:
            raise CommandError(f"unknown format {format!r}: choose one of {', '.join(FORMATS)}")
        target = Study.objects.filter(pk=study).first()
        if target is None:
            raise CommandError(f"no study with id {study}")
        if out is not None and not out.is_dir() and not out.parent.is_dir():
            raise CommandError(f"{out.parent} is not a folder")
        try:
            done = export_to_path(
                study=target, format=format, out=out, options={"license": license, "images": images}
            )
        except ExportRefused as exc:
            raise CommandError(str(exc)) from exc
        renamed = out is not None and not out.is_dir() and done.path != out
        self.stdout.write(f"wrote {done.path} ({format}, checked against analysis run {done.analysis.pk})"
                          + (f"; a ZIP, so named .zip rather than {out.name}" if renamed else ""))
        release = done.manifest.get("release") or {}
        if release:
            self.stdout.write(f"  release {release['number']} ({release['version']}) of the study's gold data: "
                              + " ".join(release["changes"]))
        folder = done.manifest.get("folder")
        if folder:
            self.stdout.write(f"  unpacks to the folder {folder}/")
        for f in done.files:
            self.stdout.write(f"  {f['name']}: {f['rows']} rows, {f['bytes']} bytes, sha256 {f['sha256']}")
        if done.manifest_path:
            self.stdout.write(f"manifest: {done.manifest_path}")
        else:
            self.stdout.write(f"manifest: {folder + '/' if folder else ''}manifest.json in the ZIP")

"""python manage.py export STUDY --format F [--out PATH] [--push-to-hub REPO [--private]] — a study's
export, written here and now, and the Hugging Face folder pushed to a Hub dataset repository."""

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from exports.formats import FORMATS
from exports.formats.base import LICENSES
from exports.hub import DEFAULT_ENDPOINT, HubPushError, hub_push_zip, hub_release, hub_repo_id
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
        parser.add_argument(
            "--push-to-hub", metavar="REPO", default=None,
            help="Then push the folder (format hf) to the Hub dataset repository REPO (owner/name), created "
            "when missing, with the token in HF_TOKEN, to HF_ENDPOINT (default: the Hub); a release is tagged.",
        )
        parser.add_argument("--private", action="store_true", help="Create the Hub repository private.")

    def handle(self, *args, study, format, out, license, images, push_to_hub, private, **options):
        if format not in FORMATS:
            raise CommandError(f"unknown format {format!r}: choose one of {', '.join(FORMATS)}")
        if private and not push_to_hub:
            raise CommandError("--private says how --push-to-hub creates the repository: give --push-to-hub REPO")
        token = self.hub_token(push_to_hub, format) if push_to_hub else ""
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
        if push_to_hub:
            self.push(done, push_to_hub, token, private)

    def hub_token(self, repo_id: str, format: str) -> str:
        """HF_TOKEN, once the push is known to be possible: refused before any export is written."""
        if format != "hf":
            raise CommandError(f"--push-to-hub pushes the Hugging Face folder: use --format hf, not {format}")
        try:
            hub_repo_id(repo_id)
        except HubPushError as exc:
            raise CommandError(str(exc)) from None
        token = os.environ.get("HF_TOKEN", "").strip()
        if not token:
            raise CommandError("--push-to-hub needs a Hub token with write access in the HF_TOKEN environment variable")
        return token

    def push(self, done, repo_id: str, token: str, private: bool) -> None:
        """Push the written ZIP's folder to ``repo_id`` and say where it went (never the token)."""
        manifest = done.manifest
        endpoint = os.environ.get("HF_ENDPOINT", "").strip() or DEFAULT_ENDPOINT
        release = hub_release(manifest.get("release"))
        title = f"Tessera study {manifest['study']['id']} ({manifest['study']['name']})"
        try:
            pushed = hub_push_zip(zip_path=done.path, top=manifest["folder"], repo_id=repo_id, token=token,
                                  endpoint=endpoint, private=private, title=title, release=release)
        except HubPushError as exc:
            raise CommandError(f"{exc} The export stays at {done.path}.") from None
        self.stdout.write(f"pushed {pushed.files} files to {pushed.repo_url} "
                          f"({pushed.revision}, commit {pushed.commit_oid})")
        if pushed.tag:
            self.stdout.write(f"  tagged {pushed.tag}" + (" (the tag was there already: left as it was)"
                                                          if pushed.tag_existed else ""))

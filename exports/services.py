"""State changes of export jobs: start one (``export_start``, refused unless the latest analysis saw
the current data), build it (``export_build``, the Celery task's body), and write one to a path
(``export_to_path``, ``manage.py export``). All three write through ``export_write``: the study's
annotations read in chunks and written by the chosen format as they come, to a temporary folder.
The steps after the chunks (the study's gold and images, the hashes, the ZIP, the upload) keep
the job's lease and honour a cancel through a ``Pulse``, as the chunks do through their progress.
Every export is of a numbered release of the study's gold data (``exports.releases``), which its
manifest, its files' metadata and the dataset card cite, and the job's row records."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import math
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.files import File
from django.core.files.storage import default_storage
from django.utils import timezone

from analysis.fingerprint import Fingerprint, data_fingerprint, staleness
from analysis.models import AnalysisRun
from analysis.quality import excluded_annotators
from analysis.reader import protocol_set
from analysis.selectors import analysis_latest_done
from annotation.models import Annotation
from jobs.lifecycle import job_cancel, job_claim, job_enqueue_on_commit, job_fail, job_finish, job_progress
from studies.models import Study, random_name, study_files_prefix

from .formats import FORMATS, ExportFormat, WrittenFile, tables_for
from .formats.base import ExportOptions, Origin
from .manifest import Package, folder_name, manifest_for, manifest_text, package
from .models import ExportJob, Release
from .releases import release_for, release_info, release_manifest
from .rows import export_rows
from .selectors import documents_of_items, download_name
from .sources import study_source

CHUNK_SIZE = 20_000  # annotations read, converted and written at a time (a Parquet row group)
PULSE_SECONDS = 1.0  # the final steps (gold, images, hashes, ZIP, upload) check in at most this often


class ExportRefused(Exception):
    """An export that may not start; the message says what to do instead."""


class ExportCancelled(Exception):
    """The job's row stopped running (cancelled or deleted) while it was being written."""


def export_format(name: str) -> ExportFormat:
    """The catalog's format ``name``; ExportRefused for any other."""
    try:
        return FORMATS[name]
    except KeyError:
        raise ExportRefused(f"Unknown export format {name!r}: choose one of {', '.join(FORMATS)}.") from None


def export_gate(*, study: Study) -> tuple[AnalysisRun, Fingerprint]:
    """The latest finished analysis and the current data, when it saw that data; else ExportRefused."""
    analysis = analysis_latest_done(study=study)
    now = data_fingerprint(study=study)
    if analysis is None:
        raise ExportRefused("Run the analysis on the current data first: no analysis has finished yet.")
    state = staleness(analysis.data_fingerprint, now)
    if not state.current:
        change = (
            f"{state.new_annotations} new annotation{'s' if state.new_annotations != 1 else ''}"
            if state.new_annotations
            else "the annotations changed"
        )
        raise ExportRefused(f"Run the analysis on the current data first: {change} since the last analysis.")
    return analysis, now


def export_options(data: dict[str, Any] | None) -> ExportOptions:
    """The researcher's options (license, images); ExportRefused for a license not offered."""
    try:
        return ExportOptions.read(data)
    except ValueError as exc:
        raise ExportRefused(f"Unknown license: {exc}.") from None


def export_start(
    *, study: Study, user: AbstractBaseUser | None, format: str = "csv", options: dict[str, Any] | None = None
) -> ExportJob:
    """Queue an export in ``format`` with ``options`` (license, images: what the format reads of
    them); refused unless the latest finished analysis saw the current data."""
    export_format(format)
    chosen = export_options(options)
    analysis, now = export_gate(study=study)
    job = ExportJob.objects.create(
        study=study, requested_by=user, analysis=analysis, data_fingerprint=now.text, format=format,
        options=chosen.as_dict(),
    )
    job_enqueue_on_commit(ExportJob, job.pk)
    return job


def export_cancel(*, job: ExportJob, user: AbstractBaseUser) -> bool:
    """Stop an export that is queued or running (``job`` found by a scoped lookup); its worker
    removes what it wrote (the temporary folder, a file already stored). False when it had ended."""
    return job_cancel(ExportJob, job.pk, reason=f"Cancelled by {user.get_username()}; no file was kept.")


class Pulse:
    """The heartbeat of an export's final steps, which have no chunks to count: the study's gold
    and images, the hashes, the ZIP, the upload. ``pulse()`` (called per field, table, image and
    block) hands the stage's percent to ``beat`` at most every ``PULSE_SECONDS``: for a job, a
    progress report that renews the lease and raises ExportCancelled once the row is no longer
    this attempt's. ``at(percent)`` starts a stage and reports it at once. Without a ``beat`` (an
    export outside a job) it does nothing."""

    def __init__(self, beat: Callable[[int], None] | None = None, percent: int = 95):
        self.beat, self.percent = beat, percent
        self.last = -math.inf

    def at(self, percent: int) -> None:
        self.percent, self.last = percent, -math.inf
        self()

    def __call__(self) -> None:
        if self.beat is None:
            return
        now = time.monotonic()
        if now - self.last >= PULSE_SECONDS:
            self.last = now
            self.beat(self.percent)


@dataclass(frozen=True)
class Written:
    """An export written to a local folder: its files, their manifest, what is to be stored, and
    how many annotations it was made from (``rows``: the job's count, whatever rows its files hold)."""

    files: list[WrittenFile]
    manifest: dict[str, Any]
    package: Package
    rows: int
    release: Release


def excluded_of(study: Study, max_id: int) -> list[dict[str, Any]]:
    """The annotators the researcher excluded, whose annotations the export leaves out: pseudonym,
    reason, when, and how many of their annotations are left out (their ids stay ours)."""
    excluded = excluded_annotators(study=study, max_id=max_id)
    return [{k: v for k, v in e.items() if k != "annotator_id"} for e in excluded]


def export_write(
    *, study: Study, analysis: AnalysisRun, fingerprint: Fingerprint, fmt: ExportFormat, folder: Path,
    on_chunk: Callable[[int], None] | None = None, chunk_size: int = CHUNK_SIZE,
    options: ExportOptions | None = None, pulse: Pulse | None = None,
) -> Written:
    """Write the annotations ``fingerprint`` counted (what ``analysis`` saw) in ``fmt`` into
    ``folder``: read in chunks, each answer with the spec of its version, written as they come.
    ``on_chunk(annotations written)`` follows the progress (and may raise to stop); ``pulse``
    follows the steps after the chunks (the study's gold and images at 96%, the hashes and the ZIP
    at 98%) and may raise to stop as well. The export is of the release of this data and run
    (``releases.release_for``): its files carry the release's date, not the hour they were written,
    so two exports of one release in one format and options are the same files."""
    pulse = pulse or Pulse()
    protocols = protocol_set(study=study, max_id=fingerprint.max_id)
    if not fmt.fits(protocols):
        raise ExportRefused(f"The {fmt.label} format does not fit this study's protocol.")
    tables = tables_for(protocols)
    created = timezone.now()  # the manifest's own: when these files were written
    release = release_for(study=study, analysis=analysis, fingerprint=fingerprint)
    info = release_info(release)
    options = options or ExportOptions()
    top, named = "", fmt.folder_of or (fmt.name if fmt.top_folder else "")
    if named:  # named for what makes the export: the same study, data, run and options, the same folder
        identity = json.dumps([study.pk, named, fingerprint.text, analysis.pk, options.as_dict()], sort_keys=True)
        top = folder_name(study_id=study.pk, study_name=study.name, created=release.created, identity=identity)
    origin = Origin(study=study.pk, analysis_run=analysis.pk, data_fingerprint=fingerprint.text,
                    created=info.created, folder=top, release=info)
    writer = fmt.open(folder, tables, protocols, origin)
    written = 0
    notes: dict[str, Any] = {}
    collecting = gc.isenabled()
    gc.disable()  # the chunks make no reference cycles; the collector scanning a chunk of live rows only slows it
    try:
        if fmt.streams_rows:
            for chunk in export_rows(study=study, max_id=fingerprint.max_id, chunk_size=chunk_size):
                documents = (documents_of_items(item_ids={r.item_pk for r in chunk})
                             if tables.layout.has_documents else {})
                writer.write(chunk, documents)
                written += len(chunk)
                if on_chunk:
                    on_chunk(written)
        else:  # a writer that ignores the rows: counted in SQL, none read
            written = Annotation.objects.counted().filter(study=study, id__lte=fingerprint.max_id).count()
            if on_chunk:
                on_chunk(written)
        if fmt.study_level:  # gold labels, a card: what needs the whole study, read once here
            pulse.at(96)
            writer.study(study_source(study=study, analysis=analysis, fingerprint=fingerprint,
                                      options=options, pulse=pulse))
            notes = writer.notes()
    finally:
        if collecting:
            gc.enable()
        files = writer.close()
    pulse.at(98)
    manifest = manifest_for(
        study_id=study.pk, study_name=study.name, format_name=fmt.name, analysis_id=analysis.pk,
        data_fingerprint=fingerprint.text, files=files, created=created,
        notes={**({"folder": top} if fmt.top_folder else {}), "release": release_manifest(info),
               "excluded_annotators": excluded_of(study, fingerprint.max_id), **notes},
        on_block=pulse,
    )
    return Written(files, manifest, package(files, manifest, folder, fmt.extension, on_block=pulse,
                                            top=top if fmt.top_folder else ""),
                   rows=written, release=release)


def _beat(job_id: int, percent: int) -> None:
    """Report progress (renewing the lease); a row no longer this attempt's (cancelled, deleted,
    taken over after a lost lease) stops the export."""
    if not job_progress(ExportJob, job_id, percent):
        raise ExportCancelled


def _progress(job_id: int, total: int, written: int) -> None:
    _beat(job_id, min(95, 95 * written // max(total, 1)))


def export_build(*, job_id: int) -> ExportJob | None:
    """The body of an export job: write to a temporary folder, store the export only when complete,
    and keep it only if the row says so; a failure or a cancel leaves no file anywhere (the folder
    is removed, a stored file deleted)."""
    if not job_claim(ExportJob, job_id):
        return ExportJob.objects.filter(pk=job_id).first()
    stored = None
    try:
        job = ExportJob.objects.select_related("study", "analysis").get(pk=job_id)
        fingerprint = Fingerprint.parse(job.data_fingerprint)
        pulse = Pulse(partial(_beat, job_id))
        with tempfile.TemporaryDirectory(prefix="tessera-export-") as tmp:
            written = export_write(
                study=job.study, analysis=job.analysis, fingerprint=fingerprint, fmt=export_format(job.format),
                folder=Path(tmp), on_chunk=partial(_progress, job_id, fingerprint.count),
                options=ExportOptions.read(job.options), pulse=pulse,
            )
            pulse.at(99)
            stored = _store(job, written.package, pulse)
        if not job_finish(ExportJob, job_id, rows=written.rows, file=stored, manifest=written.manifest,
                          release=written.release):
            raise ExportCancelled
    except ExportCancelled:
        if stored:
            default_storage.delete(stored)
    except Exception as exc:  # noqa: BLE001 - no half-written export survives a failure
        if stored:
            default_storage.delete(stored)
        job_fail(ExportJob, job_id, "export", exc)
    return ExportJob.objects.filter(pk=job_id).first()


class _PulsingFile(io.FileIO):
    """A file read for an upload that beats the job's pulse at each read (the lease renewed, a
    cancel honoured mid-upload)."""

    def __init__(self, path: Path, pulse: Callable[[], None]):
        super().__init__(path, "rb")
        self.pulse = pulse

    def read(self, size: int = -1) -> bytes:
        self.pulse()
        return super().read(size)

    def readinto(self, buffer) -> int:
        self.pulse()
        return super().readinto(buffer)


def _store(job: ExportJob, pkg: Package, pulse: Callable[[], None]) -> str:
    """Move the finished file to the storage (local disk, or S3 when a bucket is set), under a name with
    a random part (the download is named for the user by the view: study, format, date); an upload
    stopped midway (a cancel, an error) leaves nothing under its name."""
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    name = default_storage.get_available_name(random_name(
        study_files_prefix(job.study_id, "exports"), f"export-{job.pk}-{job.format}-{stamp}", f".{pkg.extension}"
    ))
    try:
        with _PulsingFile(pkg.path, pulse) as fh:
            return default_storage.save(name, File(fh, name=pkg.path.name))
    except BaseException:
        with contextlib.suppress(Exception):  # the stop (or the storage's error) is what is reported
            default_storage.delete(name)  # the local disk keeps what was written before the stop
        raise


@dataclass(frozen=True)
class PathExport:
    """What ``export_to_path`` wrote: the export (``path``: where it went, a ZIP always named
    ``.zip``), and where its manifest went (beside one file)."""

    path: Path
    manifest_path: Path | None
    manifest: dict[str, Any]
    files: list[dict[str, Any]]
    analysis: AnalysisRun


def export_target(*, out: Path | None, written: Written, study: Study, fmt: ExportFormat, day: date) -> Path:
    """Where an export written to a path goes: ``out`` as given, with ``.zip`` added when the export is
    a ZIP and ``out`` names no ``.zip``; in ``out`` (a folder) or the current folder (no ``out``) under
    the download's own name (``download_name``: ``<top folder>.zip`` for the Hugging Face folder)."""
    if out is None or out.is_dir():
        name = download_name(study_name=study.name, format=fmt.name, day=day, suffix=written.package.extension,
                             folder=str(written.manifest.get("folder") or ""))
        return (out or Path.cwd()) / name
    if written.package.is_zip and out.suffix.lower() != ".zip":
        return out.with_name(out.name + ".zip")
    return out


def export_to_path(
    *, study: Study, format: str, out: Path | None = None, options: dict[str, Any] | None = None
) -> PathExport:
    """Write an export of ``study`` in ``format`` synchronously, gated like the page's, to ``out``
    (see ``export_target``): the one file (its manifest beside it, ``<out>.manifest.json``) or the
    ZIP with its manifest."""
    fmt = export_format(format)
    chosen = export_options(options)
    analysis, now = export_gate(study=study)
    with tempfile.TemporaryDirectory(prefix="tessera-export-") as tmp:
        written = export_write(study=study, analysis=analysis, fingerprint=now, fmt=fmt, folder=Path(tmp),
                               options=chosen)
        target = export_target(out=Path(out) if out is not None else None, written=written, study=study, fmt=fmt,
                               day=timezone.now().date())
        partial_out = target.with_name(target.name + ".part")
        try:
            shutil.move(written.package.path, partial_out)
            manifest_path = None
            if not written.package.is_zip:
                manifest_path = target.with_name(target.name + ".manifest.json")
                manifest_path.write_text(manifest_text(written.manifest), encoding="utf-8")
            partial_out.replace(target)
        finally:
            partial_out.unlink(missing_ok=True)
    return PathExport(target, manifest_path, written.manifest, written.manifest["files"], analysis)

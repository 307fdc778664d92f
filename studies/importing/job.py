"""State changes of import jobs: queue one from the browser's uploads (``import_start``) and run it
(``import_run``, the Celery task's body) through ``studies.importing.items_import``, the same
function as ``manage.py import_items``, so a file is judged the same way on either path."""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db.models.fields.files import FieldFile

from jobs.lifecycle import job_claim, job_end, job_enqueue_on_commit, job_fail, job_finish, job_progress

from ..models import ImportJob, Study
from .rows import ItemImportError
from .service import items_import

ROWS_SUFFIXES = (".csv", ".jsonl", ".ndjson")
COPY_BLOCK = 1 << 20


FORM_OVERHEAD = 1 << 20  # the multipart headers and the CSRF token around the two files


def upload_limit() -> int:
    """The largest request the import page reads: both files at their limits, and the form."""
    return settings.IMPORT_ROWS_MAX_BYTES + settings.IMPORT_ZIP_MAX_BYTES + FORM_OVERHEAD


class ImportRefused(Exception):
    """An upload refused before any job starts; the message says why, ``field`` which upload
    ("rows" or "images", the import form's fields) it concerns."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.field = field


def import_start(
    *, study: Study, user: AbstractBaseUser | None, rows: UploadedFile, images: UploadedFile | None
) -> ImportJob:
    """Store the uploads and queue the job; refuses a wrong kind of file or one past the limits."""
    rows_name = Path(rows.name or "").name
    if Path(rows_name).suffix.lower() not in ROWS_SUFFIXES:
        raise ImportRefused(f"{rows_name or 'The rows file'}: use a .csv or .jsonl file.", field="rows")
    _check_size(rows, settings.IMPORT_ROWS_MAX_BYTES, field="rows")
    images_name = ""
    if images is not None:
        images_name = Path(images.name or "").name
        if Path(images_name).suffix.lower() != ".zip":
            raise ImportRefused(
                f"{images_name or 'The images file'}: the images must be one .zip file.", field="images"
            )
        _check_size(images, settings.IMPORT_ZIP_MAX_BYTES, field="images")
    job = ImportJob(study=study, requested_by=user, rows_name=rows_name, images_name=images_name)
    job.rows_file.save(rows_name, rows, save=False)
    if images is not None:
        job.images_file.save(images_name, images, save=False)
    job.save()
    job_enqueue_on_commit(ImportJob, job.pk)
    return job


def _check_size(upload: UploadedFile, limit: int, *, field: str) -> None:
    if upload.size is not None and upload.size > limit:
        raise ImportRefused(
            f"{Path(upload.name or '').name} is {upload.size:,} bytes, more than the limit of {limit:,} bytes.",
            field=field,
        )


def import_run(*, job_id: int) -> ImportJob:
    """The body of an import: copy the uploads to local files under their own names (streamed in
    blocks, so a zip on S3 is never held in memory), import them whole or not at all, record the
    result or every problem with its line, then delete the uploads."""
    if job_claim(ImportJob, job_id):
        job = ImportJob.objects.select_related("study").get(pk=job_id)
        try:
            with _local_copies(job) as (rows_path, images_path):
                report = items_import(
                    study=job.study,
                    rows_file=rows_path,
                    images=images_path,
                    progress=partial(job_progress, ImportJob, job_id),
                )
        except ItemImportError as exc:
            job_end(
                ImportJob, job_id,
                problems=exc.errors,
                error=f"Nothing was imported from {job.rows_name}: {len(exc.errors)} problem"
                f"{'s' if len(exc.errors) != 1 else ''}. Correct the file and upload it again.",
            )
        except Exception as exc:  # noqa: BLE001 - the page shows the error; the import wrote nothing
            job_fail(ImportJob, job_id, "import", exc)
        else:
            job_finish(ImportJob, job_id, created_items=report.created, summary=report.summary())
        finally:
            _delete_uploads(job)
    return ImportJob.objects.get(pk=job_id)


@contextmanager
def _local_copies(job: ImportJob) -> Iterator[tuple[Path, Path | None]]:
    with tempfile.TemporaryDirectory(prefix="tessera-import-") as tmp:
        rows_path = _copy(job.rows_file, Path(tmp) / "rows" / job.rows_name)
        images_path = None
        if job.images_file:
            images_path = _copy(job.images_file, Path(tmp) / "images" / job.images_name)
            if not zipfile.is_zipfile(images_path):
                raise ItemImportError([f"{job.images_name} is not a readable .zip file (damaged or another format)"])
            try:
                with zipfile.ZipFile(images_path) as archive:
                    archive.infolist()
            except (zipfile.BadZipFile, OSError, ValueError) as exc:
                raise ItemImportError([f"{job.images_name} is not a readable .zip file ({exc})"]) from None
        yield rows_path, images_path


def _copy(field: FieldFile, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    with field.open("rb") as source, target.open("wb") as out:
        shutil.copyfileobj(source, out, COPY_BLOCK)
    return target


def _delete_uploads(job: ImportJob) -> None:
    for field in (job.rows_file, job.images_file):
        if field:
            with suppress(Exception):  # a leftover upload must not hide the job's result
                field.storage.delete(field.name)
    ImportJob.objects.filter(pk=job.pk).update(rows_file="", images_file="")

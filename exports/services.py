"""State changes of export jobs: start one (``export_start``, refused unless the latest analysis saw
the current data) and build it (``export_build``, the Celery task's body)."""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
import zipfile
from functools import partial

from django.contrib.auth.models import AbstractBaseUser
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from analysis.fingerprint import COUNTED, Fingerprint, data_fingerprint, staleness
from analysis.jobs import Status, chunks, job_claim, job_enqueue, job_fail, job_progress
from analysis.reader import protocol_set
from analysis.selectors import analysis_latest_done
from annotation.models import Annotation, pseudonym_for
from studies.models import Study, study_files_prefix

from . import csvformat
from .models import ExportJob
from .selectors import documents_of_items

CHUNK_SIZE = 2000


class ExportRefused(Exception):
    """An export that may not start; the message says what to do instead."""




def export_start(*, study: Study, user: AbstractBaseUser | None) -> ExportJob:
    """Queue a CSV export; refused unless the latest finished analysis saw the current data."""
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
    job = ExportJob.objects.create(study=study, requested_by=user, analysis=analysis, data_fingerprint=now.text)
    transaction.on_commit(partial(job_enqueue, ExportJob, job.pk, "exports.tasks.export_build_task"))
    return job


def export_build(*, job_id: int) -> ExportJob:
    """The body of an export: write to temporary files, store the export only when complete.

    A plain CSV, or, when the protocol has a per_document field, a ZIP of annotations.csv and
    documents.csv (one file, so the two tables always come from the same data)."""
    if job_claim(ExportJob, job_id):
        stored = None
        try:
            job = ExportJob.objects.select_related("study").get(pk=job_id)
            with tempfile.TemporaryFile() as main, tempfile.TemporaryFile() as documents:
                rows, with_documents = _write_csvs(job, main, documents)
                stored = _store(job, main, documents if with_documents else None)
            ExportJob.objects.filter(pk=job_id).update(
                status=Status.DONE, progress=100, rows=rows, file=stored, finished_at=timezone.now()
            )
        except Exception as exc:  # noqa: BLE001 - no half-written export survives a failure
            if stored:
                default_storage.delete(stored)
            job_fail(ExportJob, job_id, "export", exc)
    return ExportJob.objects.get(pk=job_id)


def _store(job: ExportJob, main, documents) -> str:
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    name = f"{study_files_prefix(job.study_id, 'exports')}/export-{job.pk}-{stamp}"
    if documents is None:
        main.seek(0)
        return default_storage.save(f"{name}.csv", File(main, name="export.csv"))
    with tempfile.TemporaryFile() as bundle:
        with zipfile.ZipFile(bundle, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for member, tmp in ((ANNOTATIONS_CSV, main), (DOCUMENTS_CSV, documents)):
                tmp.seek(0)
                with zf.open(member, "w") as out:
                    shutil.copyfileobj(tmp, out)
        bundle.seek(0)
        return default_storage.save(f"{name}.zip", File(bundle, name="export.zip"))


ANNOTATIONS_CSV = "annotations.csv"
DOCUMENTS_CSV = "documents.csv"

EXPORT_COLUMNS = (
    "item_id",
    "item__external_id",
    "item__prompt",
    "item__model_name",
    "item__category",
    "item__country",
    "pool__country",
    "annotator__public_id",
    "answers",
    "surplus",
    "protocol_version",
    "time_spent_ms",
    "started_at",
    "submitted_at",
)


def _csv_writer(out):
    text = io.TextIOWrapper(out, encoding="utf-8", newline="")
    return text, csv.writer(text)


def _write_csvs(job: ExportJob, out, documents_out) -> tuple[int, bool]:
    """Write the export of the job's data (the annotations its fingerprint counted) to ``out``,
    and its per-document table to ``documents_out`` (both binary); each answer is read with the
    spec of the version it was given under. Returns the rows written and whether there are documents."""
    study = job.study
    fingerprint = Fingerprint.parse(job.data_fingerprint)
    protocols = protocol_set(study=study, max_id=fingerprint.max_id)
    layout = csvformat.layout_for(protocols)
    text, writer = _csv_writer(out)
    writer.writerow(csvformat.header(layout))
    doc_text, doc_writer = _csv_writer(documents_out)
    if layout.has_documents:
        doc_writer.writerow(csvformat.document_header(layout))
    rows = (
        Annotation.objects.filter(COUNTED, study=study, id__lte=fingerprint.max_id)
        .order_by("id")
        .values_list(*EXPORT_COLUMNS)
        .iterator(chunk_size=CHUNK_SIZE)
    )
    written = 0
    for chunk in chunks(rows, CHUNK_SIZE):
        documents = documents_of_items(item_ids={row[0] for row in chunk}) if layout.has_documents else {}
        for _, external_id, prompt, model, category, country, pool_country, public_id, answers, *rest in chunk:
            surplus, version, spent_ms, started_at, submitted_at = rest
            protocol = protocols.for_version(version)
            annotator = pseudonym_for(public_id)
            writer.writerow(
                [external_id, prompt, model, category, country, pool_country, annotator]
                + csvformat.answer_cells(layout, protocol, answers)
                + csvformat.trailing_cells(
                    surplus=surplus,
                    protocol_version=version,
                    time_spent_ms=spent_ms,
                    started_at=started_at,
                    submitted_at=submitted_at,
                )
            )
            for cells in csvformat.document_rows(layout, protocol, answers, documents):
                doc_writer.writerow([external_id, pool_country, annotator, *cells, str(version)])
        written += len(chunk)
        job_progress(ExportJob, job.pk, 95 * written // max(fingerprint.count, 1))
    for t in (text, doc_text):
        t.flush()
        t.detach()  # hand the binary file back without closing it
    return written, layout.has_documents

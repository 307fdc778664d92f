"""State changes of analysis runs and export jobs. Views and Celery tasks call these.

A job is a row of ours (``AnalysisRun``, ``ExportJob``) that records its status, progress, result
or error. ``*_start`` creates the row and queues the task once the transaction commits; the task
calls the body (``analysis_run``, ``export_build``), which claims the row with a conditional
UPDATE so a redelivered task never runs a job twice.
"""

from __future__ import annotations

import csv
import gc
import io
import logging
import shutil
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from functools import partial
from itertools import islice
from typing import Any

import pandas as pd
from django.contrib.auth.models import AbstractBaseUser
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as QueueUnreachable

from annotation.models import Annotation, pseudonym_for
from studies.models import Study, study_files_prefix

from . import csvformat
from .analysis import DocumentRatings, Ratings, Units, attribute_masks, field_agreement
from .metrics_service import human_field, metric_result
from .models import DEFAULT_RESAMPLES, MAX_RESAMPLES, AnalysisRun, ExportJob
from .protocol_reports import protocol_reports, report_keys
from .review_result import review_result
from .selectors import (
    NOT_FLAGGED,
    Fingerprint,
    analysis_latest_done,
    annotation_columns,
    complete_prompts_of,
    data_fingerprint,
    document_positions,
    documents_of_items,
    item_names,
    protocol_set,
    staleness,
    stored_versions,
)
from .summary import page_summary

logger = logging.getLogger(__name__)

CHUNK_SIZE = 2000
REUSE_ACTIVE_RUN_FOR = timedelta(minutes=10)

Status = AnalysisRun.Status  # shared by both job models


class ExportRefused(Exception):
    """An export that may not start; the message says what to do instead."""


# --- queueing ---------------------------------------------------------------------------------


def _enqueue(model: type[AnalysisRun | ExportJob], pk: int, task_name: str) -> None:
    """Publish the job's task; an unreachable broker fails the job loudly, never silently."""
    from . import tasks  # tasks import this module

    try:
        getattr(tasks, task_name).delay(pk)
    except (QueueUnreachable, ConnectionError) as exc:
        logger.error("could not queue %s %s: %s", model.__name__, pk, exc)
        model.objects.filter(pk=pk, status=Status.QUEUED).update(
            status=Status.FAILED, error=f"The job queue is unreachable: {exc}", finished_at=timezone.now()
        )


def _claim(model: type[AnalysisRun | ExportJob], pk: int) -> bool:
    """Move a queued job to running; False when another worker has it or it is finished."""
    return bool(
        model.objects.filter(pk=pk, status=Status.QUEUED).update(
            status=Status.RUNNING, started_at=timezone.now(), progress=0
        )
    )


def _progress(model: type[AnalysisRun | ExportJob], pk: int, percent: int) -> None:
    model.objects.filter(pk=pk, status=Status.RUNNING).update(progress=max(0, min(100, percent)))


def _fail(model: type[AnalysisRun | ExportJob], pk: int, what: str, exc: Exception) -> None:
    logger.exception("%s %s failed", model.__name__, pk)
    model.objects.filter(pk=pk).update(
        status=Status.FAILED,
        error=f"The {what} stopped because of an unexpected error ({type(exc).__name__}: {exc}). "
        "Nothing was kept; try again, and report the error if it happens again.",
        finished_at=timezone.now(),
    )


def _chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


# --- analysis ---------------------------------------------------------------------------------


class AnalysisRefused(ValueError):
    """Options an analysis cannot run with; the message says which and why."""


def analysis_start(
    *,
    study: Study,
    user: AbstractBaseUser | None,
    queue: bool = True,
    complete_only: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> AnalysisRun:
    """Queue an agreement analysis of the study's current annotations, with ``resamples``
    bootstrap resamples (0 to ``MAX_RESAMPLES``) drawn with ``seed`` for each alpha's interval.

    A recent run still queued or running on the same data with the same options is returned
    instead (a double click); an older one may be an orphan of a crashed worker and does not block
    a new run. With ``queue=False`` the run is only recorded: the caller runs ``analysis_run``
    itself (the shell). Raises ``AnalysisRefused`` for options out of range."""
    if not 0 <= resamples <= MAX_RESAMPLES:
        raise AnalysisRefused(f"The bootstrap resamples must be between 0 and {MAX_RESAMPLES:,}; got {resamples:,}.")
    if seed < 0:
        raise AnalysisRefused(f"The seed must be 0 or more; got {seed}.")
    fingerprint = data_fingerprint(study=study).text
    options = {"complete_only": complete_only, "resamples": resamples, "seed": seed}
    active = AnalysisRun.objects.filter(
        study=study,
        status__in=[Status.QUEUED, Status.RUNNING],
        data_fingerprint=fingerprint,
        created_at__gte=timezone.now() - REUSE_ACTIVE_RUN_FOR,
        **options,
    ).first()
    if active is not None:
        return active
    run = AnalysisRun.objects.create(study=study, requested_by=user, data_fingerprint=fingerprint, **options)
    if queue:
        transaction.on_commit(partial(_enqueue, AnalysisRun, run.pk, "analysis_run_task"))
    return run


def analysis_run(*, run_id: int) -> AnalysisRun:
    """The body of an analysis: alpha for every analysable field, overall and per pool."""
    if _claim(AnalysisRun, run_id):
        try:
            with _bulk_objects():
                result, fingerprint = _analyse(AnalysisRun.objects.select_related("study").get(pk=run_id))
        except Exception as exc:  # noqa: BLE001 - the row records every failure; the worker stays up
            _fail(AnalysisRun, run_id, "analysis", exc)
        else:
            AnalysisRun.objects.filter(pk=run_id).update(
                status=Status.DONE,
                progress=100,
                result=result,
                summary=page_summary(result),
                data_fingerprint=fingerprint.text,
                finished_at=timezone.now(),
            )
    return AnalysisRun.objects.get(pk=run_id)


@contextmanager
def _bulk_objects() -> Iterator[None]:
    """No cyclic garbage collection while the analysis builds millions of short-lived objects (the
    rows of each chunk): CPython's collector would walk every live object again and again (at a
    million ratings, a seventh of the run). Reference counting still frees them; one collection
    at the end takes any cycle."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.collect()


def _analyse(run: AnalysisRun) -> tuple[dict[str, Any], Fingerprint]:
    study = run.study
    # The run describes the data as it is when it starts; later annotations make it stale.
    fingerprint = data_fingerprint(study=study)
    AnalysisRun.objects.filter(pk=run.pk).update(data_fingerprint=fingerprint.text)
    pools = {
        p.pk: {"country": p.country, "country_name": p.country_name}
        for p in study.pools.order_by("country").only("pk", "country", "country_name")
    }
    # One pass over the annotations (80% of the progress bar) feeds the fields, reports and metrics;
    # it reads the keys of every stored version, then the versions found decide how answers are read.
    stored = protocol_set(study=study, present=stored_versions(study=study))
    human = human_field(stored)
    keys = [*Ratings.keys(stored), *report_keys(stored), *([human.key] if human else [])]
    columns = annotation_columns(
        study=study,
        max_id=fingerprint.max_id,
        keys=keys,
        on_chunk=lambda read: _progress(AnalysisRun, run.pk, 5 + 75 * read // max(fingerprint.count, 1)),
    )
    protocols = protocol_set(study=study, present=columns.versions())
    ratings = Ratings(protocols)
    ratings.add_columns(columns)
    units = Units.from_keys(ratings.pool_ids, ratings.item_ids)
    attributes = attribute_masks(units, _item_attributes(study))
    steps = len(ratings.coders) + len(ratings.documents)
    fields, documents = [], []
    for coder in ratings.coders:
        fields.append(field_agreement(coder, units, pools, attributes, n_resamples=run.resamples, seed=run.seed))
        _progress(AnalysisRun, run.pk, 80 + 10 * len(fields) // steps)
    for docs in ratings.documents:
        agreement = docs.agreement(pools, n_resamples=run.resamples, seed=run.seed)
        documents.append({**agreement, "score": _score_summary(study, docs, pools)})
        _progress(AnalysisRun, run.pk, 80 + 10 * (len(fields) + len(documents)) // steps)
    result = {
        "unit": "item within pool",
        "annotations": len(ratings),
        "n_skipped": ratings.n_skipped,
        "skipped_pools": [
            {"pool_id": pk, **labels, "n_skipped": ratings.skipped.get(pk, 0)} for pk, labels in pools.items()
        ],
        "units": len(units.pool),
        "protocol_version": study.protocol_version,
        "older_versions": sorted(protocols.versions),
        "fallback_versions": sorted(protocols.fallback),
        "fields": fields,
        "documents": documents,
        "attributes": {attribute: list(masks) for attribute, masks in attributes.items()},
        "bootstrap": {"resamples": run.resamples, "seed": run.seed, "confidence": 0.95},
    }
    only = run.complete_only  # restrict to prompts that have images from every model
    result["complete_only"] = only
    complete = complete_prompts_of(study=study) if only else None  # read once for both
    result["metrics"] = metric_result(
        study=study, max_id=fingerprint.max_id, columns=columns, protocols=protocols, complete=complete
    )
    _progress(AnalysisRun, run.pk, 95)
    result["reports"] = protocol_reports(
        study=study, protocols=protocols, columns=columns, pools=pools, complete=complete
    )
    result["review"] = review_result(study=study)
    return result, fingerprint


ITEM_ATTRIBUTES = {"model": "model_name", "category": "category"}
ATTRIBUTE_CHUNK_SIZE = 20_000


def _item_attributes(study: Study) -> dict[str, pd.Series]:
    """Item id → value of each attribute alpha is broken down by (one query, two short columns)."""
    rows = list(study.items.values_list("pk", *ITEM_ATTRIBUTES.values()).iterator(chunk_size=ATTRIBUTE_CHUNK_SIZE))
    ids, *values = zip(*rows, strict=True) if rows else ((),) * (1 + len(ITEM_ATTRIBUTES))
    return {name: pd.Series(column, index=ids, dtype=object) for name, column in zip(ITEM_ATTRIBUTES, values, strict=True)}


def _score_summary(study: Study, docs: DocumentRatings, pools: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
    if not docs.scored:
        return None
    return docs.score_summary(
        items=item_names(study=study),
        positions=document_positions(study=study),
        countries={pk: p["country"] for pk, p in pools.items()},
    )


# --- export -----------------------------------------------------------------------------------


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
    transaction.on_commit(partial(_enqueue, ExportJob, job.pk, "export_build_task"))
    return job


def export_build(*, job_id: int) -> ExportJob:
    """The body of an export: write to temporary files, store the export only when complete.

    A plain CSV, or, when the protocol has a per_document field, a ZIP of annotations.csv and
    documents.csv (one file, so the two tables always come from the same data)."""
    if _claim(ExportJob, job_id):
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
            _fail(ExportJob, job_id, "export", exc)
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
    if fingerprint is None:
        raise ValueError(f"export {job.pk} has no data fingerprint")
    protocols = protocol_set(study=study, max_id=fingerprint.max_id)
    layout = csvformat.layout_for(protocols)
    text, writer = _csv_writer(out)
    writer.writerow(csvformat.header(layout))
    doc_text, doc_writer = _csv_writer(documents_out)
    if layout.has_documents:
        doc_writer.writerow(csvformat.document_header(layout))
    rows = (
        Annotation.objects.filter(NOT_FLAGGED, study=study, id__lte=fingerprint.max_id)
        .order_by("id")
        .values_list(*EXPORT_COLUMNS)
        .iterator(chunk_size=CHUNK_SIZE)
    )
    written = 0
    for chunk in _chunks(rows, CHUNK_SIZE):
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
        _progress(ExportJob, job.pk, 95 * written // max(fingerprint.count, 1))
    for t in (text, doc_text):
        t.flush()
        t.detach()  # hand the binary file back without closing it
    return written, layout.has_documents

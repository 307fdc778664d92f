"""State changes of analysis runs: start one (``analysis_start``) and run it (``analysis_run``, the
Celery task's body). The run reads the study's annotations once (``reader.annotation_columns``) and
hands the columns to the pure ``stats`` package for agreement, to ``reports`` for the protocol's
reports and to ``metrics`` for the metric correlation; ``quality`` scores the annotators and gives
agreement with and without the excluded ones.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pandas as pd
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils import timezone

from jobs.lifecycle import (
    Status,
    job_claim,
    job_enqueue_on_commit,
    job_expire,
    job_fail,
    job_finish,
    job_progress,
    job_unclaimed,
    queued_grace,
)
from stats.coding import DocumentRatings, Ratings, Units, attribute_masks, field_agreement
from stats.columns import AnnotationColumns
from stats.summary import page_summary
from stats.versions import ProtocolSet
from studies.models import Study

from .comparisons import comparison_result
from .fingerprint import Fingerprint, data_fingerprint
from .metrics import human_field, metric_result
from .models import DEFAULT_RESAMPLES, MAX_RESAMPLES, MAX_SEED, AnalysisRun
from .quality import quality_inputs, quality_scores, scored_fields
from .reader import (
    annotation_columns,
    complete_prompts_of,
    document_positions,
    item_names,
    protocol_set,
    stored_versions,
)
from .reports import protocol_reports, report_keys
from .review import review_result

# How a result names items: by the researcher's own ids. A run stored before this key existed named
# them by database keys; the page says so and a new run names them by external ids.
ITEM_IDS = "external_id"



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

    A run still queued within ``JOB_QUEUED_GRACE_SECONDS``, or running under a live lease, on the
    same data with the same options is returned instead (a double click); a running one whose lease
    expired lost its worker, and one queued longer lost its message: either is failed on the spot
    (``job_expire``, ``job_unclaimed``) and a new run starts at once.
    With ``queue=False`` the run is only recorded: the caller runs ``analysis_run``
    itself (the shell). Raises ``AnalysisRefused`` for options out of range."""
    if not 0 <= resamples <= MAX_RESAMPLES:
        raise AnalysisRefused(f"The bootstrap resamples must be between 0 and {MAX_RESAMPLES:,}; got {resamples:,}.")
    if not 0 <= seed <= MAX_SEED:
        raise AnalysisRefused(f"The seed must be between 0 and {MAX_SEED:,}; got {seed:,}.")
    fingerprint = data_fingerprint(study=study).text
    options = {"complete_only": complete_only, "resamples": resamples, "seed": seed}
    now = timezone.now()
    same = AnalysisRun.objects.filter(study=study, data_fingerprint=fingerprint, **options)
    for dead in same.filter(status=Status.RUNNING, lease_expires_at__lt=now).values_list("pk", flat=True):
        job_expire(AnalysisRun, dead, requeue=False)
    for lost in same.filter(status=Status.QUEUED, queued_at__lt=now - queued_grace()).values_list("pk", flat=True):
        job_unclaimed(AnalysisRun, lost, resend=False)
    active = same.filter(
        Q(status=Status.QUEUED, queued_at__gte=now - queued_grace())
        | Q(status=Status.RUNNING, lease_expires_at__gte=now)
    ).first()
    if active is not None:
        return active
    run = AnalysisRun.objects.create(study=study, requested_by=user, data_fingerprint=fingerprint, **options)
    if queue:
        job_enqueue_on_commit(AnalysisRun, run.pk)
    return run


def analysis_run(*, run_id: int) -> AnalysisRun:
    """The body of an analysis: alpha for every analysable field, overall and per pool. The run is
    returned with its result and summary deferred: a worker does not read back what it just wrote
    (a million ratings' result is tens of MB of JSON); a caller that reads ``run.result`` loads it."""
    if job_claim(AnalysisRun, run_id):
        try:
            with _bulk_objects():
                result, fingerprint = _analyse(AnalysisRun.objects.select_related("study").get(pk=run_id))
        except Exception as exc:  # noqa: BLE001 - the row records every failure; the worker stays up
            job_fail(AnalysisRun, run_id, "analysis", exc)
        else:
            job_finish(
                AnalysisRun, run_id, result=result, summary=page_summary(result), data_fingerprint=fingerprint.text
            )
    return AnalysisRun.objects.defer("result", "summary").get(pk=run_id)


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
    scored = scored_fields(study)
    compared = [f.key for f in study.spec.fields if f.kind.compares]
    keys = [*Ratings.keys(stored), *report_keys(stored), *([human.key] if human else []), *(f.key for f in scored),
            *compared]
    total = max(fingerprint.count, 1)
    # The annotations that count and, for the annotators' scores, those left out only by an exclusion.
    read = annotation_columns(
        study=study,
        max_id=fingerprint.max_id,
        keys=keys,
        excluded=True,
        on_chunk=lambda n: job_progress(AnalysisRun, run.pk, 5 + 75 * min(n, total) // total),
    )
    columns = read.counted_only()
    protocols = protocol_set(study=study, present=columns.versions())
    names = item_names(study=study)  # results name items by the researcher's own ids, never by keys
    only = run.complete_only  # restrict to prompts that have images from every model
    complete = complete_prompts_of(study=study) if only else None  # read once for both
    # The metric correlation first: its frames are the analysis's largest, gone before the quality
    # scores' result (a row per annotator) is made beside the rest.
    metrics = metric_result(
        study=study, max_id=fingerprint.max_id, columns=columns, protocols=protocols, complete=complete, items=names
    )
    job_progress(AnalysisRun, run.pk, 84)
    # The quality scores (MACE per pool and field: a third of a large analysis) need no database
    # once their inputs are read, so they run on a thread of their own while this one computes the
    # rest: numpy releases the GIL in their array passes, and the second core works.
    inputs = quality_inputs(study=study, max_id=fingerprint.max_id)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="analysis-quality") as beside:
        quality = beside.submit(quality_scores, inputs, columns=read, resamples=run.resamples, seed=run.seed)
        result = _agreement(run, study, columns, protocols, pools, names)
        result |= {"complete_only": only, "metrics": metrics, "quality": None}  # the result's keys in their order
        result["reports"] = protocol_reports(
            study=study, protocols=protocols, columns=columns, pools=pools, complete=complete, items=names
        )
        result["comparisons"] = comparison_result(
            study=study, columns=columns, pools=pools, resamples=run.resamples, seed=run.seed
        )
        job_progress(AnalysisRun, run.pk, 96)
        result["quality"] = quality.result()
    result["review"] = review_result(study=study)
    return result, fingerprint


def _agreement(
    run: AnalysisRun, study: Study, columns: AnnotationColumns, protocols: ProtocolSet,
    pools: dict[int, dict[str, Any]], names: dict[int, str],
) -> dict[str, Any]:
    """Alpha and the other coefficients of every field and document, and what the result says of
    the annotations and units they rest on."""
    ratings = Ratings(protocols)
    ratings.add_columns(columns)
    units = Units.from_keys(ratings.pool_ids, ratings.item_ids)
    attributes = attribute_masks(units, _item_attributes(study))
    steps = len(ratings.coders) + len(ratings.documents)
    fields, documents = [], []
    for coder in ratings.coders:
        fields.append(field_agreement(coder, units, pools, attributes, n_resamples=run.resamples, seed=run.seed))
        job_progress(AnalysisRun, run.pk, 84 + 8 * len(fields) // steps)
    for docs in ratings.documents:
        agreement = docs.agreement(pools, n_resamples=run.resamples, seed=run.seed)
        documents.append({**agreement, "score": _score_summary(study, docs, pools, names)})
        job_progress(AnalysisRun, run.pk, 84 + 8 * (len(fields) + len(documents)) // steps)
    return {
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
        "item_ids": ITEM_IDS,
    }


ITEM_ATTRIBUTES = {"model": "model_name", "category": "category"}
ATTRIBUTE_CHUNK_SIZE = 20_000


def _item_attributes(study: Study) -> dict[str, pd.Series]:
    """Item id → value of each attribute alpha is broken down by (one query, two short columns)."""
    rows = list(study.items.values_list("pk", *ITEM_ATTRIBUTES.values()).iterator(chunk_size=ATTRIBUTE_CHUNK_SIZE))
    ids, *values = zip(*rows, strict=True) if rows else ((),) * (1 + len(ITEM_ATTRIBUTES))
    return {
        name: pd.Series(column, index=ids, dtype=object)
        for name, column in zip(ITEM_ATTRIBUTES, values, strict=True)
    }


def _score_summary(
    study: Study, docs: DocumentRatings, pools: dict[int, dict[str, Any]], names: dict[int, str]
) -> dict[str, Any] | None:
    if not docs.scored:
        return None
    return docs.score_summary(
        items=names,
        positions=document_positions(study=study),
        countries={pk: p["country"] for pk, p in pools.items()},
    )

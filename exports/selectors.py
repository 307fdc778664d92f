"""Reads for analysis and export pages: data fingerprints, latest jobs, the study dashboard."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import Count, Max, Q, Sum, TextField
from django.db.models.functions import Cast
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotation, Annotator, Assignment, Review
from studies.models import (
    CountryPool,
    Document,
    Item,
    ItemQuota,
    ProtocolVersion,
    Study,
)
from studies.selectors import protocol_specs

from .columns import AnnotationColumns, columns_from_chunks
from .csvformat import DocumentInfo
from .models import AnalysisRun, ExportJob
from .protocols import ProtocolSet
from .reports import CompletePrompts, complete_prompts

# --- data fingerprint -------------------------------------------------------------------------


@dataclass(frozen=True)
class Fingerprint:
    """What a study's annotations look like now, in one aggregate query: the annotations analysed
    (those no checker flagged), the last id, the last time, and the reviews (their number and last id).

    Two equal fingerprints mean the same data ("current data"); any new, late, deleted or flagged
    annotation, and any new review, changes it.
    """

    count: int
    max_id: int
    last_submitted: str  # ISO 8601, "" when there is no annotation
    reviews: int = 0
    last_review: int = 0

    @property
    def text(self) -> str:
        return f"{self.count}:{self.max_id}:{self.reviews}.{self.last_review}:{self.last_submitted}"

    @classmethod
    def parse(cls, text: str) -> Fingerprint | None:
        try:
            count, max_id, reviews, last = text.split(":", 3)
            n_reviews, last_review = reviews.split(".")
            return cls(int(count), int(max_id), last, int(n_reviews), int(last_review))
        except ValueError:
            return None  # not a fingerprint, or one from before reviews were counted


NOT_FLAGGED = ~Q(review__outcome=Review.Outcome.FLAGGED)


def data_fingerprint(*, study: Study) -> Fingerprint:
    agg = Annotation.objects.filter(study=study).aggregate(
        n=Count("id", filter=NOT_FLAGGED), last_id=Max("id"), last_at=Max("submitted_at"),
        reviews=Count("review"), last_review=Max("review__id"),
    )
    last_at: datetime | None = agg["last_at"]
    return Fingerprint(
        agg["n"], agg["last_id"] or 0, last_at.isoformat() if last_at else "", agg["reviews"], agg["last_review"] or 0
    )


@dataclass(frozen=True)
class Staleness:
    """How a job's data compares with the current data."""

    current: bool
    new_annotations: int = 0  # > 0 when annotations were added since; 0 when the data changed otherwise


def staleness(job_fingerprint: str, now: Fingerprint) -> Staleness:
    if job_fingerprint == now.text:
        return Staleness(current=True)
    then = Fingerprint.parse(job_fingerprint)
    return Staleness(current=False, new_annotations=max(0, now.count - then.count) if then else 0)


# --- protocol versions and documents ---------------------------------------------------------


def protocol_set(*, study: Study, max_id: int | None = None, present: Iterable[int] | None = None) -> ProtocolSet:
    """The specs of every protocol version the study's annotations up to ``max_id`` were given under
    (one DISTINCT over them), or of the versions ``present`` when the caller knows them (the
    analysis, from its one read).

    A version whose spec row is missing (or no longer parses) is read with the current spec, and
    listed in ``fallback``."""
    if present is None:
        if max_id is None:
            raise TypeError("protocol_set needs max_id or present")
        rows = Annotation.objects.filter(NOT_FLAGGED, study=study, id__lte=max_id).order_by()
        present = rows.values_list("protocol_version", flat=True).distinct()
    present = set(present)
    present.discard(study.protocol_version)
    versions = protocol_specs(study=study, versions=present)
    fallback = present - set(versions)
    return ProtocolSet(
        current=study.spec, current_version=study.protocol_version, versions=versions, fallback=frozenset(fallback)
    )


# --- annotations as columns -------------------------------------------------------------------

COLUMNS_CHUNK_SIZE = 50_000
FLAGGED = Review.Outcome.FLAGGED.value


def _json_sql() -> str | None:
    """The SQL of an answer key's JSON text here, or None when this database has no JSON
    extraction we use (then the ORM reads the rows)."""
    if connection.vendor == "postgresql":
        return "(answers -> %s)::text"
    if connection.vendor == "sqlite" and sqlite3.sqlite_version_info >= (3, 38):
        return "(answers -> %s)"
    return None


def _chunks_sql(study_id: int, max_id: int, keys: Sequence[str], size: int, key_sql: str):
    """Chunks of columns, the database extracting each key, in id order.

    PostgreSQL streams one query through a server-side cursor: one pass whatever plan it picks.
    (Keyset pages, ``id > last … LIMIT n``, went quadratic there on a freshly loaded table without
    statistics: each page was a bitmap scan of every remaining row and a sort.) SQLite reads
    keyset pages over the (study, id) index, so no read lock is held between pages while
    annotators keep submitting."""
    select = (
        "SELECT id, item_id, pool_id, annotator_id, protocol_version, skipped"
        + "".join(f", {key_sql}" for _ in keys)
        + f" FROM {Annotation._meta.db_table} a WHERE study_id = %s AND id <= %s"
        + f" AND NOT EXISTS (SELECT 1 FROM {Review._meta.db_table} r WHERE r.annotation_id = a.id AND r.outcome = %s)"
    )
    if connection.vendor == "postgresql" and not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS"):
        with connection.chunked_cursor() as cursor:
            cursor.execute(select + " ORDER BY id", [*keys, study_id, max_id, FLAGGED])
            while rows := cursor.fetchmany(size):
                yield _columns_of(rows)
        return
    last = 0
    with connection.cursor() as cursor:
        while True:
            cursor.execute(select + " AND id > %s ORDER BY id LIMIT %s", [*keys, study_id, max_id, FLAGGED, last, size])
            rows = cursor.fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield _columns_of(rows)


def _columns_of(rows: list[tuple]) -> list[np.ndarray]:
    table = np.array(rows, dtype=object)  # a cell at a time in C: faster than zip(*rows)
    return [table[:, i] for i in range(table.shape[1])]


def _chunks_orm(study_id: int, max_id: int, keys: Sequence[str], size: int):
    """The same chunks, each answer decoded in Python and each key written back as JSON text."""
    rows = (
        Annotation.objects.filter(NOT_FLAGGED, study_id=study_id, id__lte=max_id)
        .order_by("id")
        .values_list("id", "item_id", "pool_id", "annotator_id", "protocol_version", "skipped", "answers")
        .iterator(chunk_size=size)
    )
    chunk: list[tuple] = []
    for *ids, answers in rows:
        answers = answers if isinstance(answers, dict) else {}
        chunk.append((*ids, *(json.dumps(answers[k]) if k in answers else None for k in keys)))
        if len(chunk) == size:
            yield list(zip(*chunk, strict=True))
            chunk = []
    if chunk:
        yield list(zip(*chunk, strict=True))


def annotation_columns(
    *,
    study: Study,
    max_id: int,
    keys: Iterable[str],
    on_chunk: Callable[[int], None] | None = None,
    chunk_size: int = COLUMNS_CHUNK_SIZE,
    native: bool = True,
) -> AnnotationColumns:
    """The study's annotations with id <= ``max_id``, in id order, keeping the answer ``keys``:
    one pass over the database, in chunks, with no answer document decoded in Python where the
    database can extract JSON (PostgreSQL; SQLite 3.38+). ``on_chunk(rows read)`` reports progress;
    ``native=False`` reads through the ORM instead (any database)."""
    keys = list(dict.fromkeys(keys))
    sql = _json_sql() if native else None
    chunks = (
        _chunks_sql(study.pk, max_id, keys, chunk_size, sql) if sql else _chunks_orm(study.pk, max_id, keys, chunk_size)
    )
    return columns_from_chunks(chunks, keys, on_chunk)


def complete_prompts_of(*, study: Study) -> CompletePrompts:
    """The study's prompts with an image from every model, and their items (one query); a prompt
    is (item country, prompt text). Example items of the practice test are not part of it."""
    rows = study.items.filter(is_example=False).values_list("pk", "country", "prompt", "model_name")
    return complete_prompts((pk, (country, prompt), model) for pk, country, prompt, model in rows.iterator(chunk_size=20_000))


def stored_versions(*, study: Study) -> set[int]:
    """Every protocol version of the study with a stored spec, and the current one."""
    return {*ProtocolVersion.objects.filter(study=study).values_list("version", flat=True), study.protocol_version}


def documents_of_items(*, item_ids: Iterable[int]) -> dict[int, DocumentInfo]:
    """The documents of these items, by id, for the per-document export table."""
    rows = Document.objects.filter(item_id__in=list(item_ids)).values_list("pk", "position", "title", "url")
    return {pk: DocumentInfo(pk, position, title, url) for pk, position, title, url in rows}


def item_names(*, study: Study) -> dict[int, str]:
    """The study's items: id → the researcher's own id (``external_id``)."""
    return dict(Item.objects.filter(study=study).values_list("pk", "external_id"))


def document_positions(*, study: Study) -> dict[int, int]:
    """The documents of the study's items: id → position within its item."""
    return dict(Document.objects.filter(item__study=study).values_list("pk", "position"))


# --- jobs -------------------------------------------------------------------------------------


def analysis_latest(*, study: Study) -> AnalysisRun | None:
    """The study's newest run, without its whole result (megabytes of JSON for a large study):
    pages read its summary (``run_summary``)."""
    return study.analysis_runs.order_by("-created_at", "-id").defer("result").first()


def analysis_latest_done(*, study: Study) -> AnalysisRun | None:
    """The newest finished run, without its result: what export gating compares with the data."""
    runs = study.analysis_runs.filter(status=AnalysisRun.Status.DONE).order_by("-finished_at", "-id")
    return runs.defer("result", "summary").first()


def run_summary(run: AnalysisRun | None) -> dict | None:
    """What the page shows of a finished run: its summary (long tables cut to their first rows),
    or, for a run from before summaries, its whole result (read then, if it was deferred)."""
    if run is None or run.status != AnalysisRun.Status.DONE:
        return None
    return run.summary if run.summary is not None else run.result


def analysis_result_text(*, run: AnalysisRun) -> str:
    """A run's result as the database stores it, JSON text never decoded in Python (the page's
    "download as JSON"; one query)."""
    text = AnalysisRun.objects.filter(pk=run.pk).values_list(Cast("result", output_field=TextField()), flat=True).first()
    return text or "null"


def analysis_for_study(*, study: Study, pk: int) -> AnalysisRun:
    """One run of the study, or 404; without its whole result, like ``analysis_latest``."""
    return get_object_or_404(study.analysis_runs.defer("result"), pk=pk)


def export_latest(*, study: Study) -> ExportJob | None:
    return study.export_jobs.order_by("-created_at", "-id").first()


def export_for_study(*, study: Study, pk: int) -> ExportJob:
    return get_object_or_404(study.export_jobs, pk=pk)


def export_file_for_study(*, study: Study, pk: int) -> ExportJob:
    job = export_for_study(study=study, pk=pk)
    if job.status != ExportJob.Status.DONE or not job.file:
        raise Http404("This export has no file.")
    return job


@dataclass
class ExportPanel:
    """What the export section of the analysis page shows."""

    fingerprint: Fingerprint
    analysis: AnalysisRun | None  # the latest finished analysis
    staleness: Staleness | None
    job: ExportJob | None
    documents: bool = False  # the protocol asks questions per document: a second table, in a ZIP

    @property
    def allowed(self) -> bool:
        return self.analysis is not None and self.staleness is not None and self.staleness.current


def export_panel(*, study: Study) -> ExportPanel:
    now = data_fingerprint(study=study)
    done = analysis_latest_done(study=study)
    return ExportPanel(
        fingerprint=now,
        analysis=done,
        staleness=staleness(done.data_fingerprint, now) if done else None,
        job=export_latest(study=study),
        documents=any(f.type == "per_document" for f in study.spec.fields),
    )


# --- dashboard --------------------------------------------------------------------------------


@dataclass
class PoolProgress:
    pool: CountryPool
    entry_link: str
    items: int = 0
    wanted: int = 0
    done: int = 0
    leased_now: int = 0
    annotators_active: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.done / self.wanted)) if self.wanted else 0

    @property
    def not_eligible(self) -> int:
        return self.outcomes.get(Annotator.Outcome.NOT_ELIGIBLE, 0)

    @property
    def failed_mock(self) -> int:
        return self.outcomes.get(Annotator.Outcome.FAILED_MOCK, 0)

    @property
    def no_consent(self) -> int:
        return self.outcomes.get(Annotator.Outcome.NO_CONSENT, 0)


PROLIFIC_PARAMS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"


def entry_link(pool: CountryPool) -> str:
    """The pool's annotator entry link, with Prolific's placeholders, ready to paste into Prolific."""
    return f"{settings.SITE_URL}{reverse('annotation:entry', args=[pool.entry_key])}?{PROLIFIC_PARAMS}"


def dashboard_pools(*, study: Study, now: datetime | None = None) -> list[PoolProgress]:
    """Per pool progress in a fixed number of grouped queries, whatever the number of pools or items."""
    now = now or timezone.now()
    rows = {p.pk: PoolProgress(pool=p, entry_link=entry_link(p)) for p in study.pools.order_by("country")}
    quotas = (
        ItemQuota.objects.filter(pool__study=study)
        .values("pool_id")
        .annotate(items=Count("id"), wanted=Sum("wanted"), done=Sum("done"))
        .order_by()
    )
    for q in quotas:
        row = rows[q["pool_id"]]
        row.items, row.wanted, row.done = q["items"], q["wanted"] or 0, q["done"] or 0
    leases = (
        Assignment.objects.filter(pool__study=study, status=Assignment.Status.LEASED, expires_at__gt=now)
        .values("pool_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    for lease in leases:
        rows[lease["pool_id"]].leased_now = lease["n"]
    active = Annotation.objects.filter(study=study).values("pool_id").annotate(n=Count("annotator_id", distinct=True)).order_by()
    for a in active:
        rows[a["pool_id"]].annotators_active = a["n"]
    outcomes = Annotator.objects.filter(study=study).exclude(outcome="").values("pool_id", "outcome").annotate(n=Count("id")).order_by()
    for o in outcomes:
        rows[o["pool_id"]].outcomes[o["outcome"]] = o["n"]
    return list(rows.values())

"""The annotations an export ships, read in chunks: one SQL query (joined to their item, pool and
review) with no ORM object or converter per row, so a million rows stream in seconds.

The annotations are those that count (``analysis.fingerprint.COUNTED``: none flagged by a checker,
none withdrawn) up to the ``max_id`` of the data the export's analysis saw, in id order.
PostgreSQL streams the one query through a server-side cursor; SQLite reads keyset pages over the
(study, id) index, so no read lock is held between pages while annotators keep submitting (as
``analysis.reader`` does).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime

from django.db import connection

from annotation.models import Annotation, Annotator, Review, pseudonym_for
from studies.models import CountryPool, Item, Study

from .formats.table import AnnotationRow

FLAGGED = Review.Outcome.FLAGGED.value


def _select() -> str:
    # SQLite's times as their text, read by ``datetime.fromisoformat`` (in C), not by the driver's
    # converter (a regular expression per value: some 5% of a Parquet export)
    started, submitted = (
        ("CAST(a.started_at AS TEXT)", "CAST(a.submitted_at AS TEXT)") if connection.vendor == "sqlite"
        else ("a.started_at", "a.submitted_at")
    )
    return (
        "SELECT a.id, a.item_id, i.external_id, i.prompt, i.model_name, i.category, i.country, p.country,"
        f" a.annotator_id, a.answers, a.surplus, a.protocol_version, a.time_spent_ms, {started},"
        f" {submitted}, r.outcome"
        f" FROM {Annotation._meta.db_table} a"
        f" JOIN {Item._meta.db_table} i ON i.id = a.item_id"
        f" JOIN {CountryPool._meta.db_table} p ON p.id = a.pool_id"
        f" LEFT JOIN {Review._meta.db_table} r ON r.annotation_id = a.id"
        " WHERE a.study_id = %s AND a.id <= %s AND NOT a.withdrawn AND (r.outcome IS NULL OR r.outcome <> %s)"
    )


def _moment(value) -> datetime:
    """A stored time as a datetime: PostgreSQL's is aware, SQLite's naive in UTC (as Django stores
    it with USE_TZ; ``csvformat.iso_utc`` and Arrow's UTC timestamps read a naive one as UTC)."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def _pages(study_id: int, max_id: int, size: int) -> Iterator[list[tuple]]:
    select = _select()
    if connection.vendor == "postgresql" and not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS"):
        with connection.chunked_cursor() as cursor:
            cursor.execute(select + " ORDER BY a.id", [study_id, max_id, FLAGGED])
            while rows := cursor.fetchmany(size):
                yield rows
        return
    last = 0
    with connection.cursor() as cursor:
        while True:
            cursor.execute(select + " AND a.id > %s ORDER BY a.id LIMIT %s", [study_id, max_id, FLAGGED, last, size])
            rows = cursor.fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield rows


def export_rows(*, study: Study, max_id: int, chunk_size: int) -> Iterator[list[AnnotationRow]]:
    """The annotations an export ships, in id order, in chunks of ``chunk_size`` (never the whole study)."""
    names = {pk: pseudonym_for(public_id) for pk, public_id in Annotator.objects.filter(study=study).values_list(
        "pk", "public_id"
    ).iterator(chunk_size=10_000)}
    loads, moment = json.loads, _moment
    for rows in _pages(study.pk, max_id, chunk_size):
        yield [
            AnnotationRow(
                item_pk, item_id, prompt, model, category, item_country, pool_country, names[annotator],
                loads(answers) if isinstance(answers, (str, bytes)) else answers,
                bool(surplus), version, spent, moment(started), moment(submitted), review,
            )
            for (_, item_pk, item_id, prompt, model, category, item_country, pool_country, annotator, answers,
                 surplus, version, spent, started, submitted, review) in rows
        ]

"""The annotations an export ships, read in chunks: one SQL query with no ORM object or converter
per row, so a million rows stream in seconds.

The annotations are those that count (``analysis.fingerprint.COUNTED``: none flagged by a checker,
none withdrawn) up to the ``max_id`` of the data the export's analysis saw, in id order.
PostgreSQL streams the one query through a server-side cursor; SQLite reads keyset pages over the
(study, id) index, so no read lock is held between pages while annotators keep submitting (as
``analysis.reader`` does). Answers arrive as their JSON text, read by orjson. An item's columns
(its id, prompt, model…) are read once per chunk it appears in, not once per annotation: the
rows of its annotations share the same strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

import orjson
from django.db import connection

from annotation.models import Annotation, Annotator, Review, pseudonym_for
from studies.models import CountryPool, Item, Study

from .csvformat import Moments
from .formats.table import Chunk

FLAGGED = Review.Outcome.FLAGGED.value
ITEMS_PER_QUERY = 900  # below SQLite's oldest limit of 999 parameters


def _select() -> str:
    # SQLite's times as their text, read by ``datetime.fromisoformat`` (in C), not by the driver's
    # converter (a regular expression per value: some 5% of a Parquet export); PostgreSQL's answers
    # as text for orjson, not decoded by the driver's json module
    if connection.vendor == "sqlite":
        started, submitted, answers = "CAST(a.started_at AS TEXT)", "CAST(a.submitted_at AS TEXT)", "a.answers"
    else:
        started, submitted, answers = "a.started_at", "a.submitted_at", "a.answers::text"
    return (
        f"SELECT a.id, a.item_id, p.country, a.annotator_id, {answers}, a.surplus, a.protocol_version,"
        f" a.time_spent_ms, {started}, {submitted}, r.outcome"
        f" FROM {Annotation._meta.db_table} a"
        f" JOIN {CountryPool._meta.db_table} p ON p.id = a.pool_id"
        f" LEFT JOIN {Review._meta.db_table} r ON r.annotation_id = a.id"
        " WHERE a.study_id = %s AND a.id <= %s AND NOT a.withdrawn AND (r.outcome IS NULL OR r.outcome <> %s)"
    )


def _moments(values: tuple) -> list[datetime]:
    """Stored times as datetimes: PostgreSQL's are aware already; SQLite's are their text, naive in
    UTC (as Django stores them with USE_TZ; ``csvformat.iso_utc`` and Arrow's UTC timestamps read a
    naive one as UTC), read by ``datetime.fromisoformat`` (in C) and kept with that text, which
    the text formats slice into ISO 8601 (``csvformat.Moments``)."""
    if isinstance(values[0], str):
        return Moments(list(map(datetime.fromisoformat, values)), values)
    return list(values)


def _answers(value):
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value


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


def _items(pks: Iterable[int]) -> dict[int, tuple]:
    """The export's columns of these items, by pk: (external id, prompt, model, category, country)."""
    pks = list(pks)
    found: dict[int, tuple] = {}
    for start in range(0, len(pks), ITEMS_PER_QUERY):
        rows = Item.objects.filter(pk__in=pks[start:start + ITEMS_PER_QUERY]).values_list(
            "pk", "external_id", "prompt", "model_name", "category", "country"
        )
        found.update((pk, tuple(columns)) for pk, *columns in rows)
    return found


def export_rows(*, study: Study, max_id: int, chunk_size: int) -> Iterator[Chunk]:
    """The annotations an export ships, in id order, in chunks of ``chunk_size`` (never the whole
    study), each read column by column."""
    names = {pk: pseudonym_for(public_id) for pk, public_id in Annotator.objects.filter(study=study).values_list(
        "pk", "public_id"
    ).iterator(chunk_size=10_000)}
    for rows in _pages(study.pk, max_id, chunk_size):
        (_, item_pk, pool_country, annotator, answers, surplus, version, spent, started, submitted, review) = zip(
            *rows, strict=True
        )
        items = _items(set(item_pk))
        item_id, prompt, model, category, item_country = zip(*map(items.__getitem__, item_pk), strict=True)
        yield Chunk([
            item_pk, item_id, prompt, model, category, item_country, pool_country,
            list(map(names.__getitem__, annotator)), list(map(_answers, answers)), list(map(bool, surplus)),
            version, spent, _moments(started), _moments(submitted), review,
        ])

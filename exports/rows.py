"""The annotations an export ships, read in chunks: one SQL query with no ORM object or converter
per row, so a million rows stream in seconds.

The annotations are those that count (``Annotation.objects.counted()``: none flagged by a checker,
none withdrawn) up to the ``max_id`` of the data the export's analysis saw, in id order, paged as
``annotation.bulk`` pages them (the analysis's streamer): a server-side cursor on PostgreSQL, its
next page fetched by a thread while this one writes; keyset pages over the (study, id) index on
SQLite. Answers arrive as their JSON text, read by orjson. An item's columns
(its id, prompt, model…) are read once per chunk it appears in, not once per annotation: the
rows of its annotations share the same strings.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterable, Iterator
from datetime import datetime

import orjson
from django.db import connection

from annotation import bulk
from annotation.models import Annotation, Annotator, Review, pseudonym_for
from studies.models import CountryPool, Item, Study, panel_label

from .csv_layout import Moments
from .formats.table import Chunk

ITEMS_PER_QUERY = 900  # below SQLite's oldest limit of 999 parameters


def _select() -> str:
    # Times as the text of a naive time in UTC (SQLite's as stored; PostgreSQL's written so by
    # to_char, microseconds always), read by ``datetime.fromisoformat`` (in C), not by the driver's
    # converter (a regular expression per value on SQLite; a time zone per value on PostgreSQL), and
    # sliced into ISO 8601 by the text formats; PostgreSQL's answers as text for orjson, not decoded
    # by the driver's json module
    if connection.vendor == "sqlite":
        started, submitted, answers = "CAST(a.started_at AS TEXT)", "CAST(a.submitted_at AS TEXT)", "a.answers"
        effort = "a.effort"
    else:
        utc_text = "to_char(a.{} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')"
        started, submitted, answers = utc_text.format("started_at"), utc_text.format("submitted_at"), "a.answers::text"
        effort = "a.effort::text"
    return (
        f"SELECT a.id, a.item_id, p.country, a.annotator_id, {answers}, a.surplus, a.protocol_version,"
        f" a.time_spent_ms, {started}, {submitted}, r.outcome, {effort}"
        f" FROM {Annotation._meta.db_table} a"
        f" JOIN {CountryPool._meta.db_table} p ON p.id = a.pool_id"
        f" LEFT JOIN {Review._meta.db_table} r ON r.annotation_id = a.id"
        " WHERE a.study_id = %s AND a.id <= %s AND NOT a.withdrawn AND (r.outcome IS NULL OR r.outcome <> %s)"
    )


def _moments(values: tuple) -> list[datetime]:
    """Times read as text (``_select``), naive in UTC (``csv_layout.iso_utc`` and Arrow's UTC
    timestamps read a naive one as UTC), as datetimes read by ``datetime.fromisoformat`` (in C),
    kept with their text, which the text formats slice into ISO 8601 (``csv_layout.Moments``)."""
    if isinstance(values[0], str):
        return Moments(list(map(datetime.fromisoformat, values)), values)
    return list(values)


def _answers(value):
    return orjson.loads(value) if isinstance(value, (str, bytes)) else value


Page = tuple[list[tuple], dict[int, tuple]]  # a page of annotations, and the columns of their items


def _pages(study_id: int, max_id: int, size: int) -> Iterator[Page]:
    select, params = _select(), [study_id, max_id, bulk.FLAGGED]
    if bulk.server_side():
        with connection.chunked_cursor() as cursor, connection.cursor() as items:
            cursor.execute(select + " ORDER BY a.id", params)
            yield from _fetched_ahead(cursor, items, size)
        return
    with connection.cursor() as cursor:
        for rows in bulk.keyset_pages(cursor, select, params, size):
            yield rows, _items(cursor, {row[1] for row in rows})


def _fetched_ahead(cursor, items, size: int) -> Iterator[Page]:
    """The pages of a server-side cursor and their items (read by the ``items`` cursor of the same
    connection), each fetched by a thread while this one writes the page before: PostgreSQL makes
    the next page (a third of a million-row export's time) while the export's Python works
    (psycopg2 lets go of the GIL while it waits). One page ahead at most; the thread has left the
    cursors before this ends, however it ends (the last page, an error, a cancel closing the
    generator)."""
    pages: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def fetch() -> None:
        try:
            while not stop.is_set():
                rows = cursor.fetchmany(size)
                pages.put((rows, _items(items, {row[1] for row in rows})))
                if not rows:
                    return
        except BaseException as exc:  # handed to the reader, which raises it
            pages.put(exc)

    fetcher = threading.Thread(target=fetch, name="export-fetch", daemon=True)
    fetcher.start()
    try:
        while True:
            page = pages.get()
            if isinstance(page, BaseException):
                raise page
            if not page[0]:
                return
            yield page
    finally:
        stop.set()
        while fetcher.is_alive():  # take what it fetched, so that it is not left waiting to hand it over
            with contextlib.suppress(queue.Empty):
                pages.get_nowait()
            fetcher.join(timeout=0.05)


def _item_select() -> str:
    columns = ", ".join(Item._meta.get_field(name).column for name in ITEM_FIELDS)
    return f"SELECT {columns} FROM {Item._meta.db_table} WHERE {Item._meta.pk.column} IN "


ITEM_FIELDS = ("id", "external_id", "prompt", "model_name", "category", "country")


def _items(cursor, pks: Iterable[int]) -> dict[int, tuple]:
    """The export's columns of these items, by pk: (external id, prompt, model, category, country),
    read by ``cursor``: a cursor of the export's connection (the ORM, in the fetching thread, would
    open another connection, outside the export's transaction)."""
    pks = list(pks)
    found: dict[int, tuple] = {}
    select = _item_select()
    for start in range(0, len(pks), ITEMS_PER_QUERY):
        part = pks[start:start + ITEMS_PER_QUERY]
        cursor.execute(select + "(" + ", ".join(["%s"] * len(part)) + ")", part)
        found.update((pk, tuple(columns)) for pk, *columns in cursor.fetchall())
    return found


def export_rows(*, study: Study, max_id: int, chunk_size: int) -> Iterator[Chunk]:
    """The annotations an export ships, in id order, in chunks of ``chunk_size`` (never the whole
    study), each read column by column."""
    panels = {pool.country: panel_label(pool) for pool in study.pools.select_related("panel")}
    names = {pk: pseudonym_for(public_id) for pk, public_id in Annotator.objects.filter(study=study).values_list(
        "pk", "public_id"
    ).iterator(chunk_size=10_000)}
    for rows, items in _pages(study.pk, max_id, chunk_size):
        (_, item_pk, pool_country, annotator, answers, surplus, version, spent, started, submitted, review,
         effort) = zip(
            *rows, strict=True
        )
        item_id, prompt, model, category, item_country = zip(*map(items.__getitem__, item_pk), strict=True)
        yield Chunk([
            item_pk, item_id, prompt, model, category, item_country, pool_country,
            list(map(names.__getitem__, annotator)), list(map(_answers, answers)), list(map(bool, surplus)),
            version, spent, _moments(started), _moments(submitted), review,
            list(map(panels.__getitem__, pool_country)), [None if e is None else _answers(e) for e in effort],
        ])

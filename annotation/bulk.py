"""Bulk reads of a study's annotations: one raw SELECT streamed in pages, with no ORM object or
converter per row, shared by the analysis (``analysis.reader``, ``analysis.quality``) and the
exports (``exports.rows``).

A query selects from the annotation table aliased ``a`` and is ordered by ``a.id``. PostgreSQL
streams it through a server-side cursor: one pass whatever plan it picks (keyset pages, ``id > last
… LIMIT n``, went quadratic there on a freshly loaded table without statistics: each page was a
bitmap scan of every remaining row and a sort). SQLite, or PostgreSQL without server-side cursors,
reads keyset pages over the (study, id) index, so no read lock is held between pages while
annotators keep submitting; each row's first column must then be ``a.id``.

``COUNTED_SQL`` is ``Annotation.objects.counted()`` written for these queries, and
``COUNTED_OR_EXCLUDED_SQL`` is ``counted_or_excluded()``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django.db import connection

from .models import Annotation, Annotator, Assignment, Review, Session

FLAGGED = Review.Outcome.FLAGGED.value
TABLE = Annotation._meta.db_table

# The annotations that count (``AnnotationQuerySet.counted``): not withdrawn, not flagged by a
# checker. One parameter: ``FLAGGED``.
COUNTED_SQL = (
    "NOT a.withdrawn AND NOT EXISTS"
    f" (SELECT 1 FROM {Review._meta.db_table} r WHERE r.annotation_id = a.id AND r.outcome = %s)"
)
# Those, and the ones withdrawn only by their annotator's exclusion (``counted_or_excluded``); the
# same one parameter.
COUNTED_OR_EXCLUDED_SQL = (
    f"NOT EXISTS (SELECT 1 FROM {Review._meta.db_table} r WHERE r.annotation_id = a.id AND r.outcome = %s)"
    f" AND (NOT a.withdrawn OR EXISTS (SELECT 1 FROM {Annotator._meta.db_table} n, {Assignment._meta.db_table} g,"
    f" {Session._meta.db_table} s WHERE n.id = a.annotator_id AND n.excluded_at IS NOT NULL"
    " AND g.id = a.assignment_id AND s.id = g.session_id AND s.withdrawn_at IS NULL))"
)


def server_side() -> bool:
    """Whether this connection streams one query through a server-side cursor."""
    return connection.vendor == "postgresql" and not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")


def keyset_pages(cursor: Any, select: str, params: Sequence[Any], size: int) -> Iterator[list[tuple]]:
    """Pages of ``select`` (whose WHERE clause this extends, first column ``a.id``) by ``cursor``,
    each page ``a.id > last`` in id order."""
    last = 0
    while True:
        cursor.execute(select + " AND a.id > %s ORDER BY a.id LIMIT %s", [*params, last, size])
        rows = cursor.fetchall()
        if not rows:
            return
        last = rows[-1][0]
        yield rows


def pages(select: str, params: Sequence[Any], size: int) -> Iterator[list[tuple]]:
    """The rows of ``select`` (see the module's docstring) in id order, in pages of at most ``size``."""
    if server_side():
        with connection.chunked_cursor() as cursor:
            cursor.execute(select + " ORDER BY a.id", list(params))
            while rows := cursor.fetchmany(size):
                yield rows
        return
    with connection.cursor() as cursor:
        yield from keyset_pages(cursor, select, params, size)

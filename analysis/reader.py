"""The analysis's reads of a study: its annotations as columns in one pass (raw SQL where the
database extracts JSON), the protocol versions they were given under, and item facts."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
from django.db import connection

from annotation import bulk
from annotation.models import Annotation
from stats.columns import AnnotationColumns, columns_from_chunks
from stats.reports import CompletePrompts, complete_prompts
from stats.versions import ProtocolSet
from studies.models import Document, Item, ProtocolVersion, Study
from studies.selectors import protocol_specs

# --- protocol versions ---------------------------------------------------------------------


def protocol_set(*, study: Study, max_id: int | None = None, present: Iterable[int] | None = None) -> ProtocolSet:
    """The specs of every protocol version the study's annotations up to ``max_id`` were given under
    (one DISTINCT over them), or of the versions ``present`` when the caller knows them (the
    analysis, from its one read).

    A version whose spec row is missing (or no longer parses) is read with the current spec, and
    listed in ``fallback``."""
    if present is None:
        if max_id is None:
            raise TypeError("protocol_set needs max_id or present")
        rows = Annotation.objects.counted().filter(study=study, id__lte=max_id).order_by()
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


def json_key_sql() -> str | None:
    """The SQL of an answer key's JSON text here, or None when this database has no JSON
    extraction we use (then the ORM reads the rows)."""
    if connection.vendor == "postgresql":
        return "(answers -> %s)::text"
    if connection.vendor == "sqlite" and sqlite3.sqlite_version_info >= (3, 38):
        return "(answers -> %s)"
    return None


def _chunks_sql(study_id: int, max_id: int, keys: Sequence[str], size: int, key_sql: str, excluded: bool):
    """Chunks of columns, the database extracting each key, in id order (``annotation.bulk``: one
    server-side cursor on PostgreSQL, keyset pages on SQLite)."""
    which = bulk.COUNTED_OR_EXCLUDED_SQL if excluded else bulk.COUNTED_SQL
    select = (
        "SELECT a.id, a.item_id, a.pool_id, a.annotator_id, a.protocol_version, a.skipped, a.time_spent_ms,"
        " NOT a.withdrawn"
        + "".join(f", {key_sql}" for _ in keys)
        + f" FROM {bulk.TABLE} a WHERE a.study_id = %s AND a.id <= %s AND {which}"
    )
    for rows in bulk.pages(select, [*keys, study_id, max_id, bulk.FLAGGED], size):
        yield _columns_of(rows)


def _columns_of(rows: list[tuple]) -> list[np.ndarray]:
    table = np.array(rows, dtype=object)  # a cell at a time in C: faster than zip(*rows)
    return [table[:, i] for i in range(table.shape[1])]


def _chunks_orm(study_id: int, max_id: int, keys: Sequence[str], size: int, excluded: bool):
    """The same chunks, each answer decoded in Python and each key written back as JSON text."""
    which = Annotation.objects.counted_or_excluded() if excluded else Annotation.objects.counted()
    rows = (
        which.filter(study_id=study_id, id__lte=max_id)
        .order_by("id")
        .values_list("id", "item_id", "pool_id", "annotator_id", "protocol_version", "skipped", "time_spent_ms",
                     "withdrawn", "answers")
        .iterator(chunk_size=size)
    )
    chunk: list[tuple] = []
    for *ids, withdrawn, answers in rows:
        answers = answers if isinstance(answers, dict) else {}
        chunk.append((*ids, not withdrawn, *(json.dumps(answers[k]) if k in answers else None for k in keys)))
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
    excluded: bool = False,
) -> AnnotationColumns:
    """The study's annotations that count with id <= ``max_id``, in id order, keeping the answer
    ``keys``: one pass over the database, in chunks, with no answer document decoded in Python where
    the database can extract JSON (PostgreSQL; SQLite 3.38+). ``on_chunk(rows read)`` reports
    progress; ``native=False`` reads through the ORM instead (any database). ``excluded=True`` also
    reads those left out only because their annotator is excluded (``counted`` False), which
    quality control scores: ``counted_only()`` gives the rest."""
    keys = list(dict.fromkeys(keys))
    sql = json_key_sql() if native else None
    chunks = (
        _chunks_sql(study.pk, max_id, keys, chunk_size, sql, excluded) if sql
        else _chunks_orm(study.pk, max_id, keys, chunk_size, excluded)
    )
    return columns_from_chunks(chunks, keys, on_chunk)


def complete_prompts_of(*, study: Study) -> CompletePrompts:
    """The study's prompts with an image from every model, and their items (one query); a prompt
    is (item country, prompt text). Example items of the practice test are not part of it."""
    rows = study.items.ordinary().values_list("pk", "country", "prompt", "model_name")
    return complete_prompts(
        (pk, (country, prompt), model) for pk, country, prompt, model in rows.iterator(chunk_size=20_000)
    )


def stored_versions(*, study: Study) -> set[int]:
    """Every protocol version of the study with a stored spec, and the current one."""
    return {*ProtocolVersion.objects.filter(study=study).values_list("version", flat=True), study.protocol_version}


def item_names(*, study: Study) -> dict[int, str]:
    """The study's items: id → the researcher's own id (``external_id``), the name every result a
    researcher reads gives an item (one query)."""
    rows = Item.objects.filter(study=study).values_list("pk", "external_id")
    return dict(rows.iterator(chunk_size=20_000))


def items_named(ids: np.ndarray, names: Mapping[int, str]) -> np.ndarray:
    """Each item id of ``ids`` as ``names`` names it (an object array), looked up once per distinct
    id; an id ``names`` lacks keeps its number as text."""
    distinct, inverse = np.unique(np.asarray(ids, dtype=np.int64), return_inverse=True)
    table = np.empty(len(distinct), dtype=object)
    table[:] = [names.get(i, str(i)) for i in distinct.tolist()]
    return table[inverse.reshape(-1)]


def document_positions(*, study: Study) -> dict[int, int]:
    """The documents of the study's items: id → position within its item."""
    return dict(Document.objects.filter(item__study=study).values_list("pk", "position"))

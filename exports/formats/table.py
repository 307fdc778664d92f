"""The raw export's two tables as typed columns, for every format. Pure: no Django.

One row per annotation (``AnnotationRow``, as the service reads it), with the columns of the CSV
layout (``csv_layout.header``): the item, the pool, the pseudonymous annotator, every answer, the
protocol version, time spent, timestamps and the review outcome. Here each column also has its
Arrow type (the Parquet schema, fixed from the protocol versions before the first row is read)
and each row its typed values (what JSONL and Parquet write): numbers stay numbers, lists stay
lists, timestamps are timestamps. An answer's values and types are its field type's
(``export_values``, ``export_arrow``); a column whose type changed between protocol versions is
written as text (a whole number under a later float scale as a float).

A chunk of rows is typed column by column (``typed_columns``): one pass per field over the chunk
instead of a dict per row, with exactly the values ``row_values`` gives one row (tested side by
side); that is what lets a million annotations stream in seconds.

The documents table (a protocol with a per_document field): one row per (annotation,
per_document field, document), as ``csv_layout.document_rows`` lays it out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import pyarrow as pa

from stats.versions import ProtocolSet
from studies.protocol import SKIP, Field, Protocol
from studies.protocol.types.base import mappings, typed_value

from .. import csv_layout
from ..csv_layout import DocumentInfo, Layout


class AnnotationRow(NamedTuple):
    """One annotation as the export reads it (the service's query, in this order)."""

    item_pk: int
    item_id: str  # the researcher's id (``Item.external_id``)
    prompt: str
    model: str
    category: str
    item_country: str
    pool_country: str
    annotator: str  # the pseudonym, never the Prolific id
    answers: Any
    surplus: bool
    protocol_version: int
    time_spent_ms: int
    started_at: datetime
    submitted_at: datetime
    review: str | None  # "accepted", or None when no checker reviewed it
    panel: str = "Prolific"  # the pool's panel (a URL panel's name); written after pool_country
    effort: Any = None  # the page's honest-effort counts (``annotation.effort``), None: none; written last


class Chunk(Sequence[AnnotationRow]):
    """A chunk of annotations as the service reads it: its columns, in ``AnnotationRow``'s order
    (what the typed tables read), and its rows, made only when a writer iterates them."""

    def __init__(self, columns: Sequence[Sequence[Any]]):
        assert len(columns) == len(AnnotationRow._fields)
        self.columns = columns
        self._rows: list[AnnotationRow] | None = None

    @property
    def rows(self) -> list[AnnotationRow]:
        if self._rows is None:
            self._rows = list(map(AnnotationRow._make, zip(*self.columns, strict=True)))
        return self._rows

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, index):  # type: ignore[override]
        return self.rows[index]

    def __iter__(self):
        return iter(self.rows)


def columns_of(rows: Sequence[AnnotationRow]) -> Sequence[Sequence[Any]]:
    """A chunk's columns, in ``AnnotationRow``'s order (``rows`` not empty)."""
    return rows.columns if isinstance(rows, Chunk) else list(zip(*rows, strict=True))


TIMESTAMP = pa.timestamp("ms", tz="UTC")
ITEM_TYPES = [pa.string()] * len(csv_layout.ITEM_COLUMNS)
TRAILING_TYPES = [pa.bool_(), pa.int64(), pa.float64(), TIMESTAMP, TIMESTAMP, pa.string(),
                  pa.int64(), pa.int64(), pa.int64(), pa.float64()]
DOCUMENT_LEAD_TYPES = [pa.string()] * len(csv_layout.DOCUMENT_LEAD_COLUMNS)
DOCUMENT_TYPES = [pa.string(), pa.int64(), pa.int64(), pa.string(), pa.string()]
assert len(TRAILING_TYPES) == len(csv_layout.TRAILING_COLUMNS)
assert len(DOCUMENT_TYPES) == len(csv_layout.DOCUMENT_COLUMNS)


def merged_type(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """The type of a column that versions typed ``a`` and ``b``: the same, a number, else text."""
    if a == b:
        return a
    numeric = pa.types.is_integer
    if all(numeric(t) or pa.types.is_floating(t) for t in (a, b)):
        return pa.float64()
    return pa.string()


def _answer_types(fields_by_group: list[list[Field]]) -> dict[str, pa.DataType]:
    types: dict[str, pa.DataType] = {}
    for variants in fields_by_group:
        for f in variants:
            for column, kind in f.kind.export_arrow(f).items():
                types[column] = merged_type(types[column], kind) if column in types else kind
    return types


@dataclass(frozen=True)
class Step:
    """How one field of one protocol version becomes typed cells: its stored value under its key
    (``plain``), else its type's ``export_values``; ``recast``: its columns whose type differs
    in the export (changed between versions), with the export's type."""

    field: Field
    plain: bool
    recast: Mapping[str, pa.DataType]


def _steps(fields: tuple[Field, ...] | list[Field], types: Mapping[str, pa.DataType]) -> list[Step]:
    steps = []
    for f in fields:
        recast = {c: types[c] for c, own in f.kind.export_arrow(f).items() if types[c] != own}
        steps.append(Step(f, f.kind.plain_export and not recast, recast))
    return steps


@dataclass(frozen=True)
class Tables:
    """The typed layout of an export: the CSV layout, and the Arrow schema of each table."""

    layout: Layout
    schema: pa.Schema
    document_schema: pa.Schema | None  # None: the protocol asks nothing per document
    answer_types: Mapping[str, pa.DataType]
    sub_types: Mapping[str, pa.DataType]
    _plans: dict[int, tuple[Protocol, list[Step]]] = field(default_factory=dict, compare=False, repr=False)

    def steps(self, protocol: Protocol) -> list[Step]:
        """The steps of ``protocol``'s fields, worked out once per protocol version."""
        hit = self._plans.get(id(protocol))
        if hit is None or hit[0] is not protocol:  # the entry holds ``protocol``, so its id is not reused
            hit = self._plans[id(protocol)] = (protocol, _steps(protocol.fields, self.answer_types))
        return hit[1]

    def sub_steps(self, container: Field) -> list[Step]:
        hit = self._plans.get(id(container))
        if hit is None or hit[0] is not container:
            hit = self._plans[id(container)] = (container, _steps(container.fields, self.sub_types))
        return hit[1]


def tables_for(protocols: ProtocolSet) -> Tables:
    layout = csv_layout.layout_for(protocols)
    answer_types = _answer_types(protocols.groups())
    head = csv_layout.header(layout)
    types = (
        ITEM_TYPES + ([pa.string()] if layout.skip else [])
        + [answer_types[c] for c in layout.answer_columns] + TRAILING_TYPES
    )
    sub_types = _answer_types([g for key in layout.document_fields for g in protocols.sub_groups(key)])
    document_schema = None
    if layout.has_documents:
        names = csv_layout.document_header(layout)
        kinds = (
            DOCUMENT_LEAD_TYPES + DOCUMENT_TYPES + [sub_types[c] for c in layout.sub_columns]
            + ([pa.float64()] if layout.scored else []) + [pa.int64()]
        )
        document_schema = pa.schema(list(zip(names, kinds, strict=True)))
    return Tables(layout, pa.schema(list(zip(head, types, strict=True))), document_schema, answer_types, sub_types)


def _typed_answers(steps: list[Step], answers: Mapping[str, Any]) -> dict[str, Any]:
    cells: dict[str, Any] = {}
    for step in steps:
        f = step.field
        value = answers.get(f.key)
        if value is None:
            continue
        if step.plain:
            cells[f.key] = value
            continue
        for column, cell in f.kind.export_values(f, value).items():
            kind = step.recast.get(column)
            if kind is not None and cell is not None:
                cell = typed_value(cell, kind)  # a whole number in a float column; anything in a text one
            cells[column] = cell
    return cells


def answer_values(tables: Tables, protocol: Protocol, answers: Any) -> list[Any]:
    """The skip reason (when the layout has the column) and the typed answers, read with ``protocol``."""
    layout = tables.layout
    if not isinstance(answers, Mapping):
        answers = {}
    lead = [answers.get(SKIP)] if layout.skip else []
    if SKIP in answers:
        return lead + [None] * len(layout.answer_columns)
    cells = _typed_answers(tables.steps(protocol), answers)
    return lead + [cells.get(c) for c in layout.answer_columns]


_NO_ANSWERS: Mapping[str, Any] = {}


def given_answers(answers: Sequence[Any]) -> list[Mapping[str, Any]]:
    """Each annotation's answers, or none when it was skipped or holds no object."""
    return [a if (type(a) is dict or isinstance(a, Mapping)) and SKIP not in a else _NO_ANSWERS for a in answers]


def skip_reasons(answers: Sequence[Any]) -> list[Any]:
    return [a.get(SKIP) if isinstance(a, Mapping) else None for a in answers]


def answer_columns(tables: Tables, protocol: Protocol, answers: Sequence[Any]) -> list[list[Any]]:
    """``answer_values`` of many annotations given under ``protocol``, column by column."""
    layout = tables.layout
    given = given_answers(answers)
    columns: dict[str, list[Any]] = {}
    for step in tables.steps(protocol):
        f, key = step.field, step.field.key
        if step.plain:
            columns[key] = [a.get(key) for a in given]
            continue
        convert = f.kind.export_values
        cells = [_NO_ANSWERS if (value := a.get(key)) is None else convert(f, value) for a in given]
        for column in f.kind.export_arrow(f):
            values = [c.get(column) for c in cells]
            kind = step.recast.get(column)
            if kind is not None:  # a whole number in a float column; anything in a text one
                values = [None if v is None else typed_value(v, kind) for v in values]
            columns[column] = values
    empty = [None] * len(answers)
    lead = [skip_reasons(answers)] if layout.skip else []
    return lead + [columns.get(c, empty) for c in layout.answer_columns]


def by_version(
    protocols: ProtocolSet, versions: Sequence[int], answers: Sequence[Any],
    columns_of: Callable[[Protocol, Sequence[Any]], list[list[Any]]],
) -> list[list[Any]]:
    """``columns_of(protocol, answers)`` for a chunk whose answers may have been given under several
    protocol versions: each version's rows read with its own spec, put back in the chunk's order."""
    first = versions[0]
    if versions.count(first) == len(versions):  # the usual chunk: one version
        return columns_of(protocols.for_version(first), answers)
    positions: dict[int, list[int]] = {}
    for i, version in enumerate(versions):
        positions.setdefault(version, []).append(i)
    out: list[list[Any]] = []
    for version, where in positions.items():
        part = columns_of(protocols.for_version(version), [answers[i] for i in where])
        if not out:
            out = [[None] * len(answers) for _ in part]
        for column, values in zip(out, part, strict=True):
            for i, value in zip(where, values, strict=True):
                column[i] = value
    return out


def typed_columns(tables: Tables, protocols: ProtocolSet, rows: Sequence[AnnotationRow]) -> list[list[Any]]:
    """A chunk's typed values column by column, in the schema's order: ``row_values`` of each row."""
    if not rows:
        return [[] for _ in tables.schema]
    (_, item_id, prompt, model, category, item_country, pool_country, annotator, answers,
     surplus, version, spent, started, submitted, review, panel, effort) = columns_of(rows)
    answers_typed = by_version(
        protocols, version, answers, lambda protocol, part: answer_columns(tables, protocol, part)
    )
    return [
        list(item_id), list(prompt), list(model), list(category), list(item_country), list(pool_country),
        list(panel), list(annotator), *answers_typed,
        list(map(bool, surplus)), list(version), [ms / 1000 for ms in spent], _column(started), _column(submitted),
        list(review), *csv_layout.effort_value_columns(effort),
    ]


def _column(values: Sequence[Any]) -> list[Any]:
    """A chunk's column as a list; a list (``csv_layout.Moments`` too, with its stored text) as it is."""
    return values if isinstance(values, list) else list(values)


def row_values(tables: Tables, protocol: Protocol, row: AnnotationRow) -> list[Any]:
    """One annotation's typed values, in the schema's order."""
    return [
        row.item_id, row.prompt, row.model, row.category, row.item_country, row.pool_country, row.panel,
        row.annotator, *answer_values(tables, protocol, row.answers),
        bool(row.surplus), row.protocol_version, row.time_spent_ms / 1000, row.started_at, row.submitted_at,
        row.review, *(column[0] for column in csv_layout.effort_value_columns([row.effort])),
    ]


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def document_values(
    tables: Tables, protocol: Protocol, row: AnnotationRow, documents: Mapping[int, DocumentInfo]
) -> list[list[Any]]:
    """The documents table's typed rows of one annotation (none when it was skipped)."""
    layout = tables.layout
    answers = row.answers
    if not isinstance(answers, Mapping) or SKIP in answers:
        return []
    rows = []
    for f in protocol.fields:
        if not f.kind.container:
            continue
        for entry in mappings(answers.get(f.key)):
            doc = documents.get(entry.get("document")) or DocumentInfo(entry.get("document", ""))
            cells = _typed_answers(tables.sub_steps(f), entry)
            typed = [
                row.item_id, row.pool_country, row.annotator,
                f.key, _int_or_none(doc.id), _int_or_none(doc.position), doc.title, doc.url,
                *(cells.get(c) for c in layout.sub_columns),
            ]
            if layout.scored:
                score = layout.scorer(entry, f.fields)
                typed.append(None if score is None else float(score))
            typed.append(row.protocol_version)
            rows.append(typed)
    return rows


def chunk_document_values(
    tables: Tables, protocols: ProtocolSet, rows: Sequence[AnnotationRow], documents: Mapping[int, DocumentInfo]
) -> list[list[Any]]:
    """The documents table's typed rows of a chunk, each annotation read with its version's spec."""
    return [
        values for row in rows
        for values in document_values(tables, protocols.for_version(row.protocol_version), row, documents)
    ]

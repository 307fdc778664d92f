"""The export's CSV layout. Pure: no Django.

Two tables. ``annotations.csv``: one row per annotation, with columns from the protocol (every
version the answers were given under; see ``protocols.ProtocolSet``). ``documents.csv``, only for
a protocol with a per_document field: one row per (annotation, per_document field, document),
with the document, each sub-field's answer and RAVENEA's combined score. Both name the annotation
by (item_id, annotator), which is unique: an annotator never gets the same item twice.

How each field type becomes cells is the type's own (``export_columns`` / ``export_cells`` of
its class in ``studies/protocol/types/``): scale, choice, text the value; multi the values joined
by "|"; highlight, bbox, upload, pick_one and per_document their own columns; url_list a JSON list.

An item-level skip fills the ``skipped`` column with its reason and leaves every answer empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from annotation.effort import effort_totals
from stats.scores import DEFAULT_MAPPING, Scorer, scored_fields
from stats.versions import ProtocolSet
from studies.protocol import SKIP, Field, Protocol, cell_text

# ``panel``: the pool's panel (Prolific, or a URL panel's name: ``studies.panels``)
ITEM_COLUMNS = ["item_id", "prompt", "model", "category", "item_country", "pool_country", "panel", "annotator"]
SKIP_COLUMN = "skipped"
# the last four: the item page's honest-effort counts (``annotation.effort``; empty when the page sent
# none), for review only
EFFORT_COLUMNS = ["pasted_chars", "typed_chars", "focus_losses", "hidden_seconds"]
TRAILING_COLUMNS = ["surplus", "protocol_version", "time_spent_s", "started_at", "submitted_at", "review",
                    *EFFORT_COLUMNS]

DOCUMENT_LEAD_COLUMNS = ["item_id", "pool_country", "annotator"]
DOCUMENT_COLUMNS = ["field", "document_id", "document_position", "document_title", "document_url"]
SCORE_COLUMN = "combined_score"
DOCUMENT_TRAILING_COLUMNS = ["protocol_version"]


@dataclass(frozen=True)
class DocumentInfo:
    id: int
    position: int | str = ""
    title: str = ""
    url: str = ""


# --- one field ---------------------------------------------------------------------------------


def field_columns(f: Field) -> list[str]:
    return f.kind.export_columns(f)


def field_cells(f: Field, value: Any) -> dict[str, str]:
    """The cells of one answer, by column name; a missing answer gives no cell (an empty one)."""
    return f.kind.export_cells(f, value)


_NO_ANSWERS: Mapping[str, Any] = {}


def _dicts(value: Any) -> list[Mapping]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _unique(columns: list[str]) -> list[str]:
    return list(dict.fromkeys(columns))


# --- the layout of both tables --------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """The columns of an export, from every protocol version its answers were given under."""

    answer_columns: list[str]
    skip: bool
    document_fields: list[str]  # keys of the per_document fields, of any version
    sub_columns: list[str]
    scored: bool
    scorer: Scorer

    @property
    def has_documents(self) -> bool:
        return bool(self.document_fields)


def layout_for(protocols: ProtocolSet, mapping: Mapping[str, float] = DEFAULT_MAPPING) -> Layout:
    groups = protocols.groups()
    answer_columns = _unique([c for variants in groups for f in variants for c in field_columns(f)])
    documents = [variants[0].key for variants in groups if any(f.kind.container for f in variants)]
    sub_groups = [g for key in documents for g in protocols.sub_groups(key)]
    per_document = [f for p in protocols.newest_first() for f in p.fields if f.kind.container]
    mapping = next((f.score for f in per_document if f.score), mapping)  # the newest spec's own, if set
    return Layout(
        answer_columns=answer_columns,
        skip=protocols.has_skip,
        document_fields=documents,
        sub_columns=_unique([c for variants in sub_groups for f in variants for c in field_columns(f)]),
        scored=any(scored_fields(f.fields, mapping) for f in per_document),
        scorer=Scorer(mapping),
    )


def header(layout: Layout) -> list[str]:
    return ITEM_COLUMNS + ([SKIP_COLUMN] if layout.skip else []) + layout.answer_columns + TRAILING_COLUMNS


def answer_cells(layout: Layout, protocol: Protocol, answers: Mapping[str, Any]) -> list[str]:
    """The skip reason (when the layout has the column) and the answers, read with ``protocol``:
    the spec of the version they were given under."""
    if not isinstance(answers, Mapping):
        answers = {}
    lead = [str(answers.get(SKIP, ""))] if layout.skip else []
    if SKIP in answers:
        return lead + [""] * len(layout.answer_columns)
    cells: dict[str, str] = {}
    for f in protocol.fields:
        cells.update(field_cells(f, answers.get(f.key)))
    return lead + [cells.get(c, "") for c in layout.answer_columns]


def plain_cell(value: Any) -> str:
    """The cell of a field type's default ``export_cells`` (a ``plain_export`` type's), without the
    dict: empty for no answer, a list's values joined by "|", else the value's text."""
    kind = type(value)
    if kind is str:
        return value
    if value is None:
        return ""
    if kind is int:
        return str(value)
    if kind is float:  # ``value_token``'s, without its calls
        return str(int(value)) if value.is_integer() else repr(value)
    if kind is list:
        return "|".join(map(cell_text, value))
    return cell_text(value)


_WORDS_AND_WHOLE_NUMBERS = frozenset({str, int, type(None)})


def plain_cell_column(values: list[Any]) -> list[str]:
    """``plain_cell`` of each value; a column of texts and whole numbers (the usual scale or
    choice, read from JSON) without a call per value."""
    if set(map(type, values)) <= _WORDS_AND_WHOLE_NUMBERS:
        return ["" if v is None else v if v.__class__ is str else str(v) for v in values]
    return list(map(plain_cell, values))


def answer_cell_columns(layout: Layout, protocol: Protocol, answers: Sequence[Any]) -> list[list[str]]:
    """``answer_cells`` of many annotations given under ``protocol``, column by column (the
    export's fast path: one pass per field over a chunk)."""
    given = [
        a if (type(a) is dict or isinstance(a, Mapping)) and SKIP not in a else _NO_ANSWERS for a in answers
    ]
    columns: dict[str, list[str]] = {}
    for f in protocol.fields:
        key = f.key
        if f.kind.plain_export:
            columns[key] = plain_cell_column([a.get(key) for a in given])
            continue
        cells = [field_cells(f, a.get(key)) for a in given]
        for column in field_columns(f):
            columns[column] = [c.get(column, "") for c in cells]
    empty = [""] * len(answers)
    lead = [[str(a.get(SKIP, "")) if isinstance(a, Mapping) else "" for a in answers]] if layout.skip else []
    return lead + [columns.get(c, empty) for c in layout.answer_columns]


def document_header(layout: Layout) -> list[str]:
    score = [SCORE_COLUMN] if layout.scored else []
    return DOCUMENT_LEAD_COLUMNS + DOCUMENT_COLUMNS + layout.sub_columns + score + DOCUMENT_TRAILING_COLUMNS


def document_rows(
    layout: Layout, protocol: Protocol, answers: Mapping[str, Any], documents: Mapping[int, DocumentInfo]
) -> list[list[str]]:
    """The documents.csv cells of one annotation, between its lead and trailing columns."""
    if not isinstance(answers, Mapping) or SKIP in answers:
        return []
    rows = []
    for f in protocol.fields:
        if not f.kind.container:
            continue
        for entry in _dicts(answers.get(f.key)):
            doc = documents.get(entry.get("document")) or DocumentInfo(entry.get("document", ""))
            cells: dict[str, str] = {}
            for sub in f.fields:
                cells.update(field_cells(sub, entry.get(sub.key)))
            row = [f.key, str(doc.id), str(doc.position), doc.title, doc.url]
            row += [cells.get(c, "") for c in layout.sub_columns]
            if layout.scored:
                row.append(cell_text(layout.scorer(entry, f.fields)))
            rows.append(row)
    return rows


# --- times and flags ------------------------------------------------------------------------


def iso_utc(moment: datetime | None) -> str:
    if moment is None:
        return ""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="milliseconds") + "Z"  # a naive time (read from SQLite) is UTC already


class Moments(list):
    """A column of times read from SQLite, with the text each was stored as (``str`` of a naive
    time in UTC, as Django writes it), from which ``iso_utc_column`` slices their ISO text: a
    third of ``isoformat``'s time, which a million-row export spends twice per row."""

    def __init__(self, moments: list[datetime], stored: Sequence[str]):
        super().__init__(moments)
        self.stored = stored


_STORED_MICROSECONDS, _STORED_SECONDS = len("2026-11-25 09:30:01.987654"), len("2026-11-25 09:30:01")


def _iso_from_stored(text: str, moment: datetime | None) -> str:
    if len(text) == _STORED_MICROSECONDS:
        return text[:10] + "T" + text[11:23] + "Z"
    if len(text) == _STORED_SECONDS:
        return text[:10] + "T" + text[11:] + ".000Z"
    return iso_utc(moment)


def iso_utc_column(moments: Sequence[datetime | None]) -> list[str]:
    """``iso_utc`` of each time (a naive one, read from SQLite, without a call; one whose stored
    text is known, from that text)."""
    if isinstance(moments, Moments):
        return [
            text[:10] + "T" + text[11:23] + "Z" if len(text) == _STORED_MICROSECONDS else _iso_from_stored(text, m)
            for text, m in zip(moments.stored, moments, strict=True)
        ]
    return [m.isoformat(timespec="milliseconds") + "Z" if m is not None and m.tzinfo is None else iso_utc(m)
            for m in moments]


def trailing_cell_columns(
    *, surplus: Sequence[bool], protocol_version: Sequence[int], time_spent_ms: Sequence[int],
    started_at: Sequence[datetime | None], submitted_at: Sequence[datetime | None], review: Sequence[str | None],
    effort: Sequence[Any] | None = None,
) -> list[list[str]]:
    """The trailing cells of many annotations, column by column. None of them can start like a
    formula (a flag, digits, an ISO time, a review outcome; a negative time is a plain number), so
    they need no ``safe_cell``."""
    return [
        ["true" if s else "false" for s in surplus],
        [str(v) for v in protocol_version],
        [f"{ms / 1000:.3f}" for ms in time_spent_ms],
        iso_utc_column(started_at),
        iso_utc_column(submitted_at),
        [r or "" for r in review],
        *effort_cell_columns(effort if effort is not None else [None] * len(review)),
    ]


def effort_value_columns(effort: Sequence[Any]) -> list[list[int | float | None]]:
    """The effort columns' values (``EFFORT_COLUMNS``) of many annotations, column by column."""
    totals = [effort_totals(e) for e in effort]
    return [[t[name] for t in totals] for name in EFFORT_COLUMNS]


def effort_cell_columns(effort: Sequence[Any]) -> list[list[str]]:
    """The effort columns' cells: numbers, or empty where the page sent no counts."""
    return [["" if v is None else str(v) for v in column] for column in effort_value_columns(effort)]


def trailing_cells(
    *, surplus: bool, protocol_version: int, time_spent_ms: int, started_at, submitted_at, review: str | None = None,
    effort: Any = None,
) -> list[str]:
    columns = trailing_cell_columns(
        surplus=[surplus], protocol_version=[protocol_version], time_spent_ms=[time_spent_ms],
        started_at=[started_at], submitted_at=[submitted_at], review=[review], effort=[effort],
    )
    return [column[0] for column in columns]



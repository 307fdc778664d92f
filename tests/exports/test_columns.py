"""A chunk typed column by column (the export's fast path) gives exactly what the row-by-row
functions give: every field type of every preset and of the CSV tests' protocol, skips, missing
and odd answers, and a chunk whose answers span protocol versions whose types changed. Pure."""

import random
from datetime import UTC, datetime

import pytest

from exports.csv_layout import answer_cell_columns, answer_cells
from exports.formats.table import AnnotationRow, Chunk, by_version, row_values, typed_columns
from stats.versions import ProtocolSet
from studies.protocol import SKIP, parse_spec
from studies.protocol.types import FIELD_TYPES, FieldType
from studies.services import preset_load, presets_list
from tests.exports.test_csv_layout import ANSWERS, PROTOCOL, layout
from tests.exports.test_format_table import tables

WHEN = datetime(2026, 11, 25, 9, 30, tzinfo=UTC)
ODD = [None, "", "=1+1", "text", 0, 3, 2.5, 1.0, True, ["a", "b"], [1, 2.0], [{"index": 1, "text": "w"}], {"x": 1},
       [{"x": 1, "y": 2, "w": 3, "h": 4}], [None]]  # fmt: skip


def answer_for(protocol, rng: random.Random) -> object:
    """One annotation's stored answers: mostly the field's own values, sometimes odd ones, a skip, junk."""
    roll = rng.random()
    if roll < 0.05:
        return {SKIP: "Not familiar"}
    if roll < 0.08:
        return rng.choice([None, [], "junk"])
    answers = {}
    for f in protocol.fields:
        own = [c.value for c in f.choices]
        pool = own + ([own[:2]] if own else []) + ([ANSWERS[f.key]] if f.key in ANSWERS else []) + ODD
        value = rng.choice(pool)
        if value is not None:
            answers[f.key] = value
    return answers


def rows_of(answers, versions):
    return [AnnotationRow(k, f"img-{k}", "=a prompt", "m", "c", "IN", "IN", f"a-{k}", a, k % 2 == 0, v, 1000 + k,
                          WHEN, WHEN, None if k % 3 else "accepted")
            for k, (a, v) in enumerate(zip(answers, versions, strict=True))]  # fmt: skip


def row_path_works(t, protocol, answers) -> bool:
    """Whether the row-by-row functions take this answer (an odd value some types refuse is left out)."""
    try:
        row_values(t, protocol, rows_of([answers], [1])[0])
        answer_cells(t.layout, protocol, answers)
    except (TypeError, ValueError, AttributeError, KeyError):
        return False
    return True


PROTOCOLS = {"csv-tests": PROTOCOL} | {p.name: parse_spec(preset_load(p.name)) for p in presets_list()}


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_a_chunk_typed_by_columns_is_the_rows_typed_one_by_one(name):
    protocol, rng = PROTOCOLS[name], random.Random(name)
    t = tables(protocol)
    answers = [a for a in (answer_for(protocol, rng) for _ in range(400)) if row_path_works(t, protocol, a)]
    rows = rows_of(answers, [1] * len(answers))
    by_rows = [row_values(t, protocol, r) for r in rows]
    assert [list(r) for r in zip(*typed_columns(t, _one(protocol), rows), strict=True)] == by_rows
    cells = answer_cell_columns(t.layout, protocol, answers)
    assert [list(r) for r in zip(*cells, strict=True)] == [answer_cells(t.layout, protocol, a) for a in answers]


def _one(protocol):
    return ProtocolSet(protocol, 1, {})


def test_a_chunk_over_versions_reads_each_answer_with_its_own_spec():
    v1 = parse_spec({"fields": [{"key": "score", "type": "scale", "choices": [1, 2, 3]},
                                {"key": "tags", "type": "choice", "choices": ["a", "b"]}]})  # fmt: skip
    v2 = parse_spec({"fields": [{"key": "score", "type": "scale", "choices": [1, 1.5, 2, 2.5, 3]},
                                {"key": "tags", "type": "multi", "choices": ["a", "b"]},
                                {"key": "note", "type": "text", "required": False}]})  # fmt: skip
    t = tables(v2, v1)
    protocols = ProtocolSet(v2, 2, {1: v1})
    versions = [1, 2, 2, 1, 2, 1]
    answers = [{"score": 2, "tags": "a"}, {"score": 1.5, "tags": ["a", "b"], "note": "ok"}, {SKIP: "x"},
               {"score": 3}, {"tags": ["b"]}, "junk"]  # fmt: skip
    rows = rows_of(answers, versions)
    by_rows = [row_values(t, protocols.for_version(r.protocol_version), r) for r in rows]
    assert [list(r) for r in zip(*typed_columns(t, protocols, rows), strict=True)] == by_rows
    assert by_rows[0][8:10] == [2.0, "a"] and by_rows[1][8:10] == [1.5, '["a","b"]']  # recast: a float, a text
    cells = by_version(protocols, versions, answers, lambda p, part: answer_cell_columns(t.layout, p, part))
    assert [list(r) for r in zip(*cells, strict=True)] == [
        answer_cells(t.layout, protocols.for_version(v), a) for a, v in zip(answers, versions, strict=True)
    ]


def test_an_empty_chunk_has_empty_columns():
    t = tables(PROTOCOL)
    assert typed_columns(t, _one(PROTOCOL), []) == [[] for _ in t.schema]


def test_a_plain_export_type_keeps_every_default_export_method():
    """The fast path reads a ``plain_export`` field without calling its methods: such a type must
    not override any of them."""
    methods = ("export_columns", "export_cells", "export_values")
    for kind in FIELD_TYPES.values():
        overrides = [m for m in methods if getattr(type(kind), m) is not getattr(FieldType, m)]
        assert not (kind.plain_export and overrides), f"{kind.name} is plain_export but overrides {overrides}"
    assert any(not kind.plain_export for kind in FIELD_TYPES.values())
    assert layout(PROTOCOL).answer_columns  # the CSV tests' protocol has columns of every type


def test_a_chunk_read_as_columns_is_its_rows():
    protocol = PROTOCOLS["csv-tests"]
    rows = rows_of([ANSWERS, {SKIP: "Not familiar"}, ANSWERS], [1, 1, 1])
    chunk = Chunk([list(column) for column in zip(*rows, strict=True)])
    assert len(chunk) == 3 and list(chunk) == rows and chunk[1] == rows[1]
    t = tables(protocol)
    assert typed_columns(t, _one(protocol), chunk) == typed_columns(t, _one(protocol), rows)


def test_times_as_a_column_are_each_time_in_utc():
    from datetime import timedelta, timezone

    from exports.csv_layout import iso_utc, iso_utc_column

    moments = [datetime(2026, 11, 25, 9, 30, 1, 987654), datetime(2026, 11, 25, 9, 30),
               datetime(2026, 11, 25, 11, 30, 1, 500, tzinfo=timezone(timedelta(hours=2))), WHEN, None]  # fmt: skip
    assert iso_utc_column(moments) == [iso_utc(m) for m in moments]
    assert iso_utc_column(moments)[:3] == ["2026-11-25T09:30:01.987Z", "2026-11-25T09:30:00.000Z",
                                           "2026-11-25T09:30:01.000Z"]  # fmt: skip


def test_times_read_from_sqlite_are_sliced_from_their_stored_text_to_the_same_iso_text():
    from exports.csv_layout import Moments, iso_utc, iso_utc_column

    naive = [datetime(2026, 11, 25, 9, 30, 1, 987654), datetime(2026, 11, 25, 9, 30), datetime(2026, 1, 2, 3, 4, 5, 6)]
    stored = [str(m) for m in naive]  # as Django writes a time to SQLite: no fraction when it is whole
    column = Moments(naive, stored)
    assert column == naive  # the datetimes, for Parquet
    assert iso_utc_column(column) == [iso_utc(m) for m in naive] == [
        "2026-11-25T09:30:01.987Z", "2026-11-25T09:30:00.000Z", "2026-01-02T03:04:05.000Z"
    ]
    odd = Moments([naive[0]], ["2026-11-25T09:30:01.987654+00:00"])  # another shape of text: read from the time
    assert iso_utc_column(odd) == ["2026-11-25T09:30:01.987Z"]

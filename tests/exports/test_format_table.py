"""The typed tables (JSONL, Parquet): every field type's typed values and Arrow types, and columns
over protocol versions whose types changed. Pure, no database."""

from datetime import UTC, datetime

import pyarrow as pa

from exports.csv_layout import DocumentInfo
from exports.formats.table import AnnotationRow, document_values, row_values, tables_for
from stats.versions import ProtocolSet
from studies.protocol import parse_spec
from tests.exports.test_csv_layout import ANSWERS, PROTOCOL

BOX = pa.struct([("x", pa.float64()), ("y", pa.float64()), ("w", pa.float64()), ("h", pa.float64())])
WHEN = datetime(2026, 11, 25, 9, 30, tzinfo=UTC)


def tables(*protocols):
    current, *older = protocols
    n = len(protocols)
    return tables_for(ProtocolSet(current, n, {n - 1 - i: p for i, p in enumerate(older)}))


def row(answers, version=1) -> AnnotationRow:
    return AnnotationRow(7, "img-7", "A prompt", "m", "c", "ID", "ID", "a-123", answers, False, version, 1500,
                         WHEN, WHEN, None)


def typed(t, protocol, answers, version=1) -> dict:
    return dict(zip(t.schema.names, row_values(t, protocol, row(answers, version)), strict=True))


def test_every_field_type_has_its_arrow_type():
    schema = tables(PROTOCOL).schema
    kinds = {name: schema.field(name).type for name in schema.names}
    assert kinds["photo_width"] == pa.int64() and kinds["photo_sha256"] == pa.string()
    assert kinds["box"] == pa.list_(BOX) and kinds["box_count"] == pa.int64()
    assert kinds["best"] == pa.string() and kinds["best_order"] == pa.list_(pa.string())
    assert kinds["missing"] == pa.list_(pa.struct([("title", pa.string()), ("url", pa.string())]))
    assert kinds["words"] == pa.list_(pa.string()) and kinds["words_indices"] == pa.list_(pa.int64())
    assert kinds["docs_documents"] == pa.int64()
    assert [kinds[c] for c in ("pair", "pair_left", "pair_right")] == [pa.string()] * 3
    assert kinds["pair_strength"] == pa.int64()
    assert kinds["extremes_best"] == kinds["extremes_worst"] == pa.string()
    assert kinds["extremes_order"] == kinds["ranked"] == kinds["ranked_order"] == pa.list_(pa.string())
    assert kinds["time_spent_s"] == pa.float64() and kinds["submitted_at"] == pa.timestamp("ms", tz="UTC")


def test_every_field_type_writes_typed_values_that_fit_its_column():
    t = tables(PROTOCOL)
    values = typed(t, PROTOCOL, ANSWERS)
    assert (values["photo_width"], values["photo_name"]) == (100, "dish.jpg")
    assert values["box"] == [{"x": 10.0, "y": 5.0, "w": 20.0, "h": 10.0}] and values["box_count"] == 1
    assert values["best"] == "sys-b" and values["best_order"] == ["sys-c", "sys-b", "sys-a"]
    assert values["words"] == ["A", "sharing"] and values["words_indices"] == [0, 2]
    assert values["docs_documents"] == 2 and values["skipped"] is None and values["time_spent_s"] == 1.5
    assert (values["pair"], values["pair_left"], values["pair_right"], values["pair_strength"]) == ("2", "2", "1", 3)
    assert (values["extremes_best"], values["extremes_worst"], values["extremes_order"]) == ("3", "1", ["3", "1", "2"])
    assert (values["ranked"], values["ranked_order"]) == (["2", "3", "1"], ["1", "2", "3"])
    batch = pa.Table.from_pylist([values], schema=t.schema)  # Arrow takes them as they are
    assert batch.column("box").to_pylist() == [values["box"]]


def test_a_skip_leaves_every_answer_null():
    values = typed(tables(PROTOCOL), PROTOCOL, {"_skip": "Not familiar"})
    assert values["skipped"] == "Not familiar"
    assert all(values[c] is None for c in ("photo_width", "box", "best", "missing", "words", "docs_documents",
                                           "pair", "pair_strength", "extremes_best", "ranked"))


def test_documents_are_typed_rows_with_their_score():
    t = tables(PROTOCOL)
    docs = {11: DocumentInfo(11, 0, "Rendang", "https://en.wikipedia.org/wiki/Rendang")}
    first, second = document_values(t, PROTOCOL, row(ANSWERS), docs)
    named = dict(zip(t.document_schema.names, first, strict=True))
    assert (named["document_id"], named["document_position"], named["country"]) == (11, 0, "yes")
    assert named["combined_score"] == 1.0 and isinstance(named["combined_score"], float)
    assert dict(zip(t.document_schema.names, second, strict=True))["document_position"] is None  # gone since


def test_a_scale_of_whole_points_that_gained_a_half_becomes_a_float_column():
    v1 = parse_spec({"fields": [{"key": "score", "type": "scale", "choices": [1, 2, 3]}]})
    v2 = parse_spec({"fields": [{"key": "score", "type": "scale", "choices": [1, 1.5, 2, 2.5, 3]}]})
    t = tables(v2, v1)
    assert t.schema.field("score").type == pa.float64()
    old = typed(t, v1, {"score": 2}, version=1)["score"]
    assert old == 2.0 and isinstance(old, float)


def test_a_key_whose_type_changed_to_a_list_is_written_as_text():
    v1 = parse_spec({"fields": [{"key": "tags", "type": "choice", "choices": ["a", "b"]}]})
    v2 = parse_spec({"fields": [{"key": "tags", "type": "multi", "choices": ["a", "b"]}]})
    t = tables(v2, v1)
    assert t.schema.field("tags").type == pa.string()
    assert typed(t, v1, {"tags": "a"}, version=1)["tags"] == "a"
    assert typed(t, v2, {"tags": ["a", "b"]}, version=2)["tags"] == '["a","b"]'
    pa.Table.from_pylist([typed(t, v2, {"tags": ["a"]}, version=2)], schema=t.schema)


def test_every_field_type_types_exactly_its_export_columns():
    from studies.protocol import FIELD_TYPES

    more = parse_spec({"fields": [
        {"key": "score", "type": "scale", "choices": [1, 2]}, {"key": "tags", "type": "multi", "choices": ["a"]},
    ]})  # fmt: skip
    container = next(f for f in PROTOCOL.fields if f.kind.container)
    fields = [*PROTOCOL.fields, *container.fields, *more.fields]
    assert {f.kind.name for f in fields} == set(FIELD_TYPES)
    for f in fields:
        assert list(f.kind.export_arrow(f)) == f.kind.export_columns(f), f.kind.name
        assert set(f.kind.export_values(f, ANSWERS.get(f.key))) <= set(f.kind.export_columns(f)), f.kind.name

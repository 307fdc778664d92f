"""The CSV layout: cells of every field type, columns over protocol versions. Pure, no database."""

import json

from exports.csv_layout import (
    DocumentInfo,
    answer_cells,
    document_header,
    document_rows,
    header,
    layout_for,
)
from stats.versions import ProtocolSet
from studies.protocol import parse_spec

SPEC = {
    "fields": [
        {"key": "photo", "type": "upload"},
        {"key": "box", "type": "bbox", "over": "photo", "max": 2, "max_area_ratio": 0.3},
        {"key": "best", "type": "pick_one", "level": "nominal"},
        {"key": "missing", "type": "url_list", "required": False},
        {"key": "words", "type": "highlight", "over": "prompt", "required": False},
        {"key": "docs", "type": "per_document", "fields": [
            {"key": "country", "type": "choice", "level": "nominal", "choices": ["yes", "no", "cannot_determine"]},
            {"key": "topic", "type": "choice", "level": "nominal", "choices": ["yes", "no"]},
            {"key": "visual", "type": "choice", "choices": ["yes", "no"]},
            {"key": "note", "type": "text", "required": False},
        ]},
        {"key": "pair", "type": "pairwise", "level": "nominal", "strength": True},
        {"key": "extremes", "type": "best_worst", "level": "nominal"},
        {"key": "ranked", "type": "rank", "level": "nominal"},
    ],
    "skip": {"reasons": ["Not familiar"]},
}  # fmt: skip
PROTOCOL = parse_spec(SPEC)
BOX = {"x": 10, "y": 5, "w": 20, "h": 10, "nx": 0.1, "ny": 0.05, "nw": 0.2, "nh": 0.1, "area_ratio": 0.02}
ANSWERS = {
    "photo": {"upload": "tok", "width": 100, "height": 100, "sha256": "ab" * 32, "name": "dish.jpg"},
    "box": [BOX],
    "best": {"choice": "sys-b", "order": ["sys-c", "sys-b", "sys-a"]},
    "missing": [{"title": "Nasi goreng", "url": "https://en.wikipedia.org/wiki/Nasi_goreng"}],
    "words": [{"index": 0, "start": 0, "end": 1, "text": "A"}, {"index": 2, "start": 9, "end": 16, "text": "sharing"}],
    "docs": [
        {"document": 11, "country": "yes", "topic": "yes", "visual": "no", "note": "Same dish"},
        {"document": 12, "country": "cannot_determine", "topic": "no", "visual": "no"},
    ],
    "pair": {"choice": "2", "order": ["2", "1"], "strength": 3},
    "extremes": {"best": "3", "worst": "1", "order": ["3", "1", "2"]},
    "ranked": {"ranking": ["2", "3", "1"], "order": ["1", "2", "3"]},
}


def layout(*protocols, current_version=None):
    current, *older = protocols
    n = current_version or len(protocols)
    return layout_for(ProtocolSet(current, n, {n - 1 - i: p for i, p in enumerate(older)}))


def test_it_has_columns_for_every_field_type():
    cols = header(layout(PROTOCOL))
    answer_part = cols[cols.index("annotator") + 1 : cols.index("surplus")]
    assert answer_part == [
        "skipped",
        "photo_sha256", "photo_width", "photo_height", "photo_name",
        "box", "box_count",
        "best", "best_order",
        "missing",
        "words", "words_indices",
        "docs_documents",
        "pair", "pair_left", "pair_right", "pair_strength",
        "extremes_best", "extremes_worst", "extremes_order",
        "ranked", "ranked_order",
    ]  # fmt: skip


def test_it_writes_every_field_type():
    row = dict(zip(layout(PROTOCOL).answer_columns, answer_cells(layout(PROTOCOL), PROTOCOL, ANSWERS)[1:], strict=True))
    photo = (row["photo_sha256"], row["photo_width"], row["photo_height"], row["photo_name"])
    assert photo == ("ab" * 32, "100", "100", "dish.jpg")
    assert json.loads(row["box"]) == [{"x": 10, "y": 5, "w": 20, "h": 10}] and row["box_count"] == "1"
    assert row["best"] == "sys-b" and row["best_order"] == "sys-c|sys-b|sys-a"
    assert json.loads(row["missing"]) == [{"title": "Nasi goreng", "url": "https://en.wikipedia.org/wiki/Nasi_goreng"}]
    assert row["words"] == "A|sharing" and row["words_indices"] == "0|2"
    assert row["docs_documents"] == "2"
    assert (row["pair"], row["pair_left"], row["pair_right"], row["pair_strength"]) == ("2", "2", "1", "3")
    assert (row["extremes_best"], row["extremes_worst"], row["extremes_order"]) == ("3", "1", "3|1|2")
    assert (row["ranked"], row["ranked_order"]) == ("2|3|1", "1|2|3")


def test_a_skip_fills_only_the_skipped_column():
    cells = answer_cells(layout(PROTOCOL), PROTOCOL, {"_skip": "Not familiar"})
    assert cells[0] == "Not familiar"
    assert cells[1:] == [""] * len(layout(PROTOCOL).answer_columns)
    assert document_rows(layout(PROTOCOL), PROTOCOL, {"_skip": "Not familiar"}, {}) == []


def test_no_skipped_column_when_no_version_allows_a_skip():
    plain = parse_spec({"fields": [{"key": "q", "type": "text"}]})
    assert "skipped" not in header(layout(plain))
    assert answer_cells(layout(plain), plain, {"q": "hello"}) == ["hello"]


def test_it_writes_one_document_row_per_document_with_the_combined_score():
    lay = layout(PROTOCOL)
    assert document_header(lay) == [
        "item_id", "pool_country", "annotator", "field", "document_id", "document_position", "document_title",
        "document_url", "country", "topic", "visual", "note", "combined_score", "protocol_version",
    ]  # fmt: skip
    docs = {11: DocumentInfo(11, 0, "Rendang", "https://en.wikipedia.org/wiki/Rendang")}
    first, second = document_rows(lay, PROTOCOL, ANSWERS, docs)
    assert first == [
        "docs", "11", "0", "Rendang", "https://en.wikipedia.org/wiki/Rendang", "yes", "yes", "no", "Same dish", "1"
    ]
    # A document no longer stored keeps its id; its title and URL are empty.
    assert second == ["docs", "12", "", "", "", "cannot_determine", "no", "no", "", "-2"]


def test_it_empties_the_cells_of_an_unanswered_field():
    row = answer_cells(layout(PROTOCOL), PROTOCOL, {"best": {"choice": "sys-a", "order": ["sys-a"]}, "docs": []})
    cells = dict(zip(layout(PROTOCOL).answer_columns, row[1:], strict=True))
    assert cells["box"] == "" and cells["box_count"] == "" and cells["photo_sha256"] == ""
    assert cells["docs_documents"] == "0"


def test_columns_are_the_union_of_the_versions_current_order_first():
    v1 = parse_spec({"fields": [
        {"key": "a", "type": "text"}, {"key": "old", "type": "choice", "choices": ["x", "y"]},
        {"key": "b", "type": "text"},
    ]})  # fmt: skip
    v2 = parse_spec({"fields": [
        {"key": "b", "type": "text"}, {"key": "new", "type": "text"}, {"key": "a", "type": "text"},
    ]})  # fmt: skip
    lay = layout(v2, v1)
    assert lay.answer_columns == ["b", "new", "a", "old"]
    # Each row is read with its own version: a v1 answer keeps its removed field.
    assert answer_cells(lay, v1, {"a": "1", "old": "y", "b": "2"}) == ["2", "", "1", "y"]
    assert answer_cells(lay, v2, {"a": "1", "new": "n", "b": "2"}) == ["2", "n", "1", ""]


def test_a_key_that_changed_type_gets_the_columns_of_both():
    v1 = parse_spec({"fields": [{"key": "best", "type": "choice", "choices": ["a", "b"]}]})
    v2 = parse_spec({"fields": [{"key": "best", "type": "pick_one"}]})
    lay = layout(v2, v1)
    assert lay.answer_columns == ["best", "best_order"]
    assert answer_cells(lay, v1, {"best": "a"}) == ["a", ""]
    assert answer_cells(lay, v2, {"best": {"choice": "c2", "order": ["c1", "c2"]}}) == ["c2", "c1|c2"]

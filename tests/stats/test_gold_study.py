"""A study's gold tables from its annotations as columns (stats.gold.study): the input's shape,
protocol versions, skips, excluded annotators and the researcher's item ids. Pure, no database."""

import json

from stats.columns import columns_from_chunks
from stats.gold import GOLD_COLUMNS, plain_rows, study_gold
from stats.gold.study import gold_keys
from stats.versions import ProtocolSet
from studies.protocol import parse_spec

CURRENT = parse_spec({
    "fields": [
        {"key": "fits", "type": "choice", "choices": ["yes", "no"], "level": "nominal"},
        {"key": "score", "type": "scale", "choices": [1, 2, 3], "level": "interval"},
        {"key": "note", "type": "text", "required": False},
    ],
    "reports": [{"kind": "human_scores", "value": "score"}],
})
OLDER = parse_spec({"fields": [  # version 1 asked "fits" as a free text
    {"key": "fits", "type": "text"},
    {"key": "score", "type": "scale", "choices": [1, 2, 3], "level": "interval"},
]})
PROTOCOLS = ProtocolSet(current=CURRENT, current_version=2, versions={1: OLDER})


def columns(rows, keys):
    """``rows``: (item, pool, annotator, version, answers or None for a skip), one chunk."""
    chunk = [
        list(range(len(rows))), [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows],
        [r[3] for r in rows], [r[4] is None for r in rows], [1000] * len(rows), [True] * len(rows),
        *[[json.dumps(r[4][k]) if r[4] and k in r[4] else None for r in rows] for k in keys],
    ]
    return columns_from_chunks([chunk], keys)


def test_it_reads_the_level_fields_and_what_the_reports_read_once_each():
    assert gold_keys(PROTOCOLS) == ["fits", "score"]


def test_a_study_s_gold_leaves_out_skips_excluded_annotators_and_answers_to_another_question():
    keys = gold_keys(PROTOCOLS)
    data = columns([
        (1, 10, 1, 2, {"fits": "yes", "score": 3}),
        (1, 10, 2, 2, {"fits": "yes", "score": 2}),
        (1, 10, 3, 1, {"fits": "a text, under version 1", "score": 1}),
        (1, 10, 4, 2, None),  # skipped
        (1, 10, 9, 2, {"fits": "no", "score": 1}),  # flagged by a checker
        (2, 20, 5, 2, {"fits": "no"}),  # no score
    ], keys)
    gold = study_gold(data, PROTOCOLS, country_of={10: "IN", 20: "JP"}, item_names={1: "img-1"}, excluded={9})
    assert list(gold.by_country.columns) == list(GOLD_COLUMNS)
    rows = {(r["item"], r["country"], r["field"]): r for r in plain_rows(gold.by_country)}
    assert set(rows) == {("img-1", "IN", "fits"), ("img-1", "IN", "score"), (2, "JP", "fits")}
    assert (rows["img-1", "IN", "fits"]["n"], rows["img-1", "IN", "fits"]["majority"]) == (2, "yes")
    assert (rows["img-1", "IN", "score"]["n"], rows["img-1", "IN", "score"]["mean"]) == (3, 2.0)  # 3, 2, 1
    assert gold.annotators.empty  # one item each: too little for Dawid–Skene, which says so
    assert rows["img-1", "IN", "fits"]["ds_label"] is None
    assert rows["img-1", "IN", "fits"]["ds_note"].startswith("too little data per annotator (1 item each;")
    assert plain_rows(gold.papers["human_scores"])[0]["item"] == "img-1"
    items = {(r["item"], r["field"]): r["n"] for r in plain_rows(gold.by_item)}
    assert items == {("img-1", "fits"): 2, ("img-1", "score"): 3, (2, "fits"): 1}


def test_no_annotations_give_empty_tables():
    gold = study_gold(columns([], gold_keys(PROTOCOLS)), PROTOCOLS, country_of={})
    assert gold.by_country.empty and gold.by_item.empty and gold.annotators.empty
    assert gold.papers["human_scores"].empty and not gold.errors


def test_it_calls_the_heartbeat_per_field_and_paper_table_and_a_stop_it_raises_is_no_failed_table():
    import pytest

    data = columns([(1, 10, 1, 2, {"fits": "yes", "score": 3})], gold_keys(PROTOCOLS))
    beats = []
    study_gold(data, PROTOCOLS, country_of={10: "IN"}, on_step=lambda: beats.append(1))
    assert len(beats) == 3  # fits, score, the human_scores table

    class Stop(Exception):
        pass

    def stop_at_the_paper_table():
        beats.append(1)
        if len(beats) == 6:
            raise Stop

    with pytest.raises(Stop):
        study_gold(data, PROTOCOLS, country_of={10: "IN"}, on_step=stop_at_the_paper_table)

"""Gold labels per field (stats.gold.fields): hand-computed examples, pure, no database."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stats.gold import (
    DS_MIN_ITEMS,
    DS_MIN_RATINGS,
    dawid_skene,
    ds_withheld,
    field_gold,
    pair_agreement,
    plain_rows,
    t_interval,
)
from studies.protocol import parse_spec

FIELDS = {f.key: f for f in parse_spec({"fields": [
    {"key": "label", "type": "choice", "choices": ["a", "b", "c"], "level": "nominal"},
    {"key": "tags", "type": "multi", "choices": ["x", "y"], "level": "nominal"},
    {"key": "score", "type": "scale", "choices": [1, 2, 3, 4, 5], "level": "interval"},
    {"key": "rank", "type": "scale", "choices": [1, 2, 3, 4, 5], "level": "ordinal"},
    {"key": "size", "type": "choice", "choices": ["small", "medium", "large"], "level": "ordinal"},
]}).fields}
COLUMNS = ["item", "country", "annotator", "value"]

# (item, country, annotator, answer): annotator 6 left the question unanswered, annotator 9 was
# flagged by a checker.
NOMINAL = pd.DataFrame([
    ("i1", "IN", 1, "a"), ("i1", "IN", 2, "b"), ("i1", "IN", 3, "a"),
    ("i1", "JP", 4, "c"), ("i1", "JP", 5, "b"), ("i1", "JP", 6, None), ("i1", "JP", 9, "b"),
    ("i2", "IN", 1, "c"),
], columns=COLUMNS)


def by_unit(frame, *keys):
    return {tuple(r[k] for k in keys): r for r in plain_rows(frame)}


def test_it_takes_the_majority_with_its_share_and_the_agreeing_pairs():
    rows = by_unit(field_gold(NOMINAL, FIELDS["label"], excluded={9}).by_country, "item", "country")
    unit = rows["i1", "IN"]
    assert (unit["n"], unit["majority"], unit["tie"], unit["tied"]) == (3, "a", False, "a")
    assert unit["majority_share"] == pytest.approx(2 / 3)
    assert unit["agreement"] == pytest.approx(2 / 6)  # one agreeing pair (1, 3) of three
    assert unit["level"] == "nominal" and unit["field"] == "label"
    assert unit["median"] is None and unit["sd"] is None


def test_it_reports_a_tie_with_the_tied_labels_in_the_fields_order():
    rows = by_unit(field_gold(NOMINAL, FIELDS["label"], excluded={9}).by_country, "item", "country")
    unit = rows["i1", "JP"]
    assert unit["n"] == 2  # annotator 6 gave no answer: not a rating
    assert (unit["majority"], unit["tie"], unit["tied"], unit["majority_share"]) == (None, True, "b|c", 0.5)
    assert unit["agreement"] == 0


def test_an_excluded_annotator_is_left_out_and_counted_otherwise():
    kept = by_unit(field_gold(NOMINAL, FIELDS["label"]).by_country, "item", "country")["i1", "JP"]
    assert (kept["n"], kept["majority"], kept["tie"]) == (3, "b", False)  # annotator 9 breaks the tie
    excluded = field_gold(NOMINAL, FIELDS["label"], excluded={9})
    assert 9 not in set(excluded.annotators["annotator"])


def test_a_single_rater_has_a_label_but_no_agreement():
    unit = by_unit(field_gold(NOMINAL, FIELDS["label"]).by_country, "item", "country")["i2", "IN"]
    assert (unit["n"], unit["majority"], unit["majority_share"], unit["agreement"]) == (1, "c", 1.0, None)


def test_per_item_rows_pool_the_countries():
    rows = by_unit(field_gold(NOMINAL, FIELDS["label"], excluded={9}).by_item, "item")
    unit = rows["i1",]
    assert unit["country"] is None
    # a, b, a, c, b: a 2, b 2, c 1 → a tie of a and b; agreeing pairs 1 + 1 of 10
    assert (unit["n"], unit["tie"], unit["tied"], unit["majority_share"]) == (5, True, "a|b", 0.4)
    assert unit["agreement"] == pytest.approx(0.2)


def test_a_multi_votes_per_option():
    frame = pd.DataFrame([("i1", "IN", 1, ["x"]), ("i1", "IN", 2, ["x", "y"]), ("i1", "IN", 3, []),
                          ("i1", "IN", 4, None)], columns=COLUMNS)
    rows = by_unit(field_gold(frame, FIELDS["tags"]).by_country, "field")
    assert (rows["tags.x",]["n"], rows["tags.x",]["majority"], rows["tags.x",]["majority_share"]) == (3, "1", 2 / 3)
    assert (rows["tags.y",]["majority"], rows["tags.y",]["majority_share"]) == ("0", 2 / 3)


INTERVAL = pd.DataFrame([
    ("i1", "IN", 1, 3), ("i1", "IN", 2, 4), ("i1", "IN", 3, 5), ("i1", "IN", 4, None),
    ("i1", "JP", 5, 2),
    ("i2", "IN", 1, 1), ("i2", "IN", 2, 1), ("i2", "IN", 3, 4), ("i2", "IN", 5, 2),
], columns=COLUMNS)


def test_an_interval_field_has_mean_sd_and_a_t_interval_checked_against_scipy():
    rows = by_unit(field_gold(INTERVAL, FIELDS["score"]).by_country, "item", "country")
    unit = rows["i1", "IN"]
    assert (unit["n"], unit["mean"], unit["median"], unit["sd"]) == (3, 4.0, 4.0, 1.0)
    low, high = stats.t.interval(0.95, 2, loc=4, scale=1 / math.sqrt(3))
    assert (unit["ci_low"], unit["ci_high"]) == (pytest.approx(low), pytest.approx(high))
    assert unit["ci_low"] == pytest.approx(4 - 4.302652729911275 / math.sqrt(3))  # t(0.975, 2) by hand
    assert unit["agreement"] == 0 and unit["majority"] is None
    other = rows["i2", "IN"]
    x = np.array([1, 1, 4, 2.0])
    assert other["sd"] == pytest.approx(x.std(ddof=1))
    expected = stats.t.interval(0.95, 3, loc=x.mean(), scale=stats.sem(x))
    assert (other["ci_low"], other["ci_high"]) == (pytest.approx(expected[0]), pytest.approx(expected[1]))
    assert other["median"] == 1.5 and other["agreement"] == pytest.approx(1 / 6)


def test_a_single_rating_has_no_sd_and_no_interval_rather_than_zero():
    unit = by_unit(field_gold(INTERVAL, FIELDS["score"]).by_country, "item", "country")["i1", "JP"]
    assert (unit["n"], unit["mean"], unit["sd"], unit["ci_low"], unit["ci_high"]) == (1, 2.0, None, None, None)


def test_an_ordinal_field_has_median_and_mean_only():
    unit = by_unit(field_gold(INTERVAL, FIELDS["rank"]).by_item, "item")["i2",]
    assert (unit["median"], unit["mean"], unit["sd"], unit["ci_low"]) == (1.5, 2.0, None, None)


def test_an_ordinal_choice_is_read_by_its_rank():
    frame = pd.DataFrame([("i1", "IN", 1, "small"), ("i1", "IN", 2, "large"), ("i1", "IN", 3, "large"),
                          ("i1", "IN", 4, "huge")], columns=COLUMNS)  # "huge" is outside the domain
    unit = plain_rows(field_gold(frame, FIELDS["size"]).by_country)[0]
    assert (unit["n"], unit["median"], unit["mean"]) == (3, 3.0, pytest.approx(7 / 3))


def test_the_helpers():
    assert pair_agreement([2, 1]) == pytest.approx(1 / 3)
    assert pair_agreement([1]) is None
    assert t_interval(np.array([5.0])) == (None, None)


def test_a_field_without_a_level_is_refused():
    text = parse_spec({"fields": [{"key": "t", "type": "text"}]}).fields[0]
    with pytest.raises(ValueError, match="no level"):
        field_gold(INTERVAL, text)


def test_each_field_type_says_what_an_answer_votes_for_and_what_number_it_is():
    label, tags, score, size = FIELDS["label"], FIELDS["tags"], FIELDS["score"], FIELDS["size"]
    assert label.kind.gold_votes(label, "b") == {"": "b"}
    assert label.kind.gold_votes(label, None) == {}
    assert tags.kind.gold_votes(tags, ["y"]) == {"x": "0", "y": "1"}
    assert tags.kind.gold_votes(tags, []) == {"x": "0", "y": "0"}  # nothing ticked is an answer
    assert tags.kind.gold_votes(tags, None) == {}
    pick = parse_spec({"fields": [{"key": "p", "type": "pick_one", "level": "nominal"}]}).fields[0]
    assert pick.kind.gold_votes(pick, {"choice": "c2", "order": ["c1", "c2"]}) == {"": "c2"}
    assert score.kind.gold_number(score, 4) == 4.0 and score.kind.gold_number(score, True) is None
    assert size.kind.gold_number(size, "large") == 3.0 and size.kind.gold_number(size, "huge") is None


def test_the_dawid_skene_columns_are_the_fit_over_the_units():
    rng = np.random.default_rng(1)
    rows = [(f"i{i}", "IN" if i % 2 else "JP", a, str(rng.choice(["a", "b", "c"])))
            for i in range(40) for a in range(5)]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    gold = field_gold(frame, FIELDS["label"])
    fit = dawid_skene(pd.DataFrame({"unit": list(zip(frame["item"], frame["country"], strict=True)),
                                    "annotator": frame["annotator"], "label": frame["value"]}), labels=["a", "b", "c"])
    expected = fit.label_of()
    for row in plain_rows(gold.by_country):
        assert row["ds_label"] == expected[row["item"], row["country"]]
    competence = dict(zip(gold.annotators["annotator"], gold.annotators["competence"], strict=True))
    assert competence == pytest.approx(fit.competence_of())
    assert set(gold.annotators["field"]) == {"label"} and (gold.annotators["items"] == 40).all()
    assert not field_gold(frame, FIELDS["label"], with_dawid_skene=False).by_country["ds_label"].notna().any()


def test_an_ordinal_field_gets_a_dawid_skene_label_over_its_categories_and_each_annotators_competence():
    rng = np.random.default_rng(2)
    rows = [(f"i{i}", "IN", a, int(rng.integers(1, 6))) for i in range(30) for a in range(4)]
    rows.append(("i0", "IN", 9, 7))  # outside the scale: no category, as it is no number
    frame = pd.DataFrame(rows, columns=COLUMNS)
    gold = field_gold(frame, FIELDS["rank"])
    inside = frame[frame["annotator"] != 9]
    fit = dawid_skene(pd.DataFrame({"unit": list(zip(inside["item"], inside["country"], strict=True)),
                                    "annotator": inside["annotator"], "label": inside["value"].map(str)}),
                      labels=[str(v) for v in range(1, 6) if str(v) in set(inside["value"].map(str))])
    expected = fit.label_of()
    rows_out = plain_rows(gold.by_country)
    for row in rows_out:
        assert row["ds_label"] == expected[row["item"], row["country"]]
        assert row["median"] is not None and row["ds_probability"] is not None
    competence = dict(zip(gold.annotators["annotator"], gold.annotators["competence"], strict=True))
    assert competence == pytest.approx(fit.competence_of()) and set(gold.annotators["field"]) == {"rank"}
    assert all(row["ds_note"] is None for row in rows_out)


def test_an_interval_field_gets_no_dawid_skene_label():
    gold = field_gold(INTERVAL, FIELDS["score"])
    assert not gold.by_country["ds_label"].notna().any() and gold.annotators.empty


def test_the_field_type_says_whether_its_answers_are_categories_at_its_level():
    assert all(FIELDS[k].kind.gold_categorical(FIELDS[k]) for k in ("label", "tags", "rank", "size"))
    assert not FIELDS["score"].kind.gold_categorical(FIELDS["score"])  # interval: numbers, not categories


# The pilot of issue 24: three annotators × four items on a five-point scale. Dawid–Skene fitted
# anyway labelled item i1, rated 5, 2 and 4, as 2 with p = 1.000.
PILOT = pd.DataFrame([(item, "IN", who, v) for item, values in {
    "i1": (5, 2, 4), "i2": (5, 4, 5), "i3": (3, 4, 5), "i4": (4, 4, 3)}.items()
    for who, v in zip(("p", "q", "r"), values, strict=True)], columns=COLUMNS)


def test_a_pilot_of_four_items_per_annotator_gets_no_dawid_skene_label_and_says_why():
    gold = field_gold(PILOT, FIELDS["rank"])
    for table in (gold.by_country, gold.by_item):
        for row in plain_rows(table):
            assert row["ds_label"] is None and row["ds_probability"] is None, row
            assert row["ds_note"] == "too little data per annotator (4 items each; Dawid–Skene needs ≥ 10)"
            assert row["median"] is not None  # the median and the mean stay
    assert gold.annotators.empty  # nobody's competence is estimated from four items
    assert DS_MIN_ITEMS == 10 and DS_MIN_RATINGS == 2


def ratings_of(items: int, annotators, *, seed: int, labels=("a", "b", "c"), accuracy=0.8):
    """(item, country, annotator, answer): each annotator rates each of ``items`` items, right with
    chance ``accuracy``."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(labels, items)
    return [(f"i{i}", "IN", who, truth[i] if rng.random() < accuracy else str(rng.choice(labels)))
            for i in range(items) for who in annotators]


def test_with_ten_items_per_annotator_every_unit_gets_a_label():
    frame = pd.DataFrame(ratings_of(DS_MIN_ITEMS, ("p", "q", "r"), seed=4), columns=COLUMNS)
    gold = field_gold(frame, FIELDS["label"])
    fit = dawid_skene(pd.DataFrame({"unit": list(zip(frame["item"], frame["country"], strict=True)),
                                    "annotator": frame["annotator"], "label": frame["value"]}), labels=["a", "b", "c"])
    for row in plain_rows(gold.by_country):
        assert row["ds_label"] == fit.label_of()[row["item"], row["country"]] and row["ds_note"] is None
        assert 0 < row["ds_probability"] <= 1
    assert sorted(gold.annotators["annotator"]) == ["p", "q", "r"] and (gold.annotators["items"] == 10).all()
    assert all(row["ds_label"] is not None for row in plain_rows(gold.by_item))


def test_an_annotator_below_the_floor_is_left_out_of_the_fit_and_a_unit_needs_two_of_the_rest():
    rows = ratings_of(12, ("p", "q", "r"), seed=5)
    rows = [r for r in rows if not (r[0] == "i0" and r[2] in ("q", "r"))]  # i0: p alone
    rows = [r for r in rows if not (r[0] == "i1" and r[2] == "r")]  # i1: p, q and the newcomer
    rows += [("i1", "IN", "new", "a"), ("i2", "IN", "new", "b"), ("i3", "IN", "new", "c")]
    rows += [("x1", "IN", "new", "a"), ("x1", "IN", "late", "b")]  # x1: two newcomers only
    rows += [("x2", "IN", "new", "c"), ("x2", "IN", "p", "c")]  # x2: one of its two raters in the fit
    frame = pd.DataFrame(rows, columns=COLUMNS)
    gold = field_gold(frame, FIELDS["label"])
    assert sorted(gold.annotators["annotator"]) == ["p", "q", "r"]  # "new" rated 5 items, "late" 1
    inside = frame[frame["annotator"].isin(["p", "q", "r"])]
    fit = dawid_skene(pd.DataFrame({"unit": list(zip(inside["item"], inside["country"], strict=True)),
                                    "annotator": inside["annotator"], "label": inside["value"]}),
                      labels=["a", "b", "c"])
    rows_out = by_unit(gold.by_country, "item")
    for item in ("i1", "i2", "i5"):  # the newcomer's rating is counted, but not in the fit
        assert rows_out[item,]["ds_label"] == fit.label_of()[item, "IN"] and rows_out[item,]["ds_note"] is None
    assert rows_out["i2",]["n"] == 4
    assert (rows_out["i0",]["ds_label"], rows_out["i0",]["ds_note"]) == (
        None, "a single rating (Dawid–Skene needs ≥ 2 per unit)")
    assert rows_out["x1",]["ds_label"] is None and rows_out["x1",]["majority"] is None
    assert rows_out["x1",]["ds_note"] == "too little data per annotator (1–5 items each; Dawid–Skene needs ≥ 10)"
    assert (rows_out["x2",]["ds_label"], rows_out["x2",]["majority"]) == (None, "c")
    assert rows_out["x2",]["ds_note"] == "1 of its 2 ratings by an annotator with ≥ 10 items (Dawid–Skene needs ≥ 2)"
    summary = ds_withheld(gold.by_country)
    assert list(summary) == ["label"]
    assert summary["label"].startswith("no Dawid–Skene label on 3 of 14 units: 1: ")
    assert "too little data per annotator (1–5 items each" in summary["label"]


def test_nothing_is_withheld_where_dawid_skene_does_not_read_the_field():
    gold = field_gold(INTERVAL, FIELDS["score"])
    assert not gold.by_country["ds_note"].notna().any() and ds_withheld(gold.by_country) == {}
    assert ds_withheld(pd.DataFrame(columns=["field", "ds_note"])) == {}

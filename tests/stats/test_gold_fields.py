"""Gold labels per field (stats.gold.fields): hand-computed examples, pure, no database."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stats.gold import dawid_skene, field_gold, pair_agreement, plain_rows, t_interval
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
    size = field_gold(pd.DataFrame([("i1", "IN", 1, "small"), ("i1", "IN", 2, "large"), ("i1", "IN", 3, "large")],
                                   columns=COLUMNS), FIELDS["size"])
    assert plain_rows(size.by_item)[0]["ds_label"] == "large" and len(size.annotators) == 3


def test_an_interval_field_gets_no_dawid_skene_label():
    gold = field_gold(INTERVAL, FIELDS["score"])
    assert not gold.by_country["ds_label"].notna().any() and gold.annotators.empty


def test_the_field_type_says_whether_its_answers_are_categories_at_its_level():
    assert all(FIELDS[k].kind.gold_categorical(FIELDS[k]) for k in ("label", "tags", "rank", "size"))
    assert not FIELDS["score"].kind.gold_categorical(FIELDS["score"])  # interval: numbers, not categories

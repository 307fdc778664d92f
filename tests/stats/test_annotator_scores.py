"""Quality-control scores per annotator (stats.annotators): hand-computed small examples for every
score, the leave-one-out agreement against a brute-force pair count at every level, the edge cases,
alpha with and without excluded annotators, and the refusals. Pure, no database."""

import itertools

import numpy as np
import pandas as pd
import pytest

from stats.agreement import alpha
from stats.annotators import SCORE_COLUMNS, agreement_with_without, annotator_scores

COLUMNS = ["unit", "annotator", "value", "seconds", "expected"]

# u1: a, b say x, c says y (u1 is a gold item: x); u2: all say y; u3: a says x, b says y; u4: only d.
NOMINAL = pd.DataFrame([
    ("u1", "a", "x", 10, "x"), ("u1", "b", "x", 20, "x"), ("u1", "c", "y", 2, "x"),
    ("u2", "a", "y", 12, None), ("u2", "b", "y", 14, None), ("u2", "c", "y", 1, None),
    ("u3", "a", "x", 8, None), ("u3", "b", "y", 9, None),
    ("u4", "d", "x", 5, None),
], columns=COLUMNS)


def by_annotator(scores):
    return {row["annotator"]: row for row in scores.rows()}


def test_the_nominal_example_by_hand():
    scores = annotator_scores(NOMINAL, level="nominal", too_fast_fraction=0.5, competence=None)
    rows = by_annotator(scores)
    assert list(rows) == ["a", "b", "c", "d"]  # order of first appearance
    a, c, d = rows["a"], rows["c"], rows["d"]
    assert (a["answers"], c["answers"], d["answers"]) == (3, 2, 1)
    assert a["median_seconds"] == 10 and c["median_seconds"] == 1.5 and rows["b"]["median_seconds"] == 14
    # unit medians: u1 10, u2 12: c's 2 s and 1 s are under half of them, nobody else's are
    assert (c["too_fast"], c["too_fast_share"]) == (2, 1.0)
    assert (a["too_fast"], a["too_fast_share"]) == (0, 0.0)
    assert (a["gold_items"], a["gold_correct"], a["gold_accuracy"]) == (1, 1, 1.0)
    assert (c["gold_items"], c["gold_correct"], c["gold_accuracy"]) == (1, 0, 0.0)
    # a: u1 matches 1 of 2 others, u2 2 of 2, u3 0 of 1 -> disagreement (1/2 + 0 + 1) / 3
    assert (a["shared_units"], a["pairs"]) == (3, 5)
    assert a["disagreement"] == pytest.approx(0.5)
    assert a["match_share"] == pytest.approx(0.5)
    # D_e: 3 x and 5 y among the 8 pairable answers: (64 - 9 - 25) / (8 * 7)
    assert scores.expected_disagreement == pytest.approx(30 / 56)
    assert a["agreement"] == pytest.approx(1 - 0.5 / (30 / 56))
    assert c["disagreement"] == pytest.approx((1 + 0) / 2)  # u1: neither other says y; u2: both do
    assert scores.alpha == pytest.approx(1 - 0.5 / (30 / 56))


def test_an_annotator_who_shares_no_unit_has_no_agreement_and_no_gold_accuracy():
    d = by_annotator(annotator_scores(NOMINAL, level="nominal", competence=None))["d"]
    assert (d["shared_units"], d["pairs"]) == (0, 0)
    assert d["disagreement"] is None and d["agreement"] is None and d["match_share"] is None
    assert (d["gold_items"], d["gold_correct"], d["gold_accuracy"]) == (0, None, None)


def test_without_gold_or_times_or_thresholds_those_figures_are_none():
    frame = NOMINAL[["unit", "annotator", "value"]]
    for row in annotator_scores(frame, level="nominal", competence=None).rows():
        assert row["median_seconds"] is None and row["too_fast"] is None and row["too_fast_share"] is None
        assert row["gold_items"] == 0 and row["gold_accuracy"] is None
    timed = annotator_scores(NOMINAL, level="nominal", competence=None).rows()
    assert all(row["too_fast"] is None for row in timed)  # times, but no threshold asked for


def test_a_fixed_speed_threshold_is_strict_and_either_threshold_makes_an_answer_too_fast():
    rows = by_annotator(annotator_scores(NOMINAL, level="nominal", too_fast_seconds=9, competence=None))
    assert rows["a"]["too_fast"] == 1  # 8 s; 10 and 12 are not
    assert rows["b"]["too_fast"] == 0  # 9 s is not under 9
    both = by_annotator(annotator_scores(NOMINAL, level="nominal", too_fast_seconds=9, too_fast_fraction=0.5,
                                         competence=None))
    assert both["a"]["too_fast_share"] == pytest.approx(1 / 3) and both["c"]["too_fast_share"] == 1.0


def test_an_answer_without_seconds_counts_for_neither_side_of_the_speed_share():
    frame = NOMINAL.assign(seconds=[10, 20, np.nan, 12, 14, 1, 8, 9, 5])
    c = by_annotator(annotator_scores(frame, level="nominal", too_fast_fraction=0.5, competence=None))["c"]
    assert (c["median_seconds"], c["too_fast"], c["too_fast_share"]) == (1, 1, 1.0)


def test_a_precomputed_correct_flag_stands_for_expected():
    frame = NOMINAL.drop(columns="expected").assign(correct=[True, False, None, None, None, None, np.nan, True, None])
    rows = by_annotator(annotator_scores(frame, level="nominal", competence=None))
    assert (rows["a"]["gold_items"], rows["a"]["gold_accuracy"]) == (1, 1.0)
    assert (rows["b"]["gold_items"], rows["b"]["gold_correct"], rows["b"]["gold_accuracy"]) == (2, 1, 0.5)
    assert rows["c"]["gold_items"] == 0


def test_interval_gold_within_the_tolerance_is_correct():
    frame = pd.DataFrame({"unit": ["u1", "u1", "u2"], "annotator": ["a", "b", "a"], "value": [3.0, 3.6, 1.0],
                          "expected": [3.5, 3.5, None]})
    strict = by_annotator(annotator_scores(frame, level="interval", competence=None))
    assert strict["a"]["gold_correct"] == 0 and strict["b"]["gold_correct"] == 0
    lenient = by_annotator(annotator_scores(frame, level="interval", gold_tolerance=0.5, competence=None))
    assert lenient["a"]["gold_correct"] == 1 and lenient["b"]["gold_correct"] == 1


def test_the_ordinal_example_by_hand():
    # u1: a 1, b 2, c 3; u2: a 1, b 1, c 2. Marginals 3, 2, 1 -> mid-ranks 1.5, 4, 5.5, so
    # δ²(1,2) = 6.25, δ²(1,3) = 16, δ²(2,3) = 2.25.
    frame = pd.DataFrame({"unit": ["u1"] * 3 + ["u2"] * 3, "annotator": list("abcabc"), "value": [1, 2, 3, 1, 1, 2]})
    scores = annotator_scores(frame, level="ordinal", competence=None)
    rows = by_annotator(scores)
    assert rows["a"]["disagreement"] == pytest.approx(((6.25 + 16) / 2 + (0 + 6.25) / 2) / 2)
    assert rows["b"]["disagreement"] == pytest.approx(((6.25 + 2.25) / 2 + (0 + 6.25) / 2) / 2)
    assert rows["c"]["disagreement"] == pytest.approx(((16 + 2.25) / 2 + (6.25 + 6.25) / 2) / 2)
    expected = 2 * (3 * 2 * 6.25 + 3 * 1 * 16 + 2 * 1 * 2.25) / (6 * 5)
    assert scores.expected_disagreement == pytest.approx(expected)
    assert rows["b"]["agreement"] == pytest.approx(1 - 3.6875 / expected)
    assert rows["b"]["match_share"] is None  # nominal only


def test_ordinal_values_follow_the_value_domain_given():
    frame = pd.DataFrame({"unit": ["u1"] * 3 + ["u2"] * 3, "annotator": list("abcabc"),
                          "value": ["low", "mid", "high", "low", "low", "mid"]})
    named = annotator_scores(frame, level="ordinal", value_domain=["low", "mid", "high"], competence=None)
    numbered = annotator_scores(frame.assign(value=[1, 2, 3, 1, 1, 2]), level="ordinal", competence=None)
    assert named.table["disagreement"].tolist() == pytest.approx(numbered.table["disagreement"].tolist())
    assert named.values == ["low", "mid", "high"]


def test_the_interval_and_ratio_examples_by_hand():
    # u1: a 1, b 3; u2: a 2, b 2, c 4
    frame = pd.DataFrame({"unit": ["u1", "u1", "u2", "u2", "u2"], "annotator": list("ababc"),
                          "value": [1, 3, 2, 2, 4]})
    rows = by_annotator(annotator_scores(frame, level="interval", competence=None))
    assert rows["a"]["disagreement"] == pytest.approx((4 + (0 + 4) / 2) / 2)
    assert rows["c"]["disagreement"] == pytest.approx((4 + 4) / 2)
    ratio = by_annotator(annotator_scores(frame, level="ratio", competence=None))
    assert ratio["a"]["disagreement"] == pytest.approx(((2 / 4) ** 2 + (0 + (2 / 6) ** 2) / 2) / 2)
    assert ratio["c"]["disagreement"] == pytest.approx((2 / 6) ** 2)


def brute_force(frame, level):
    """Per annotator, the mean over their answers in shared units of the mean δ² to the others,
    from Krippendorff's definitions, pair by pair."""
    values = sorted(frame["value"].unique())
    pairable = frame[frame.groupby("unit")["unit"].transform("size") >= 2]
    n = pairable["value"].value_counts().reindex(values, fill_value=0)

    def delta(c, k):
        if level == "nominal":
            return float(c != k)
        if level == "ordinal":
            lo, hi = sorted([values.index(c), values.index(k)])
            return (n.iloc[lo : hi + 1].sum() - (n[c] + n[k]) / 2) ** 2
        if level == "interval":
            return (c - k) ** 2
        return ((c - k) / (c + k)) ** 2 if c + k else 0.0

    out = {}
    for annotator, mine in pairable.groupby("annotator"):
        per_unit = []
        for unit, value in zip(mine["unit"], mine["value"]):
            others = pairable[(pairable["unit"] == unit) & (pairable["annotator"] != annotator)]["value"]
            per_unit.append(np.mean([delta(value, other) for other in others]))
        out[annotator] = np.mean(per_unit)
    return out


def random_answers(seed, values=(1, 2, 3, 4, 5)):
    rng = np.random.default_rng(seed)
    rows = []
    for unit in range(40):
        for annotator in rng.choice(8, rng.integers(1, 5), replace=False):
            rows.append((f"u{unit}", f"r{annotator}", int(rng.choice(values))))
    return pd.DataFrame(rows, columns=["unit", "annotator", "value"])


LEVELS = ["nominal", "ordinal", "interval", "ratio"]


@pytest.mark.parametrize(("level", "seed"), list(itertools.product(LEVELS, [0, 1])))
def test_leave_one_out_disagreement_matches_the_pairs_and_decomposes_alpha(level, seed):
    frame = random_answers(seed)
    scores = annotator_scores(frame, level=level, competence=None)
    table = scores.table.set_index("annotator")
    for annotator, expected in brute_force(frame, level).items():
        assert table.loc[annotator, "disagreement"] == pytest.approx(expected, rel=1e-9)
    # alpha is the mean of the annotators' agreement weighted by their shared units
    weights = table["shared_units"]
    assert (table["agreement"] * weights).sum() / weights.sum() == pytest.approx(scores.alpha, rel=1e-9)
    counts = frame.groupby(["unit", "value"]).size().unstack(fill_value=0)
    reference = alpha(counts.to_numpy(), level, list(counts.columns), n_resamples=0)
    assert scores.alpha == pytest.approx(reference.alpha, rel=1e-9)


def test_no_variation_leaves_agreement_undefined_but_disagreement_zero():
    frame = pd.DataFrame({"unit": ["u1", "u1", "u2", "u2"], "annotator": list("abab"), "value": ["x"] * 4})
    scores = annotator_scores(frame, level="nominal", competence=None)
    assert scores.alpha is None and scores.expected_disagreement is None
    assert [(r["disagreement"], r["agreement"], r["match_share"]) for r in scores.rows()] == [(0.0, None, 1.0)] * 2


def test_equal_scores_keep_the_order_of_first_appearance():
    frame = pd.DataFrame({"unit": ["u1", "u1", "u2", "u2"], "annotator": ["b", "a", "a", "b"], "value": list("xxyy")})
    table = annotator_scores(frame, level="nominal", competence=None).table
    assert table["annotator"].tolist() == ["b", "a"]
    assert table.sort_values("agreement", kind="stable")["annotator"].tolist() == ["b", "a"]


def simulated(seed=0, items=300):
    """Six good annotators (right 90% of the time, else a random label) and three spammers (two
    always say "a", one answers at random), three annotators per item, four labels."""
    rng = np.random.default_rng(seed)
    labels = np.array(list("abcd"))
    rows = []
    for item in range(items):
        truth = rng.choice(labels)
        for w in rng.choice(9, 3, replace=False):
            if w < 6:
                value = truth if rng.random() < 0.9 else rng.choice(labels)
            else:
                value = "a" if w < 8 else rng.choice(labels)
            rows.append((item, f"w{w}", value, float(rng.uniform(1, 3) if w >= 6 else rng.uniform(10, 30))))
    return pd.DataFrame(rows, columns=["unit", "annotator", "value", "seconds"])


@pytest.mark.parametrize("model", ["mace", "dawid_skene"])
def test_spammers_come_last_by_competence_and_by_agreement(model):
    frame = simulated()
    table = annotator_scores(frame, level="nominal", competence=model, too_fast_seconds=5).table
    table = table.set_index("annotator")
    good, spammers = [f"w{w}" for w in range(6)], [f"w{w}" for w in range(6, 9)]
    for column in ("competence", "agreement"):
        assert table.loc[good, column].min() > table.loc[spammers, column].max()
    assert (table.loc[spammers, "too_fast_share"] == 1).all() and (table.loc[good, "too_fast_share"] == 0).all()


def test_the_competence_model_is_kept_with_its_labels():
    scores = annotator_scores(simulated(items=60), level="nominal", competence="mace", seed=3)
    assert scores.model is not None and scores.model.labels == scores.values
    assert set(scores.model.label_of()) == set(range(60))
    assert scores.settings["competence"] == "mace" and scores.settings["seed"] == 3
    assert scores.table["competence"].tolist() == [scores.model.competence_of()[a] for a in scores.table["annotator"]]


def test_alpha_with_and_without_the_excluded_annotators():
    result = agreement_with_without(NOMINAL, ["c", "nobody"], "nominal", n_resamples=0)
    assert result.excluded == ["c"] and result.not_found == ["nobody"]
    assert (result.all.annotators, result.all.units, result.all.answers) == (4, 4, 9)
    assert (result.all.alpha.n_units, result.all.alpha.n_ratings) == (3, 8)
    assert result.all.alpha.alpha == pytest.approx(1 - 0.5 / (30 / 56))
    # without c: u1 x x, u2 y y, u3 x y -> D_o = 2/6, D_e = (36 - 9 - 9) / 30
    assert (result.without.annotators, result.without.units, result.without.answers) == (3, 4, 7)
    assert (result.without.alpha.n_units, result.without.alpha.n_ratings) == (3, 6)
    assert result.without.alpha.alpha == pytest.approx(1 - (2 / 6) / (18 / 30))
    assert result.as_dict()["without"]["answers"] == 7


def test_alpha_with_and_without_has_its_bootstrap_interval_and_no_alpha_without_everyone():
    result = agreement_with_without(NOMINAL, ["a", "b", "c", "d"], "nominal", n_resamples=200, seed=1)
    assert result.all.alpha.n_resamples == 200 and result.all.alpha.seed == 1
    assert result.without.alpha.alpha is None and result.without.answers == 0
    assert result.without.alpha.reason


@pytest.mark.parametrize(("frame", "options", "message"), [
    (NOMINAL, {"level": "cardinal"}, "unknown level of measurement 'cardinal'"),
    (NOMINAL.iloc[:0], {"level": "nominal"}, "no answers"),
    (NOMINAL.assign(value=None), {"level": "nominal"}, "no answers"),
    (NOMINAL.drop(columns="annotator"), {"level": "nominal"}, "lack the column"),
    (NOMINAL.values.tolist(), {"level": "nominal"}, "must be a pandas DataFrame"),
    (pd.concat([NOMINAL, NOMINAL.iloc[:1]]), {"level": "nominal"}, "'u1' has a second answer by annotator 'a'"),
    (NOMINAL, {"level": "interval"}, "interval values must be numbers; not numbers: 'x'"),
    (NOMINAL, {"level": "nominal", "value_domain": ["x"]}, "outside value_domain: 'y'"),
    (NOMINAL.assign(correct=True), {"level": "nominal"}, "either an expected column or a correct"),
    (NOMINAL.drop(columns="expected").assign(correct="yes"), {"level": "nominal"}, "correct must be True, False"),
    (NOMINAL.assign(seconds=-1), {"level": "nominal"}, "seconds cannot be negative"),
    (NOMINAL, {"level": "nominal", "competence": "glad"}, "unknown competence model 'glad'"),
    (NOMINAL, {"level": "nominal", "too_fast_fraction": 0}, "too_fast_fraction must be above 0"),
    (NOMINAL, {"level": "nominal", "too_fast_seconds": -1}, "too_fast_seconds cannot be negative"),
    (NOMINAL.assign(unit=None), {"level": "nominal"}, "needs a unit and an annotator"),
    (NOMINAL.assign(value=[{"a": 1}] * 9), {"level": "nominal"}, "must be hashable"),
    (pd.DataFrame({"unit": range(101), "annotator": "a", "value": np.arange(101) / 7}), {"level": "interval"},
     "101 distinct values; a competence model reads them as categories"),
])
def test_it_refuses_bad_input_with_a_clear_error(frame, options, message):
    with pytest.raises(ValueError, match=message):
        annotator_scores(frame, **options)


def test_agreement_with_without_refuses_bad_input_too():
    with pytest.raises(ValueError, match="unknown level"):
        agreement_with_without(NOMINAL, [], "cardinal")
    with pytest.raises(ValueError, match="no answers"):
        agreement_with_without(NOMINAL.iloc[:0], [], "nominal")


def test_attention_checks_passed_and_failed_are_counted_and_a_checks_only_annotator_gets_a_row():
    attention = pd.DataFrame({"annotator": ["a", "a", "c", "e"], "passed": [True, False, False, False]})
    scores = annotator_scores(NOMINAL, level="nominal", competence="dawid_skene", attention=attention)
    rows = by_annotator(scores)
    assert [(r["attention_passed"], r["attention_failed"]) for r in rows.values()] == [
        (1, 1), (0, 0), (0, 1), (0, 0), (0, 1)]
    assert list(rows) == ["a", "b", "c", "d", "e"]
    e = rows["e"]
    assert (e["answers"], e["gold_items"], e["shared_units"]) == (0, 0, 0)
    assert e["agreement"] is None and e["competence"] is None and e["median_seconds"] is None
    assert list(scores.table.columns) == list(SCORE_COLUMNS)


def test_without_attention_checks_their_columns_are_none():
    row = annotator_scores(NOMINAL, level="nominal", competence=None).rows()[0]
    assert row["attention_passed"] is None and row["attention_failed"] is None


@pytest.mark.parametrize(("attention", "message"), [
    (pd.DataFrame({"annotator": ["a"]}), "columns annotator, passed"),
    (pd.DataFrame({"annotator": ["a"], "passed": ["yes"]}), "True or False"),
    (pd.DataFrame({"annotator": ["a"], "passed": [None]}), "True or False"),
])
def test_it_refuses_bad_attention_checks(attention, message):
    with pytest.raises(ValueError, match=message):
        annotator_scores(NOMINAL, level="nominal", competence=None, attention=attention)


def test_a_competence_resting_on_a_few_answers_says_so():
    frame = simulated(items=60)
    few = frame[frame["annotator"] == "w0"].index[4:]  # w0 keeps 4 answers
    scores = annotator_scores(frame.drop(few), level="nominal", competence="mace")
    table = scores.table.set_index("annotator")
    assert table.loc["w0", "answers"] == 4
    assert table.loc["w0", "competence_note"] == "rated 4 items: too few for a stable competence (10 or more)"
    assert table.drop(index="w0")["competence_note"].isna().all()  # the others rated plenty
    assert annotator_scores(frame, level="nominal", competence=None).table["competence_note"].isna().all()

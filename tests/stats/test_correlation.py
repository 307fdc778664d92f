"""Metric correlation, the human–human baseline and the metric upload: pure, no database.

scipy.stats is the reference for every coefficient."""

import json
import math

import numpy as np
import pytest
from scipy import stats

from stats.correlation import (
    MetricCSVError,
    coefficients,
    correlate,
    estimates,
    fisher_interval,
    metric_correlations,
    parse_metric_csv,
    resample_statistics,
    sign_matrix,
    summarise_raters,
)

X = [1.0, 2.0, 2.0, 4.0, 5.0, 7.0, 7.0, 9.0]
Y = [2.0, 1.0, 3.0, 3.0, 6.0, 5.0, 8.0, 8.0]


def json_safe(result) -> dict:
    d = result.as_dict()
    json.dumps(d, allow_nan=False)  # jsonb takes no NaN
    return d


# --- coefficients ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "reference"), [("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau)]
)
def test_it_matches_scipy_with_ties(method, reference):
    found = correlate(X, Y, method)
    expected = reference(X, Y)
    assert found.value == pytest.approx(expected.statistic, abs=1e-12)
    assert found.p_value == pytest.approx(expected.pvalue, abs=1e-12)
    assert found.n == 8 and found.reason == ""


def test_it_leaves_out_pairs_with_a_missing_value():
    found = correlate([1, 2, None, 3, 4], [1, 3, 5, float("nan"), 2], "spearman")
    assert found.n == 3
    assert found.value == pytest.approx(stats.spearmanr([1, 2, 4], [1, 3, 2]).statistic)


def test_it_gives_no_coefficient_for_fewer_than_three_pairs():
    found = correlate([1, 2], [2, 1], "pearson")
    assert found.value is None and found.p_value is None and found.n == 2
    assert "fewer than 3" in found.reason


def test_it_gives_no_coefficient_without_variation_and_names_the_side():
    found = correlate([1, 2, 3, 4], [5, 5, 5, 5], "kendall", names=("metric", "human score"))
    assert found.value is None
    assert found.reason == "no variation: every human score value is the same"


def test_it_refuses_an_unknown_method():
    with pytest.raises(ValueError, match="unknown method"):
        correlate(X, Y, "cosine")


def test_fisher_interval_matches_scipy():
    r = stats.pearsonr(X, Y)
    low, high = fisher_interval(r.statistic, len(X))
    ci = r.confidence_interval(0.95)
    assert (low, high) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_fisher_interval_edge_cases():
    assert fisher_interval(0.5, 3) == (None, None)
    assert fisher_interval(1.0, 10) == (1.0, 1.0)
    assert fisher_interval(-1.0, 10) == (-1.0, -1.0)


@pytest.mark.parametrize("dense", [True, False])
def test_resample_statistics_equal_scipy_on_every_resample(dense):
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=40), 1)  # ties, and more ties in resamples
    y = np.round(x + rng.normal(size=40))
    idx = rng.integers(0, 40, size=(50, 40))
    rho, tau = resample_statistics(x, y, idx, sign_matrix=sign_matrix(x, y) if dense else None)
    for b, i in enumerate(idx):
        assert rho[b] == pytest.approx(stats.spearmanr(x[i], y[i]).statistic, abs=1e-12)
        assert tau[b] == pytest.approx(stats.kendalltau(x[i], y[i]).statistic, abs=1e-12)


def test_a_constant_resample_is_nan_not_an_error():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([3.0, 1.0, 2.0])
    rho, tau = resample_statistics(x, y, np.array([[0, 0, 0], [0, 1, 2]]), sign_matrix=sign_matrix(x, y))
    assert math.isnan(rho[0]) and math.isnan(tau[0])
    assert rho[1] == pytest.approx(-0.5) and tau[1] == pytest.approx(-1 / 3)


def test_the_bootstrap_interval_is_the_percentile_interval_of_the_documented_draws():
    x, y = np.array(X), np.array(Y)
    found = coefficients(x, y, n_boot=200, rng=np.random.default_rng(5))
    idx = np.random.default_rng(5).integers(0, len(x), size=(200, len(x)))  # one block: the documented draws
    rho = np.array([stats.spearmanr(x[i], y[i]).statistic for i in idx])
    rho = rho[np.isfinite(rho)]
    low, high = np.percentile(rho, [2.5, 97.5])
    assert (found["spearman"].ci_low, found["spearman"].ci_high) == pytest.approx((low, high), abs=1e-12)
    assert found["spearman"].resamples == len(rho)
    assert found["pearson"].resamples is None and found["pearson"].ci_low is not None


def test_the_bootstrap_draws_the_same_resamples_block_after_block(monkeypatch):
    x, y = np.array(X), np.array(Y)
    whole = coefficients(x, y, n_boot=100, rng=np.random.default_rng(9))
    monkeypatch.setattr(estimates, "BOOT_BLOCK", 3 * len(x))  # blocks of 3 resamples
    blocks = coefficients(x, y, n_boot=100, rng=np.random.default_rng(9))
    assert blocks["kendall"].ci_low == pytest.approx(whole["kendall"].ci_low)
    assert blocks["kendall"].ci_high == pytest.approx(whole["kendall"].ci_high)


def test_no_interval_without_resamples():
    found = coefficients(X, Y, n_boot=0)
    assert found["spearman"].ci_low is None and found["spearman"].resamples is None
    assert found["spearman"].value == pytest.approx(stats.spearmanr(X, Y).statistic)


def test_summarise_raters_is_a_student_t_interval():
    values = [0.2, 0.4, 0.5, 0.7]
    s = summarise_raters(values)
    mean, sd = np.mean(values), np.std(values, ddof=1)
    half = stats.t.ppf(0.975, 3) * sd / 2
    assert (s.mean, s.ci_low, s.ci_high, s.n_raters) == pytest.approx((mean, mean - half, mean + half, 4))
    one = summarise_raters([0.3])
    assert one.mean == 0.3 and one.ci_low is None and "one rater" in one.reason
    none = summarise_raters([])
    assert none.mean is None and none.n_raters == 0 and none.reason


# --- the metric file ---------------------------------------------------------------------------


def test_it_reads_a_metric_file():
    text = "item,country,metric,score\nimg-1,IN,clip,0.25\nimg-1,IN,vqa,1\nimg-2,,clip,-3e-1\n\n"
    scores = parse_metric_csv(text)
    assert scores.rows == [("img-1", "IN", "clip", 0.25), ("img-1", "IN", "vqa", 1.0), ("img-2", None, "clip", -0.3)]
    assert scores.metrics == ["clip", "vqa"]
    assert scores.lines == 3 and scores.unknown_items == 0


def test_it_reads_bytes_with_a_bom_tabs_other_header_names_and_extra_columns():
    data = "\ufeffItem ID\tMetric Name\tValue\tnote\nimg-1\tclip\t0.5\tok\n".encode()
    scores = parse_metric_csv(data)
    assert scores.rows == [("img-1", None, "clip", 0.5)]
    assert scores.ignored_columns == ["note"]


def test_it_maps_item_ids_and_countries_and_reports_unknown_ones():
    text = "item,country,metric,score\na,in,m,1\nb,IN,m,2\nzz,IN,m,3\nyy,IN,m,4\na,XX,m,5\n"
    scores = parse_metric_csv(text, items={"a": 11, "b": 12}, countries=["IN", "US"])
    assert scores.rows == [(11, "IN", "m", 1.0), (12, "IN", "m", 2.0)]
    assert (scores.unknown_items, scores.unknown_item_examples) == (2, ["zz", "yy"])
    assert (scores.unknown_countries, scores.unknown_country_examples) == (1, ["XX"])
    json.dumps(scores.as_dict(), allow_nan=False)
    assert scores.as_dict()["scores"] == 2


def test_it_takes_a_collection_of_known_items():
    scores = parse_metric_csv("item,metric,score\na,m,1\nb,m,2\n", items={"a"})
    assert scores.rows == [("a", None, "m", 1.0)] and scores.unknown_items == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("img-1,IN,clip,high", "line 3: the score 'high' is not a number"),
        ("img-1,IN,clip,", "line 3: the score is empty"),
        ("img-1,IN,clip,nan", "line 3: the score 'nan' is not a finite number"),
        ("img-1,IN,clip,inf", "line 3: the score 'inf' is not a finite number"),
        (",IN,clip,1", "line 3: the item id is empty"),
        ("img-1,IN,,1", "line 3: the metric name is empty"),
        ("img-1,IN,clip,1,2", "line 3: 5 cells, but the header has 4"),
        ("img-0,in,clip,9", "line 3: a second score for item img-0, country in, metric clip (the first is on line 2)"),
    ],
)
def test_it_refuses_a_bad_line_and_names_it(line, message):
    with pytest.raises(MetricCSVError) as caught:
        parse_metric_csv(f"item,country,metric,score\nimg-0,IN,clip,1\n{line}\n")
    assert caught.value.errors == [message]


def test_it_lists_every_bad_line_up_to_a_limit():
    lines = "\n".join(f"img-{i},m,x" for i in range(30))
    with pytest.raises(MetricCSVError) as caught:
        parse_metric_csv(f"item,metric,score\n{lines}\n", max_errors=5)
    assert len(caught.value.errors) == 5 and caught.value.total == 30
    assert caught.value.errors[0].startswith("line 2:")
    assert str(caught.value).endswith("and 25 more problems")


def test_it_counts_lines_of_a_quoted_multiline_cell():
    with pytest.raises(MetricCSVError, match="line 4: the score 'x' is not a number"):
        parse_metric_csv('item,metric,score\n"a\nb",m,1\nc,m,x\n')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("\n\n", "the file is empty"),
        ("item,metric,score\n", "the file has a header but no scores"),
        ("item,score\na,1\n", "line 1: the header must name the columns item, metric and score"),
        ("img,1.0,clip\n", "missing: item, metric, score"),
        ("item,id,metric,score\n", "line 1: two columns mean the item"),
    ],
)
def test_it_refuses_a_file_without_its_header_or_scores(text, message):
    with pytest.raises(MetricCSVError, match=message):
        parse_metric_csv(text)


def test_it_refuses_a_file_none_of_whose_items_is_the_studys():
    with pytest.raises(MetricCSVError, match=r"none of the 2 item ids is an item of this study \(e.g. 1, 2\)"):
        parse_metric_csv("item,metric,score\n1,m,0.5\n2,m,0.7\n", items={"img-1": 1})


def test_it_refuses_a_file_that_is_not_utf8():
    with pytest.raises(MetricCSVError, match="not UTF-8"):
        parse_metric_csv("item,metric,score\ncrème,m,1\n".encode("latin-1"))


# --- metric correlations -----------------------------------------------------------------------

# Three raters (10, 11, 12) of six items, in one country; rater 12 skips item 6.
RATINGS = {
    1: {10: 1, 11: 2, 12: 1},
    2: {10: 2, 11: 2, 12: 3},
    3: {10: 3, 11: 4, 12: 3},
    4: {10: 4, 11: 3, 12: 5},
    5: {10: 5, 11: 5, 12: 4},
    6: {10: 2, 11: 4},
}
HUMAN = [(item, "IN", rater, value) for item, by in RATINGS.items() for rater, value in by.items()]
METRIC = {1: 0.1, 2: 0.3, 3: 0.2, 4: 0.6, 5: 0.9, 6: 0.5}


def human_means() -> list[float]:
    return [float(np.mean(list(RATINGS[i].values()))) for i in sorted(RATINGS)]


def test_a_metric_is_correlated_with_the_mean_human_score_per_item():
    result = metric_correlations(HUMAN, [(i, None, "clip", s) for i, s in METRIC.items()], n_boot=200)
    assert result.unit == "item" and result.human_units == 6 and result.raters == 3 and result.ratings == 17
    (clip,) = result.metrics
    x, y = [METRIC[i] for i in sorted(METRIC)], human_means()
    assert clip.n == 6 and clip.metric_only == 0 and clip.human_only == 0
    references = (("pearson", stats.pearsonr), ("spearman", stats.spearmanr), ("kendall", stats.kendalltau))
    for method, reference in references:
        c = clip.coefficients[method]
        assert c.value == pytest.approx(reference(x, y).statistic)
        assert c.p_value == pytest.approx(reference(x, y).pvalue)
        assert c.ci_low <= c.value <= c.ci_high
    ci = stats.pearsonr(x, y).confidence_interval()
    pearson = clip.coefficients["pearson"]
    assert (pearson.ci_low, pearson.ci_high) == pytest.approx((ci.low, ci.high))
    json_safe(result)


def test_the_baseline_is_each_rater_against_the_mean_of_the_others():
    result = metric_correlations(HUMAN, [], n_boot=0)
    rows = {r[0]: r for r in result.baseline.raters}
    for rater in (10, 11, 12):
        items = [i for i in sorted(RATINGS) if rater in RATINGS[i]]
        own = [RATINGS[i][rater] for i in items]
        others = [np.mean([v for r, v in RATINGS[i].items() if r != rater]) for i in items]
        assert rows[rater][2] == len(items)
        assert rows[rater][3] == pytest.approx(stats.pearsonr(own, others).statistic)
        assert rows[rater][4] == pytest.approx(stats.spearmanr(own, others).statistic)
        assert rows[rater][5] == pytest.approx(stats.kendalltau(own, others).statistic)
    spearman = result.baseline.summary["spearman"]
    values = [rows[r][4] for r in (10, 11, 12)]
    assert spearman.mean == pytest.approx(np.mean(values)) and spearman.n_raters == 3
    half = stats.t.ppf(0.975, 2) * np.std(values, ddof=1) / math.sqrt(3)
    assert spearman.ci_low == pytest.approx(max(-1, np.mean(values) - half))
    assert result.metrics == []


def test_a_raters_repeated_rating_of_an_item_counts_once():
    twice = [*HUMAN, (1, "IN", 10, 3)]  # rater 10 rated item 1 again: their value is the mean, 2
    result = metric_correlations(twice, [(i, None, "m", s) for i, s in METRIC.items()], n_boot=0)
    assert result.ratings == 17
    y = human_means()
    y[0] = (2 + 2 + 1) / 3
    expected = stats.pearsonr(list(METRIC.values()), y).statistic
    assert result.metrics[0].coefficients["pearson"].value == pytest.approx(expected)


def test_per_country_the_unit_is_the_item_in_a_country():
    # CAIRE: both countries rate both images; the metric scores each (image, country) pair.
    human = [
        (1, "IN", 1, 5), (1, "IN", 2, 4), (1, "US", 3, 1), (1, "US", 4, 2),
        (2, "IN", 1, 2), (2, "IN", 2, 1), (2, "US", 3, 4), (2, "US", 4, 5),
        (3, "IN", 1, 3), (3, "IN", 2, 3), (3, "US", 3, 3), (3, "US", 4, 2),
    ]
    metric = [(1, "IN", "m", 0.9), (1, "US", "m", 0.2), (2, "IN", "m", 0.1), (2, "US", "m", 0.8),
              (3, "IN", "m", 0.5), (3, "US", "m", 0.4), (4, "IN", "m", 0.7), (3, None, "m", 0.5)]
    result = metric_correlations(human, metric, per_country=True, n_boot=100)
    (m,) = result.metrics
    assert result.unit == "(item, country)" and result.human_units == 6
    assert m.n == 6 and m.metric_only == 1 and m.missing_country == 1
    x, y = [0.9, 0.2, 0.1, 0.8, 0.5, 0.4], [4.5, 1.5, 1.5, 4.5, 3, 2.5]
    assert m.coefficients["pearson"].value == pytest.approx(stats.pearsonr(x, y).statistic)
    by_country = {c["country"]: c for c in m.countries}
    assert by_country["IN"]["n"] == 3
    expected = stats.spearmanr([0.9, 0.1, 0.5], [4.5, 1.5, 3]).statistic
    assert by_country["IN"]["coefficients"]["spearman"].value == pytest.approx(expected)
    assert {c["country"] for c in result.baseline.countries} == {"IN", "US"}
    json_safe(result)


def test_a_metric_with_two_scores_for_one_item_is_not_analysed_unless_per_country():
    metric = [(1, "IN", "m", 0.1), (1, "US", "m", 0.3), (2, "IN", "m", 0.2)]
    (m,) = metric_correlations(HUMAN, metric, n_boot=0).metrics
    assert m.n == 0 and m.coefficients["pearson"].value is None
    assert "item 1 has 2 scores" in m.reason


def test_the_intervals_of_a_metric_do_not_depend_on_the_other_metrics():
    a = [(i, None, "a", s) for i, s in METRIC.items()]
    b = [(i, None, "b", -s) for i, s in METRIC.items()]
    alone = metric_correlations(HUMAN, a, n_boot=300, seed=4).metrics[0]
    beside = metric_correlations(HUMAN, b + a, n_boot=300, seed=4).metrics[1]
    assert beside.metric == "a"
    assert beside.coefficients["kendall"].as_dict() == alone.coefficients["kendall"].as_dict()
    other_seed = metric_correlations(HUMAN, a, n_boot=300, seed=5).metrics[0]
    assert other_seed.coefficients["kendall"].ci_low != alone.coefficients["kendall"].ci_low or (
        other_seed.coefficients["kendall"].ci_high != alone.coefficients["kendall"].ci_high
    )


def test_it_restricts_both_sides_to_some_items():
    scores = [(i, None, "m", s) for i, s in METRIC.items()]
    result = metric_correlations(HUMAN, scores, only_items={1, 2, 3, 4}, n_boot=0)
    m = result.metrics[0]
    assert result.human_units == 4 and m.n == 4 and m.metric_only == 0
    expected = stats.pearsonr([0.1, 0.3, 0.2, 0.6], human_means()[:4]).statistic
    assert m.coefficients["pearson"].value == pytest.approx(expected)


def test_it_accepts_parsed_scores_with_unknown_and_unscored_items():
    scores = parse_metric_csv(
        "item,metric,score\nimg-1,m,0.1\nimg-2,m,0.3\nimg-3,m,0.2\nimg-4,m,0.6\nimg-9,m,1\n",
        items={f"img-{i}": i for i in range(1, 8)},
    )
    m = metric_correlations(HUMAN, scores, n_boot=0).metrics[0]
    assert scores.unknown_items == 1
    assert m.n == 4 and m.human_only == 2


def test_ids_of_another_type_match_nothing_and_say_so():
    m = metric_correlations(HUMAN, [("1", None, "m", 0.1), ("2", None, "m", 0.2)], n_boot=0).metrics[0]
    assert m.n == 0 and m.metric_only == 2 and m.human_only == 6
    assert m.reason == "no unit has both a score of this metric and a human score"


def test_one_rater_gives_a_metric_correlation_but_no_baseline():
    human = [(i, "IN", 10, RATINGS[i][10]) for i in RATINGS]
    result = metric_correlations(human, [(i, None, "m", s) for i, s in METRIC.items()], n_boot=50)
    assert result.metrics[0].coefficients["spearman"].value is not None
    summary = result.baseline.summary["pearson"]
    assert summary.mean is None and summary.n_raters == 0 and "no rater shares" in summary.reason
    assert result.baseline.left_out == {"shares no unit with another rater": 1}
    json_safe(result)


def test_no_variation_gives_none_with_reasons_never_a_crash():
    human = [(i, "IN", r, 3) for i in range(1, 6) for r in (1, 2)]
    result = metric_correlations(human, [(i, None, "m", i / 10) for i in range(1, 6)], n_boot=50)
    c = result.metrics[0].coefficients
    assert all(c[m].value is None for m in ("pearson", "spearman", "kendall"))
    assert c["pearson"].reason == "no variation: every human score value is the same"
    assert result.baseline.summary["kendall"].mean is None
    assert sum(result.baseline.left_out.values()) == 2
    json_safe(result)


def test_too_few_shared_items_leave_a_rater_out_of_the_baseline():
    human = [*HUMAN, (1, "IN", 99, 1), (2, "IN", 99, 5)]  # rater 99 shares only two items
    result = metric_correlations(human, [], n_boot=0)
    assert 99 not in {r[0] for r in result.baseline.raters}
    assert result.baseline.left_out == {"fewer than 3 paired values": 1}


def test_nothing_at_all_is_not_a_crash():
    result = metric_correlations([], [], n_boot=10)
    assert result.human_units == 0 and result.metrics == [] and result.baseline.summary["pearson"].mean is None
    json_safe(result)


def test_many_units_take_scipys_tau_per_resample_with_the_same_result(monkeypatch):
    x, y = np.array(X * 3), np.array(Y * 3)
    dense = coefficients(x, y, n_boot=60, rng=np.random.default_rng(2))
    monkeypatch.setattr(estimates, "DENSE_KENDALL_MAX", 5)
    looped = coefficients(x, y, n_boot=60, rng=np.random.default_rng(2))
    assert (looped["kendall"].ci_low, looped["kendall"].ci_high) == pytest.approx(
        (dense["kendall"].ci_low, dense["kendall"].ci_high), abs=1e-12
    )


def test_keys_are_plain_python_values():
    human = [(np.int64(i), "IN", np.int64(r), v) for i, r, v in [(k[0], k[2], k[3]) for k in HUMAN]]
    scores = [(np.int64(i), "IN", "m", s) for i, s in METRIC.items()]
    result = metric_correlations(human, scores, per_country=True, n_boot=10)
    d = json_safe(result)
    assert {type(r[0]) for r in d["baseline"]["raters"]} == {int}

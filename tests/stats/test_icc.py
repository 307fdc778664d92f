"""The intraclass correlations (stats.agreement.icc) against Shrout and Fleiss' published values,
pingouin's numbers, a naive one-way ANOVA, and their refusals."""

import json
import math

import numpy as np
import pytest
from scipy import stats

from stats.agreement import ICC_FORMS, icc, icc_oneway
from stats.agreement.base import REASON_FEW_UNITS, REASON_NO_VARIATION
from stats.agreement.icc import REASON_NOT_CROSSED, REASON_NOT_CROSSED_COUNTS, REASON_ONLY_RATERS

# An undefined figure is None with a reason, never a division warning or a NaN.
pytestmark = pytest.mark.filterwarnings("error")

NAN = np.nan

# Shrout & Fleiss (1979), Table 2: 6 targets (rows) rated by 4 judges (columns).
SF = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)
# The values they report for these data, to 2 decimals: ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,4), ICC(2,4), ICC(3,4).
SF_PUBLISHED = {"icc1": 0.17, "icc2": 0.29, "icc3": 0.71, "icc1k": 0.44, "icc2k": 0.62, "icc3k": 0.91}

# 30 units × 5 raters: np.round(rng.normal(size=(30, 1)) * 2 + rng.normal(size=(30, 5))
# + [0, .5, 1, -.5, .3], 2) with rng = np.random.default_rng(20240611), written out.
R30 = np.array(
    [
        [0.33, 0.3, 2.27, -2.88, 0.75],
        [-2.06, -1.4, -0.05, -3.05, -1.93],
        [-0.21, 0.48, -0.6, -1.07, 0.45],
        [-3.71, -3.74, -2.58, -4.59, -2.11],
        [-0.24, 1.13, 1.08, 0.92, -0.1],
        [0.23, -1.34, -1.01, -1.69, -0.25],
        [-2.97, -1.46, -0.46, -1.99, -0.28],
        [0.98, 1.03, 2.11, 0.64, -0.61],
        [-1.72, -3.45, -3.51, -3.8, -4.09],
        [0.31, -1.02, 1.41, -2.08, 0.36],
        [-1.68, -1.46, -0.31, -2.54, -1.93],
        [1.21, 3.25, 0.82, 1.47, 2.2],
        [-0.24, 1.58, 2.41, -0.53, 2.26],
        [-0.98, 0.34, -0.47, -1.41, 0.26],
        [-1.66, -1.87, -2.32, -2.08, -2.83],
        [-1.84, -2.29, -1.13, -3.28, -1.4],
        [-2.03, -1.03, 0.82, -3.33, -1.08],
        [1.61, 0.08, 0.94, -1.11, 2.12],
        [1.53, 1.9, 1.3, 0.15, 2.94],
        [0.27, 0.56, 2.25, -0.95, 2.37],
        [-0.3, 0.06, 0.8, -0.39, 1.07],
        [-2.43, -2.06, -0.7, -1.9, -0.56],
        [-0.09, 1.86, 0.37, 1.28, -0.4],
        [-1.72, -0.94, 0.38, -0.67, -1.28],
        [2.37, 0.16, 1.81, -0.26, 1.35],
        [-1.36, -1.0, 1.88, 0.16, 0.46],
        [1.01, 2.8, 3.16, 2.45, 2.24],
        [-1.21, 0.69, 1.38, 0.7, 0.46],
        [1.68, 4.39, 4.12, 1.14, 2.37],
        [0.1, -1.67, 1.15, -1.29, -0.67],
    ]
)

# pingouin's bundled example, read_dataset("icc"): 8 wines (rows) scored by 4 judges (columns).
WINE = np.array(
    [[1, 2, 0, 1], [1, 3, 3, 2], [3, 8, 1, 4], [6, 4, 3, 3], [6, 5, 5, 6], [7, 5, 6, 2], [8, 7, 7, 9], [9, 9, 9, 8]],
    dtype=float,
)

# pingouin 0.7.0 (GPL, so only a throwaway venv, never a dependency): with
# pingouin.options["round.column.CI95"] = None (it rounds the interval to 2 decimals by default),
# pingouin.intraclass_corr(data=long, targets="t", raters="r", ratings="s", nan_policy="omit") on each
# matrix above in long form; rows ICC(1,1), ICC(A,1), ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k) as
# (ICC, CI95 low, CI95 high, F, df2, pval), to 12 significant digits.
SF_PINGOUIN = {
    "icc1": (0.165741768405, -0.132932324875, 0.722560062328, 1.79467849224, 18, 0.164768808345),
    "icc2": (0.289763779528, 0.0187865133747, 0.761084369649, 11.0272479564, 15, 0.000134566516484),
    "icc3": (0.714840714841, 0.342464765034, 0.945858259955, 11.0272479564, 15, 0.000134566516484),
    "icc1k": (0.442797133679, -0.884442155238, 0.912415420341, 1.79467849224, 18, 0.164768808345),
    "icc2k": (0.620050547599, 0.0711368153025, 0.927232040168, 11.0272479564, 15, 0.000134566516484),
    "icc3k": (0.909315542377, 0.675674713816, 0.985891678169, 11.0272479564, 15, 0.000134566516484),
}
R30_PINGOUIN = {
    "icc1": (0.642186158882, 0.493275770966, 0.780811996318, 9.9737467516, 120, 2.1855013671e-20),
    "icc2": (0.649838529906, 0.463225524809, 0.797783918365, 14.3585645917, 116, 2.12507166161e-26),
    "icc3": (0.727647552453, 0.597605434638, 0.839326947682, 14.3585645917, 116, 2.12507166161e-26),
    "icc1k": (0.899736776469, 0.829563854753, 0.946840935965, 9.9737467516, 120, 2.1855013671e-20),
    "icc2k": (0.902715471038, 0.811849668681, 0.951751482798, 14.3585645917, 116, 2.12507166161e-26),
    "icc3k": (0.930355155377, 0.881314303532, 0.96312561333, 14.3585645917, 116, 2.12507166161e-26),
}
WINE_PINGOUIN = {
    "icc1": (0.727520915896, 0.433772833271, 0.926696029257, 11.6800258565, 24, 2.18135095486e-06),
    "icc2": (0.727688787185, 0.434489657891, 0.926708606316, 11.7866927593, 21, 5.02571546406e-06),
    "icc3": (0.729486500794, 0.426146030129, 0.927895261473, 11.7866927593, 21, 5.02571546406e-06),
    "icc1k": (0.914383751176, 0.753955323101, 0.980607867055, 11.6800258565, 24, 2.18135095486e-06),
    "icc2k": (0.914450035945, 0.754496219149, 0.98061138777, 11.7866927593, 21, 5.02571546406e-06),
    "icc3k": (0.915158558858, 0.748137124159, 0.980943254108, 11.7866927593, 21, 5.02571546406e-06),
}
ORACLE = [(SF, SF_PINGOUIN), (R30, R30_PINGOUIN), (WINE, WINE_PINGOUIN)]


def as_counts(ratings):
    """A units × raters matrix of integer ratings as (units × values counts, the values)."""
    domain = np.unique(ratings[~np.isnan(ratings)])
    counts = np.stack([(ratings == v).sum(axis=1) for v in domain], axis=1)
    return counts, domain


def naive_oneway(groups, confidence=0.95):
    """ICC(1,1), ICC(1,k), their intervals and k0 from the unbalanced one-way ANOVA, one unit at a time."""
    groups = [g for g in groups if len(g) >= 2]
    n, total = len(groups), sum(len(g) for g in groups)
    grand = sum(sum(g) for g in groups) / total
    ssb = ssw = 0.0
    for g in groups:
        mean = sum(g) / len(g)
        ssb += len(g) * (mean - grand) ** 2
        ssw += sum((x - mean) ** 2 for x in g)
    msb, msw = ssb / (n - 1), ssw / (total - n)
    k0 = (total - sum(len(g) ** 2 for g in groups) / total) / (n - 1)
    f = msb / msw
    tail = (1 - confidence) / 2
    f_low = f / stats.f.ppf(1 - tail, n - 1, total - n)
    f_high = f * stats.f.ppf(1 - tail, total - n, n - 1)
    return {
        "icc1": (
            (msb - msw) / (msb + (k0 - 1) * msw), (f_low - 1) / (f_low + k0 - 1), (f_high - 1) / (f_high + k0 - 1)
        ),
        "icc1k": ((msb - msw) / msb, 1 - 1 / f_low, 1 - 1 / f_high),
        "k0": k0,
        "f": f,
        "p": stats.f.sf(f, n - 1, total - n),
    }


def crowd_counts(seed, n_units=40, n_values=5):
    """Units each rated by 2–7 of a crowd on values 1..n_values, unit effects included, as counts."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((n_units, n_values), dtype=int)
    for unit in range(n_units):
        centre = rng.integers(0, n_values)
        for _ in range(rng.integers(2, 8)):
            counts[unit, np.clip(centre + rng.integers(-1, 2), 0, n_values - 1)] += 1
    return counts, np.arange(1, n_values + 1, dtype=float)


def groups_of(counts, domain):
    return [[float(v) for v, c in zip(domain, row) for _ in range(c)] for row in counts]


def test_it_gives_shrout_and_fleiss_published_values():
    result = icc(SF)
    for name, published in SF_PUBLISHED.items():
        assert round(result.forms[name].value, 2) == published, name
    assert (result.n_units, result.n_raters, result.n_ratings, result.k) == (6, 4, 24, 4.0)
    assert result.design == "crossed" and result.n_units_dropped == 0 and result.reason == ""


@pytest.mark.parametrize("ratings, expected", ORACLE, ids=["shrout_fleiss", "random_30x5", "pingouin_wine"])
def test_it_matches_pingouin(ratings, expected):
    result = icc(ratings)
    n = ratings.shape[0]
    for name in ICC_FORMS:
        value, low, high, f, df2, p = expected[name]
        form = result.forms[name]
        assert form.value == pytest.approx(value, abs=1e-6), name
        assert (form.ci_low, form.ci_high) == pytest.approx((low, high), abs=1e-6), name
        assert form.f == pytest.approx(f, rel=1e-9), name
        assert (form.df1, form.df2) == (n - 1, df2), name
        assert form.p_value == pytest.approx(p, rel=1e-6), name
        assert form.reason == ""


def test_pingouin_rounded_intervals_agree_at_two_decimals():
    """pingouin's default output (its docstring's example) rounds the interval to 2 decimals."""
    forms = icc(WINE).forms
    assert [round(x, 2) for x in (forms["icc1"].ci_low, forms["icc1"].ci_high)] == [0.43, 0.93]
    assert [round(x, 2) for x in (forms["icc3k"].ci_low, forms["icc3k"].ci_high)] == [0.75, 0.98]


@pytest.mark.parametrize("ratings", [SF, WINE], ids=["shrout_fleiss", "pingouin_wine"])
def test_oneway_from_counts_is_icc1_on_balanced_data(ratings):
    crossed = icc(ratings)
    one_way = icc_oneway(*as_counts(ratings))
    assert one_way.k == crossed.k and one_way.n_units == crossed.n_units and one_way.n_ratings == crossed.n_ratings
    for name in ("icc1", "icc1k"):
        a, b = one_way.forms[name], crossed.forms[name]
        assert (a.value, a.ci_low, a.ci_high, a.f, a.p_value) == pytest.approx(
            (b.value, b.ci_low, b.ci_high, b.f, b.p_value), abs=1e-12
        )
        assert (a.df1, a.df2) == (b.df1, b.df2)
    for name in ("icc2", "icc3", "icc2k", "icc3k"):
        assert one_way.forms[name].value is None
        assert one_way.forms[name].reason == REASON_NOT_CROSSED_COUNTS
    assert one_way.design == "one-way" and one_way.n_raters == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oneway_matches_a_naive_unbalanced_anova(seed):
    counts, domain = crowd_counts(seed)
    counts[0] = [1, 0, 0, 0, 0]  # a unit with one rating is left out
    expected = naive_oneway(groups_of(counts, domain))
    result = icc_oneway(counts, domain)
    assert result.k == pytest.approx(expected["k0"], rel=1e-12)
    assert result.n_units == 39 and result.n_units_dropped == 1
    assert result.n_ratings == counts[1:].sum()
    for name in ("icc1", "icc1k"):
        form = result.forms[name]
        assert (form.value, form.ci_low, form.ci_high) == pytest.approx(expected[name], abs=1e-10)
        assert form.f == pytest.approx(expected["f"], rel=1e-10)
        assert form.p_value == pytest.approx(expected["p"], rel=1e-8)


def test_oneway_at_a_narrower_confidence_gives_a_narrower_interval():
    counts, domain = crowd_counts(3)
    wide, narrow = (icc_oneway(counts, domain, confidence=c).forms["icc1"] for c in (0.95, 0.8))
    assert narrow.value == wide.value
    assert wide.ci_low < narrow.ci_low < narrow.value < narrow.ci_high < wide.ci_high
    expected = naive_oneway(groups_of(counts, domain), confidence=0.8)["icc1"]
    assert (narrow.ci_low, narrow.ci_high) == pytest.approx(expected[1:], abs=1e-10)


def test_oneway_runs_on_a_million_ratings():
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 5, size=200_000)
    counts = np.zeros((200_000, 5), dtype=np.int64)
    for _ in range(5):
        given = np.clip(truth + rng.integers(-1, 2, size=truth.size), 0, 4)
        np.add.at(counts, (np.arange(truth.size), given), 1)
    result = icc_oneway(counts, [1, 2, 3, 4, 5])
    assert result.n_ratings == 1_000_000 and result.k == 5.0
    assert 0.7 < result.forms["icc1"].value < 0.9
    assert result.thin == ""


def test_it_drops_units_with_a_missing_rating_from_the_two_way_forms():
    holed = R30.copy()
    holed[0, 1] = holed[5, 3] = holed[17, 0] = NAN
    result = icc(holed)
    assert result.n_units_dropped == 3 and result.n_units == 27 and result.design == "crossed"
    complete = icc(np.delete(R30, [0, 5, 17], axis=0))
    for name in ICC_FORMS:
        assert result.forms[name] == complete.forms[name]


def test_a_rater_who_rated_nothing_is_left_out():
    with_idle = np.column_stack([SF, np.full(6, NAN)])
    result = icc(with_idle)
    assert result.n_raters == 4 and result.n_units_dropped == 0
    assert result.forms == icc(SF).forms


def test_without_crossed_raters_it_falls_back_to_the_one_way_form():
    # Each unit rated by 1–3 of raters 1–5 (a sixth never rated): no complete unit.
    counts, domain = crowd_counts(4, n_units=30)
    counts = np.minimum(counts, 1) + (counts > 3)  # 1–3 ratings per unit
    ratings = np.full((30, 6), NAN)
    for unit, row in enumerate(counts):
        values = [v for v, c in zip(domain, row) for _ in range(c)]
        ratings[unit, unit % 3 : unit % 3 + len(values)] = values
    result = icc(ratings)
    assert result.design == "one-way" and result.reason == ""
    assert result.n_raters == 5
    expected = naive_oneway([list(r[~np.isnan(r)]) for r in ratings])
    assert result.n_units_dropped == sum((~np.isnan(r)).sum() < 2 for r in ratings)
    assert result.k == pytest.approx(expected["k0"])
    for name in ("icc1", "icc1k"):
        form = result.forms[name]
        assert (form.value, form.ci_low, form.ci_high) == pytest.approx(expected[name], abs=1e-10)
    for name in ("icc2", "icc3", "icc2k", "icc3k"):
        assert result.forms[name].value is None and result.forms[name].reason == REASON_NOT_CROSSED


def test_one_complete_unit_is_not_enough_for_the_two_way_forms():
    ratings = np.array([[1, 2, 3], [2, NAN, 4], [NAN, 5, 6], [7, 8, NAN]])
    result = icc(ratings)
    assert result.design == "one-way" and result.n_units == 4 and result.n_units_dropped == 0
    assert result.forms["icc1"].value == pytest.approx(naive_oneway([[1, 2, 3], [2, 4], [5, 6], [7, 8]])["icc1"][0])
    assert result.forms["icc3"].reason == REASON_NOT_CROSSED


@pytest.mark.parametrize("ratings", [[1, 2, 3], [[[1, 2]]], 5])
def test_it_refuses_a_matrix_of_the_wrong_shape(ratings):
    with pytest.raises(ValueError, match="2-D"):
        icc(ratings)


def test_oneway_refuses_a_domain_that_does_not_fit():
    with pytest.raises(ValueError, match="value_domain has 2 values"):
        icc_oneway([[1, 2, 0]], [1, 2])
    with pytest.raises(ValueError, match="numbers"):
        icc_oneway([[1, 2]], ["low", "high"])
    with pytest.raises(ValueError, match="2-D"):
        icc_oneway([1, 2], [1, 2])


@pytest.mark.parametrize("confidence", [0, 1, 1.5])
def test_it_refuses_a_confidence_outside_0_1(confidence):
    with pytest.raises(ValueError, match="confidence"):
        icc(SF, confidence=confidence)
    with pytest.raises(ValueError, match="confidence"):
        icc_oneway([[2, 0], [1, 1]], [0, 1], confidence=confidence)


def assert_nothing(result, reason):
    assert result.reason == reason
    for name in ICC_FORMS:
        assert result.forms[name].value is None and result.forms[name].reason == reason
    assert all(result.as_dict()[name] is None for name in ICC_FORMS)


def test_constant_ratings_have_no_icc():
    assert_nothing(icc(np.full((5, 3), 0.1)), REASON_NO_VARIATION)
    assert_nothing(icc_oneway([[3, 0], [2, 0], [4, 0]], [1, 2]), REASON_NO_VARIATION)


def test_one_unit_has_no_icc():
    assert_nothing(icc([[1, 2, 3]]), REASON_FEW_UNITS)
    assert_nothing(icc_oneway([[1, 2], [1, 0]], [1, 2]), REASON_FEW_UNITS)  # the second unit has one rating
    assert_nothing(icc(np.empty((0, 3))), REASON_FEW_UNITS)
    assert_nothing(icc_oneway(np.empty((0, 3), dtype=int), [1, 2, 3]), REASON_FEW_UNITS)


def test_one_rater_has_no_icc():
    assert_nothing(icc([[1], [2], [3]]), REASON_FEW_UNITS)


def test_perfect_agreement_is_1_with_an_interval_of_1():
    result = icc([[1, 1, 1], [2, 2, 2], [5, 5, 5]])
    for name in ICC_FORMS:
        form = result.forms[name]
        assert (form.value, form.ci_low, form.ci_high) == pytest.approx((1, 1, 1)), name
        assert form.f is None and form.p_value == 0.0  # F is infinite


def test_ratings_that_differ_only_by_rater_leave_consistency_undefined():
    forms = icc([[1, 2], [1, 2], [1, 2]]).forms
    assert forms["icc3"].value is None and forms["icc3"].reason == REASON_ONLY_RATERS
    assert forms["icc3k"].value is None
    assert forms["icc2"].value == 0 and forms["icc1"].value == -1
    assert forms["icc1k"].value is None and "between-units mean square 0" in forms["icc1k"].reason


def test_thin_data_is_flagged():
    rng = np.random.default_rng(11)
    truth = rng.normal(size=(200, 1))
    strong = truth + 0.1 * rng.normal(size=(200, 3))
    assert icc(strong[:10]).thin.startswith("only 10 units")
    result = icc(strong)
    assert result.forms["icc1"].value > 0.95 and result.thin == ""


def test_as_dict_holds_plain_numbers_at_the_top():
    result = icc(SF).as_dict()
    assert [result[name] for name in ICC_FORMS] == [icc(SF).forms[name].value for name in ICC_FORMS]
    assert all(type(result[name]) is float for name in ICC_FORMS)
    assert set(result["forms"]) == set(ICC_FORMS)
    assert result["forms"]["icc2"]["df2"] == 15.0
    sizes = {"n_units", "n_raters", "n_ratings", "k", "n_units_dropped", "design", "confidence", "reason", "thin"}
    assert sizes <= set(result)
    json.dumps(result, allow_nan=False)
    degenerate = icc([[1, 2], [2, 1]]).as_dict()
    json.dumps(degenerate, allow_nan=False)
    numbers = [v for form in degenerate["forms"].values() for k, v in form.items() if k != "reason"]
    assert all(v is None or math.isfinite(v) for v in numbers)

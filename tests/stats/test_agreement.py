"""Agreement coefficients: alpha against the krippendorff package, the bootstrap, the kappas."""

import itertools

import krippendorff
import numpy as np
import pytest

from stats.agreement import (
    REASON_ALL_RESAMPLES_UNDEFINED,
    REASON_FEW_UNITS,
    REASON_NO_PAIRS,
    REASON_NO_RESAMPLES,
    REASON_NO_VARIATION,
    REASON_SINGLE_CATEGORY,
    alpha,
    checker_kappa,
    cohen_kappa,
    coincidences,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)

NAN = np.nan
LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def to_value_counts(reliability_data, domain):
    """Units × values counts of a raters × units matrix (NaN = missing)."""
    data = np.asarray(reliability_data, dtype=float)
    return np.stack([(data == v).sum(axis=0) for v in domain], axis=1)


def random_reliability_data(seed, raters, units, domain, missing):
    """Raters × units with agreement above chance and a share ``missing`` of ratings missing."""
    rng = np.random.default_rng(seed)
    data = rng.choice(domain, size=(raters, units)).astype(float)
    copy = rng.random((raters, units)) < 0.5  # half of the ratings copy the unit's first rating
    data[copy] = np.broadcast_to(data[0], (raters, units))[copy]
    data[rng.random((raters, units)) < missing] = NAN
    return data


# --- alpha ---------------------------------------------------------------------------------------

DOMAINS = [[1, 2, 3, 4, 5], [0, 0.5, 1], [2, 3, 5, 7, 11, 13, 17], [1000.0, 1000.5, 1002.0]]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("raters", "units", "missing"), [(2, 80, 0.2), (4, 40, 0.3), (12, 60, 0.7), (30, 25, 0.5)])
@pytest.mark.parametrize("seed", range(4))
def test_it_agrees_with_the_krippendorff_package_on_random_missing_data(level, raters, units, missing, seed):
    domain = DOMAINS[seed]
    data = random_reliability_data(seed, raters, units, domain, missing)
    expected = krippendorff.alpha(reliability_data=data, value_domain=domain, level_of_measurement=level)
    result = alpha(to_value_counts(data, domain), level, domain, n_raters=raters, n_resamples=0)
    assert result.alpha == pytest.approx(expected, abs=1e-9)
    per_unit = (~np.isnan(data)).sum(axis=0)
    assert result.n_units == int((per_unit >= 2).sum())
    assert result.n_ratings == int(per_unit[per_unit >= 2].sum())
    assert result.n_raters == raters


def paper_distances(level, values, n_c):
    """δ²_ck as printed in Krippendorff (2011), written independently of stats.agreement."""
    k = len(values)
    delta = np.zeros((k, k))
    for c, d in itertools.product(range(k), repeat=2):
        if level == "nominal":
            delta[c, d] = float(c != d)
        elif level == "ordinal":
            lo, hi = min(c, d), max(c, d)
            delta[c, d] = (sum(n_c[lo : hi + 1]) - (n_c[c] + n_c[d]) / 2) ** 2
        elif level == "interval":
            delta[c, d] = (values[c] - values[d]) ** 2
        else:
            delta[c, d] = ((values[c] - values[d]) / (values[c] + values[d])) ** 2
    return delta


@pytest.mark.parametrize("level", LEVELS)
def test_its_disagreements_follow_the_coincidence_matrix(level):
    domain = [1, 2, 3, 4, 5]
    counts = to_value_counts(random_reliability_data(7, 5, 30, domain, 0.4), domain)
    o = coincidences(counts)
    n_c, n = o.sum(axis=0), o.sum()
    delta = paper_distances(level, domain, n_c)
    result = alpha(counts, level, domain, n_resamples=0)
    assert result.observed_disagreement == pytest.approx((o * delta).sum() / n, rel=1e-12)
    assert result.expected_disagreement == pytest.approx((np.outer(n_c, n_c) * delta).sum() / (n * (n - 1)), rel=1e-12)
    assert result.alpha == pytest.approx(1 - result.observed_disagreement / result.expected_disagreement)


def test_it_matches_a_case_computed_by_hand():
    # Two units, two values. Unit 1: a, a; unit 2: a, b.
    # Coincidences: o_aa = 2/(2-1) = 2 from unit 1; unit 2 gives o_ab = o_ba = 1. n_a = 3, n_b = 1, n = 4.
    # D_o = (o_ab + o_ba) / n = 2/4 = 0.5; D_e = 2 * n_a * n_b / (n (n-1)) = 6/12 = 0.5. alpha = 1 - 1 = 0.
    result = alpha([[2, 0], [1, 1]], "nominal")
    assert result.alpha == pytest.approx(0.0, abs=1e-12)
    assert (result.n_units, result.n_ratings) == (2, 4)
    assert (result.observed_disagreement, result.expected_disagreement) == pytest.approx((0.5, 0.5))
    np.testing.assert_allclose(coincidences([[2, 0], [1, 1], [0, 1]]), [[2, 1], [1, 0]])  # unit 3 has no pair


def test_it_accepts_string_values_for_nominal_fields():
    counts = [[2, 0], [0, 2], [1, 1], [2, 0]]
    data = [["yes", "no", "yes", "yes"], ["yes", "no", "no", "yes"]]
    expected = krippendorff.alpha(reliability_data=data, value_domain=["yes", "no"], level_of_measurement="nominal")
    assert alpha(counts, "nominal", ["yes", "no"]).alpha == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_it_ignores_values_nobody_used(level):
    domain = [1, 2, 3, 4, 5]
    counts = to_value_counts(random_reliability_data(3, 4, 20, domain, 0.2), domain)
    wider = np.hstack([counts[:, :2], np.zeros((20, 1), dtype=int), counts[:, 2:], np.zeros((20, 2), dtype=int)])
    wider_domain = [1, 2, 2.5, 3, 4, 5, 6, 7]
    assert alpha(wider, level, wider_domain).alpha == pytest.approx(alpha(counts, level, domain).alpha, abs=1e-12)


def test_it_refuses_fewer_than_two_pairable_units():
    result = alpha([[2, 1], [1, 0], [0, 0]], "nominal")
    assert result.alpha is None
    assert result.reason == REASON_FEW_UNITS
    assert (result.n_units, result.n_ratings) == (1, 3)
    assert (result.ci_low, result.ci_high, result.ci_reason) == (None, None, REASON_FEW_UNITS)


def test_it_refuses_data_without_variation():
    result = alpha([[3, 0], [2, 0], [0, 0]], "ordinal")
    assert result.alpha is None
    assert result.reason == REASON_NO_VARIATION
    assert (result.n_units, result.n_ratings) == (2, 5)
    assert (result.ci_low, result.ci_high, result.ci_reason) == (None, None, REASON_NO_VARIATION)


def test_it_refuses_ratio_data_whose_only_values_cancel():
    result = alpha([[1, 1], [2, 0], [0, 2]], "ratio", [-1, 1])  # δ(-1, 1) is 0/0, taken as 0
    assert result.alpha is None and result.reason == REASON_NO_VARIATION


def test_it_handles_no_units_and_no_values():
    assert alpha(np.zeros((0, 3), dtype=int), "nominal").reason == REASON_FEW_UNITS
    assert alpha(np.zeros((4, 0), dtype=int), "nominal", []).reason == REASON_FEW_UNITS


def test_it_refuses_bad_input():
    with pytest.raises(ValueError, match="columns"):
        alpha([[1, 1]], "nominal", [1, 2, 3])
    with pytest.raises(ValueError, match="level"):
        alpha([[1, 1]], "circular")
    with pytest.raises(ValueError, match="numbers"):
        alpha([[1, 1], [2, 0]], "interval", ["low", "high"])
    with pytest.raises(ValueError, match="negative"):
        alpha([[1, -1], [2, 0]], "nominal")
    with pytest.raises(ValueError, match="whole"):
        alpha([[1.5, 1], [2, 0]], "nominal")
    with pytest.raises(ValueError, match="confidence"):
        alpha([[1, 1], [2, 0]], "nominal", confidence=95)


def test_its_result_is_plain_json():
    import json

    result = alpha(to_value_counts(random_reliability_data(1, 3, 30, [1, 2, 3], 0.1), [1, 2, 3]), "interval", [1, 2, 3])
    assert json.loads(json.dumps(result.as_dict())) == result.as_dict()


# --- the bootstrap -------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_a_resample_is_alpha_of_the_units_drawn(level):
    """The weighted sums behind each resample give alpha of the units repeated by their weights."""
    domain = [1, 2, 3, 4, 5]
    counts = to_value_counts(random_reliability_data(11, 6, 40, domain, 0.4), domain)
    counts = counts[counts.sum(axis=1) >= 2]
    patterns = krippendorff_alpha.Patterns(counts, level, np.asarray(domain, dtype=float))
    rng = np.random.default_rng(0)
    weights = rng.multinomial(len(counts), patterns.multiplicity / len(counts), size=5).astype(float)
    n, observed, expected, _ = patterns.totals(weights, exact=False)
    for row, w in enumerate(weights.astype(int)):
        units = np.repeat(patterns.rows, w, axis=0)
        reference = krippendorff.alpha(value_counts=units, value_domain=domain, level_of_measurement=level)
        assert 1 - (n[row] - 1) * observed[row] / expected[row] == pytest.approx(reference, abs=1e-9)


def reasonable_counts(seed=0, units=150):
    domain = [1, 2, 3, 4, 5]
    return to_value_counts(random_reliability_data(seed, 4, units, domain, 0.3), domain), domain


@pytest.mark.parametrize("level", LEVELS)
def test_its_interval_contains_the_estimate(level):
    counts, domain = reasonable_counts()
    result = alpha(counts, level, domain)
    assert (result.n_resamples, result.seed, result.confidence) == (1000, 0, 0.95)
    assert result.ci_low < result.alpha < result.ci_high
    assert result.ci_high - result.ci_low < 0.5
    assert result.n_resamples_undefined == 0 and result.ci_reason == ""


def test_its_interval_is_reproducible_with_the_seed():
    counts, domain = reasonable_counts()
    first = alpha(counts, "ordinal", domain, n_resamples=300, seed=42)
    assert alpha(counts, "ordinal", domain, n_resamples=300, seed=42) == first
    other = alpha(counts, "ordinal", domain, n_resamples=300, seed=43)
    assert other.alpha == first.alpha and (other.ci_low, other.ci_high) != (first.ci_low, first.ci_high)
    assert first.seed == 42


def test_its_interval_does_not_depend_on_the_batch_size(monkeypatch):
    counts, domain = reasonable_counts()
    whole = alpha(counts, "interval", domain, n_resamples=200, seed=5)
    monkeypatch.setattr(krippendorff_alpha, "BATCH_CELLS", 7)  # a few resamples per batch
    batched = alpha(counts, "interval", domain, n_resamples=200, seed=5)
    # The same draws; only the rounding of the matrix products may differ.
    assert (batched.ci_low, batched.ci_high) == pytest.approx((whole.ci_low, whole.ci_high), abs=1e-12)


def test_a_wider_confidence_gives_a_wider_interval():
    counts, domain = reasonable_counts()
    narrow = alpha(counts, "nominal", domain, confidence=0.5)
    wide = alpha(counts, "nominal", domain, confidence=0.99)
    assert wide.ci_low < narrow.ci_low < narrow.ci_high < wide.ci_high


def test_it_skips_the_bootstrap_when_asked():
    counts, domain = reasonable_counts()
    result = alpha(counts, "nominal", domain, n_resamples=0)
    assert result.alpha is not None
    assert (result.ci_low, result.ci_high, result.n_resamples) == (None, None, 0)
    assert result.ci_reason == REASON_NO_RESAMPLES


def test_it_leaves_out_and_counts_resamples_without_variation():
    # Two units: one agrees on a, one disagrees. A resample of the agreeing unit twice has no variation.
    result = alpha([[2, 0], [1, 1]], "nominal", n_resamples=400, seed=1)
    assert 50 < result.n_resamples_undefined < 150  # about a quarter of the resamples
    assert result.ci_low is not None and result.ci_low <= result.ci_high
    # Every resample of two units that agree on different values (a, a) and (b, b) has alpha 1 or none.
    only_agreement = alpha([[2, 0], [0, 2]], "nominal", n_resamples=100, seed=1)
    assert only_agreement.alpha == 1.0
    assert only_agreement.ci_high == 1.0 and only_agreement.n_resamples_undefined > 0


def test_a_resample_of_one_value_is_undefined_even_when_rounding_leaves_a_spread():
    # 0.1 × 12 / 12 is not exactly 0.1 in floating point: a resample of the (0.1, 0.1, 0.1) units alone
    # must still count as having no variation, not as a garbage alpha.
    counts = [[3, 0], [3, 0], [0, 3], [1, 2]]
    result = alpha(counts, "interval", [0.1, 0.7], n_resamples=2000, seed=2)
    # A resample has one value when it draws only the first two units (1/16) or only the third (1/256).
    assert 2000 * 0.045 < result.n_resamples_undefined < 2000 * 0.09
    assert result.ci_high <= 1.0


class FirstPatternOnly:
    """A generator whose every resample draws the first pattern only."""

    def multinomial(self, n, pvals, size):
        return np.tile([n] + [0] * (len(pvals) - 1), (size, 1))


def test_it_reports_when_every_resample_is_undefined(monkeypatch):
    monkeypatch.setattr(np.random, "default_rng", lambda seed: FirstPatternOnly())
    result = alpha([[2, 0], [1, 1]], "nominal", n_resamples=10)
    assert result.alpha is not None and result.ci_low is None
    assert (result.ci_reason, result.n_resamples_undefined) == (REASON_ALL_RESAMPLES_UNDEFINED, 10)


def test_it_bootstraps_large_data_with_few_distinct_units():
    # Many units sharing few count patterns: a resample costs one draw per pattern, not per unit.
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 5, 50_000)
    ratings = np.where(rng.random((50_000, 3)) < 0.6, truth[:, None], rng.integers(0, 5, (50_000, 3)))
    counts = np.stack([(ratings == v).sum(axis=1) for v in range(5)], axis=1)
    result = alpha(counts, "ordinal", n_resamples=1000)
    assert result.ci_low < result.alpha < result.ci_high
    assert result.ci_high - result.ci_low < 0.05


# --- Cohen's kappa -------------------------------------------------------------------------------


def kappa_by_the_textbook(a, b, categories, weights):
    """Cohen (1968) with agreement weights 1 - d/d_max: κ_w = (p_o(w) - p_e(w)) / (1 - p_e(w))."""
    k, n = len(categories), len(a)
    position = {c: i for i, c in enumerate(categories)}
    p = np.zeros((k, k))
    for x, y in zip(a, b):
        p[position[x], position[y]] += 1 / n
    row, col = p.sum(axis=1), p.sum(axis=0)
    p_o = p_e = 0.0
    for i in range(k):
        for j in range(k):
            if weights == "none":
                w = 1.0 if i == j else 0.0
            elif weights == "linear":
                w = 1 - abs(i - j) / (k - 1)
            else:
                w = 1 - (i - j) ** 2 / (k - 1) ** 2
            p_o += w * p[i, j]
            p_e += w * row[i] * col[j]
    return (p_o - p_e) / (1 - p_e), p_o, p_e


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
@pytest.mark.parametrize("seed", range(5))
def test_kappa_agrees_with_the_textbook_formula(weights, seed):
    rng = np.random.default_rng(seed)
    categories = ["a", "b", "c", "d", "e", "f"][: 3 + seed % 4]
    a = rng.choice(categories, 60).tolist()
    b = [x if rng.random() < 0.6 else rng.choice(categories) for x in a]
    expected, p_o, p_e = kappa_by_the_textbook(a, b, categories, weights)
    result = cohen_kappa(a, b, weights=weights, categories=categories)
    assert result.kappa == pytest.approx(expected, abs=1e-12)
    assert (result.observed_agreement, result.expected_agreement) == pytest.approx((p_o, p_e), abs=1e-12)
    assert cohen_kappa(b, a, weights=weights, categories=categories).kappa == pytest.approx(result.kappa)


# Pairs (1, 2), (2, 2), (4, 4): three used categories, 3 unused unless listed. Worked by hand:
# unweighted p_o = 2/3, p_e = 1/3 → 1/2 either way. Linear over [1, 2, 4] (distances 1, 2, 1):
# D_o = 1/3, D_e = 7/9 → 4/7; over [1, 2, 3, 4] (distances 1, 3, 2): D_e = 11/9 → 8/11.
# Quadratic: [1, 2, 4]: D_e = 1 → 2/3; [1, 2, 3, 4]: D_e = 23/9 → 20/23.
@pytest.mark.parametrize(
    ("weights", "without_3", "with_3"),
    [("none", 1 / 2, 1 / 2), ("linear", 4 / 7, 8 / 11), ("quadratic", 2 / 3, 20 / 23)],
)
def test_an_unused_category_keeps_its_position_in_weighted_kappa(weights, without_3, with_3):
    a, b = [1, 2, 4], [2, 2, 4]
    default = cohen_kappa(a, b, weights=weights)
    assert default.categories == [1, 2, 4]
    assert default.kappa == pytest.approx(without_3)
    listed = cohen_kappa(a, b, weights=weights, categories=[1, 2, 3, 4])
    assert listed.kappa == pytest.approx(with_3)
    assert listed.categories == [1, 2, 3, 4]


def test_kappa_drops_items_with_a_missing_side():
    result = cohen_kappa(["x", None, "y", "x", NAN], ["x", "y", None, "y", "x"])
    assert (result.n_pairs, result.n_dropped) == (2, 3)
    assert result.kappa == cohen_kappa(["x", "x"], ["x", "y"]).kappa


def test_kappa_is_none_without_pairs_or_variation():
    assert cohen_kappa([None, "x"], ["y", None]).reason == REASON_NO_PAIRS
    same = cohen_kappa(["x", "x"], ["x", "x"])
    assert same.kappa is None and same.reason == REASON_SINGLE_CATEGORY
    assert same.observed_agreement == 1.0


def test_kappa_refuses_bad_input():
    with pytest.raises(ValueError, match="different numbers"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(ValueError, match="not in categories"):
        cohen_kappa([1, 2], [1, 5], categories=[1, 2, 3])
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match="categories"):
        cohen_kappa([1, "a"], [1, "a"], weights="linear")
    with pytest.raises(ValueError, match="duplicates"):
        cohen_kappa([1, 2], [1, 2], categories=[1, 2, 1])
    assert cohen_kappa([1, "a", 1], [1, "a", "a"]).kappa == pytest.approx(0.4)  # unordered is fine unweighted


def test_a_checker_is_compared_with_every_annotator_they_reviewed():
    reviews = [
        ("img1", "good", "good"),  # img1 reviewed for three annotators
        ("img1", "good", "good"),
        ("img1", "bad", "good"),
        ("img2", "bad", "bad"),
        ("img2", "good", "good"),
        ("img3", "bad", None),  # not reviewed
    ]
    result = checker_kappa(reviews)
    assert (result.n_reviews, result.n_units, result.n_dropped) == (5, 2, 1)
    assert result.acceptance_rate == pytest.approx(4 / 5)
    annotator, checker = ["good", "good", "bad", "bad", "good"], ["good", "good", "good", "bad", "good"]
    assert result.kappa == pytest.approx(cohen_kappa(annotator, checker).kappa)
    # By hand: p_o = 4/5; annotator good 3/5, checker good 4/5: p_e = 12/25 + 2/25 = 14/25 → κ = 6/11.
    assert result.kappa == pytest.approx(6 / 11)
    assert checker_kappa([]).acceptance_rate is None


# --- Fleiss' kappa and percent agreement ---------------------------------------------------------


def test_fleiss_refuses_units_with_different_numbers_of_ratings():
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss_kappa([[2, 1], [1, 1]])
    with pytest.raises(ValueError, match="at least 2"):
        fleiss_kappa([[1, 0], [0, 1]])


def test_fleiss_is_none_without_variation_or_units():
    result = fleiss_kappa([[3, 0], [3, 0]])
    assert result.kappa is None and result.reason == REASON_SINGLE_CATEGORY
    assert fleiss_kappa(np.zeros((0, 2), dtype=int)).kappa is None


def test_fleiss_matches_the_formula_on_random_counts():
    rng = np.random.default_rng(3)
    counts = rng.multinomial(6, [0.5, 0.3, 0.2], size=40)
    n, r = counts.shape[0], 6
    p_j = counts.sum(axis=0) / (n * r)
    p_bar = np.mean([(row @ row - r) / (r * (r - 1)) for row in counts])
    expected = (p_bar - p_j @ p_j) / (1 - p_j @ p_j)
    assert fleiss_kappa(counts).kappa == pytest.approx(expected, abs=1e-12)


def test_percent_agreement_is_the_mean_share_of_agreeing_pairs():
    # Unit 1: a a b → 1 of 3 pairs agree; unit 2: a a → 1 of 1; unit 3: one rating, left out.
    result = percent_agreement([[2, 1], [2, 0], [0, 1]])
    assert result.agreement == pytest.approx((1 / 3 + 1) / 2)
    assert (result.n_units, result.n_ratings) == (2, 5)
    assert percent_agreement([[1, 0], [0, 0]]).agreement is None

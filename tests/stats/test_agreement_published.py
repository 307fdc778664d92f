"""Agreement coefficients against the values published with worked examples."""

import krippendorff
import numpy as np
import pytest

from stats.agreement import (
    alpha,
    cohen_kappa,
    coincidences,
    fleiss_kappa,
    percent_agreement,
)

NAN = np.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders, 12 units,
# values 1-5, missing data. Rows are coders A-D, columns units 1-12.
K2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
K2011_DOMAIN = [1, 2, 3, 4, 5]
K2011_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


def k2011_counts():
    return np.stack([(K2011 == v).sum(axis=0) for v in K2011_DOMAIN], axis=1)


@pytest.mark.parametrize("level", K2011_ALPHA)
def test_it_reproduces_krippendorffs_2011_worked_example(level):
    result = alpha(k2011_counts(), level, K2011_DOMAIN)
    assert round(result.alpha, 3) == K2011_ALPHA[level]
    # The krippendorff package reproduces the paper too, from the raw reliability data.
    package = krippendorff.alpha(reliability_data=K2011, value_domain=K2011_DOMAIN, level_of_measurement=level)
    assert round(package, 3) == K2011_ALPHA[level]
    assert result.alpha == pytest.approx(package, abs=1e-12)
    # Unit 12 has a single value: it cannot be paired. 11 units, 40 pairable values (n..).
    assert (result.n_units, result.n_ratings) == (11, 40)


def test_it_reproduces_the_coincidence_matrix_of_the_2011_example():
    o = coincidences(k2011_counts())
    third = 1 / 3
    paper = [
        [7, 4 * third, third, third, 0],
        [4 * third, 10, 4 * third, third, 0],
        [third, 4 * third, 8, third, 0],
        [third, third, third, 4, 0],
        [0, 0, 0, 0, 3],
    ]
    np.testing.assert_allclose(o, paper, atol=1e-12)
    np.testing.assert_allclose(o.sum(axis=0), [9, 13, 10, 5, 3])  # n_c; n.. = 40


def test_it_reproduces_the_2011_nominal_disagreements():
    # Nominal: D_o = Σ_{c≠k} o_ck / n.. = 8/40; D_e = Σ_{c≠k} n_c n_k / (n.. (n.. - 1)) = 1216/1560.
    result = alpha(k2011_counts(), "nominal", K2011_DOMAIN)
    assert result.observed_disagreement == pytest.approx(8 / 40)
    assert result.expected_disagreement == pytest.approx((40**2 - (81 + 169 + 100 + 25 + 9)) / (40 * 39))


# Wikipedia, "Fleiss' kappa", worked example (after Fleiss 1971): 10 subjects, 14 raters, 5 categories.
FLEISS_WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_it_reproduces_the_fleiss_kappa_example():
    result = fleiss_kappa(FLEISS_WIKIPEDIA)
    assert round(result.kappa, 3) == 0.210
    assert round(result.observed_agreement, 3) == 0.378  # P̄
    assert round(result.expected_agreement, 3) == 0.213  # P̄_e
    assert (result.n_units, result.n_raters) == (10, 14)
    # P̄ is the mean share of agreeing pairs per subject: percent agreement.
    assert percent_agreement(FLEISS_WIKIPEDIA).agreement == pytest.approx(result.observed_agreement)


def test_it_reproduces_the_cohen_kappa_example():
    # Wikipedia, "Cohen's kappa": 50 proposals; both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    result = cohen_kappa(a, b)
    assert result.observed_agreement == pytest.approx(0.7)
    assert result.expected_agreement == pytest.approx(0.5)
    assert result.kappa == pytest.approx(0.4)
    assert result.n_pairs == 50


def test_it_reproduces_scikit_learns_published_kappas():
    # The values scikit-learn's own test suite asserts for cohen_kappa_score (test_cohen_kappa).
    y1 = [0] * 40 + [1] * 60
    y2 = [0] * 20 + [1] * 20 + [0] * 10 + [1] * 50
    assert round(cohen_kappa(y1, y2).kappa, 3) == 0.348
    assert round(cohen_kappa([0] * 46 + [1] * 44 + [2] * 10, [0] * 52 + [1] * 32 + [2] * 16).kappa, 4) == 0.8013
    y1 = [0] * 46 + [1] * 44 + [2] * 10
    y2 = [0] * 50 + [1] * 40 + [2] * 10
    assert round(cohen_kappa(y1, y2).kappa, 4) == 0.9315
    assert round(cohen_kappa(y1, y2, weights="linear").kappa, 4) == 0.9412
    assert round(cohen_kappa(y1, y2, weights="quadratic").kappa, 4) == 0.9541

"""Spearman's rho from counted ranks (stats.correlation.estimates.spearman), checked against scipy."""

import numpy as np
import pytest
from scipy import stats

from stats.correlation import estimates
from stats.correlation.estimates import average_ranks, correlate, spearman


@pytest.mark.parametrize(("n", "distinct"), [(3, 2), (10, 3), (1000, 5), (20_000, 41), (5000, 100_000)])
def test_ranks_and_rho_are_scipys(n, distinct):
    rng = np.random.default_rng(n)
    x = rng.integers(0, distinct, n) / 2
    y = (x + rng.integers(0, distinct, n)) / 3
    assert np.array_equal(average_ranks(x), stats.rankdata(x))
    ours, theirs = spearman(x, y), stats.spearmanr(x, y)
    assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-14)
    assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-300)


def test_many_distinct_values_are_ranked_by_a_sort(monkeypatch):
    monkeypatch.setattr(estimates, "COUNTED_RANKS_MAX", 3)
    x = np.array([0.5, 3.0, 0.5, 2.0, 7.0, 3.0])
    assert np.array_equal(average_ranks(x), stats.rankdata(x))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_perfect_order_has_rho_one_and_p_zero(sign):
    x = np.arange(10.0)
    ours, theirs = spearman(x, sign * x), stats.spearmanr(x, sign * x)
    assert ours.statistic == pytest.approx(sign) and ours.statistic == theirs.statistic
    assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-60)


def test_correlate_refuses_as_before_and_answers_with_counted_ranks():
    assert correlate([1, 1, 1], [1, 2, 3], "spearman").reason.startswith("no variation")
    assert correlate([1, 2], [1, 2], "spearman").value is None
    got = correlate([1, 2, 2, 3, None], [2, 1, 4, 3, 9], "spearman")
    expected = stats.spearmanr([1, 2, 2, 3], [2, 1, 4, 3])
    assert got.n == 4 and got.value == pytest.approx(expected.statistic)
    assert got.p_value == pytest.approx(expected.pvalue)

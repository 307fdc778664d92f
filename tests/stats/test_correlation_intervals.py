"""Spearman's and Kendall's intervals: the bootstrap up to a number of units, the large-sample
formulas above it, and no jump where one gives way to the other. Pure, no database."""

import json

import numpy as np
import pytest

from stats.correlation import coefficients, estimates, metric_correlations
from stats.correlation.estimates import (
    BOOTSTRAP_MAX_UNITS,
    bonett_wright_interval,
    bootstrap_statistics,
    fieller_interval,
)

# How far the large-sample bounds may be from the bootstrap's around the switch; on the data below
# they differ by at most 0.003 (1,000 resamples vary a bound by about 0.001 themselves).
SWITCH_TOLERANCE = 0.005


def test_bonett_wright_by_hand():
    # rho 0.5 over 103 pairs: se = sqrt((1 + 0.25/2) / 100) = 0.10606602, atanh 0.5 = 0.54930614,
    # ± 1.95996398 · se = [0.34142057, 0.75719172], tanh: [0.32874503, 0.63941985].
    assert bonett_wright_interval(0.5, 103) == pytest.approx((0.3287450309, 0.6394198470), abs=1e-9)
    # rho −0.8 over 53 pairs: se = sqrt(1.32 / 50) = 0.16248077, atanh −0.8 = −1.09861229.
    assert bonett_wright_interval(-0.8, 53) == pytest.approx((-0.8889858268, -0.6527961421), abs=1e-9)
    # 90%: z 1.64485363
    assert bonett_wright_interval(0.5, 103, 0.90) == pytest.approx(
        (np.tanh(0.5493061443 - 1.6448536270 * 0.1060660172), np.tanh(0.5493061443 + 1.6448536270 * 0.1060660172)),
        abs=1e-9,
    )


def test_fieller_hartley_pearson_by_hand():
    # tau 0.3 over 441 pairs: se = sqrt(0.437 / 437) = 0.03162278, atanh 0.3 = 0.30951960,
    # ± 1.95996398 · se = [0.24754010, 0.37149911], tanh: [0.24260493, 0.35530227].
    assert fieller_interval(0.3, 441) == pytest.approx((0.2426049315, 0.3553022701), abs=1e-9)


def test_the_formulas_edge_cases():
    assert bonett_wright_interval(0.5, 3) == (None, None)
    assert fieller_interval(0.5, 4) == (None, None)
    assert bonett_wright_interval(1.0, 50) == (1.0, 1.0)
    assert fieller_interval(-1.0, 50) == (-1.0, -1.0)


def bivariate_normal(n: int, r: float = 0.5, seed: int = 0):
    xy = np.random.default_rng(seed).multivariate_normal([0, 0], [[1, r], [r, 1]], size=n)
    return xy[:, 0], xy[:, 1]


def test_the_switch_is_exactly_at_the_threshold_counting_pairs_without_a_missing_value():
    x, y = bivariate_normal(BOOTSTRAP_MAX_UNITS + 1)
    below = coefficients(np.append(x[:-1], np.nan), y, n_boot=20)  # one pair missing: at the threshold
    assert below["spearman"].n == BOOTSTRAP_MAX_UNITS
    for m in ("spearman", "kendall"):
        assert below[m].interval == "bootstrap" and below[m].resamples == 20
    above = coefficients(x, y, n_boot=20)
    s, k = above["spearman"], above["kendall"]
    assert s.n == BOOTSTRAP_MAX_UNITS + 1
    assert (s.interval, s.resamples) == ("bonett-wright", None)
    assert (k.interval, k.resamples) == ("fieller-hartley-pearson", None)
    assert (s.ci_low, s.ci_high) == bonett_wright_interval(s.value, s.n)
    assert (k.ci_low, k.ci_high) == fieller_interval(k.value, k.n)
    assert above["pearson"].interval == below["pearson"].interval == "fisher-z"


def test_large_sample_intervals_need_no_resamples_and_follow_the_level():
    x, y = bivariate_normal(BOOTSTRAP_MAX_UNITS + 10, seed=3)
    found = coefficients(x, y, n_boot=0, level=0.9)
    assert found["kendall"].interval == "fieller-hartley-pearson"
    kendall = found["kendall"]
    assert (kendall.ci_low, kendall.ci_high) == fieller_interval(kendall.value, kendall.n, 0.9)
    small = coefficients(x[:100], y[:100], n_boot=0)
    assert small["spearman"].interval is None and small["spearman"].ci_low is None
    assert small["pearson"].interval == "fisher-z"


def human_like(n: int, seed: int):
    """A metric against the mean of three 1–5 ratings: the human side heavily tied."""
    rng = np.random.default_rng(seed)
    latent = rng.random(n)
    human = np.clip(np.rint(1 + 4 * latent[:, None] + rng.normal(0, 0.8, (n, 3))), 1, 5).mean(axis=1)
    return latent + rng.normal(0, 0.3, n), human


@pytest.mark.parametrize("data", ["normal, r 0.5", "normal, r 0.9", "ties"])
def test_the_intervals_do_not_jump_at_the_switch(data, monkeypatch):
    """One pair more crosses the threshold: the large-sample bounds are those of the bootstrap,
    within SWITCH_TOLERANCE, on the same data either side."""
    n = BOOTSTRAP_MAX_UNITS + 1
    x, y = human_like(n, 1) if data == "ties" else bivariate_normal(n, 0.9 if "0.9" in data else 0.5, seed=2)
    below = coefficients(x[:-1], y[:-1], n_boot=1000, rng=np.random.default_rng(7))
    above = coefficients(x, y, n_boot=1000, rng=np.random.default_rng(7))
    monkeypatch.setattr(estimates, "DENSE_KENDALL_MAX", n)  # the bootstrap of the larger data, quickly
    boot = bootstrap_statistics(x, y, n_boot=1000, rng=np.random.default_rng(7))
    for m, formula in (("spearman", bonett_wright_interval), ("kendall", fieller_interval)):
        assert below[m].interval == "bootstrap" and above[m].interval != "bootstrap"
        bounds_below, bounds_above = (below[m].ci_low, below[m].ci_high), (above[m].ci_low, above[m].ci_high)
        assert bounds_above == pytest.approx(bounds_below, abs=SWITCH_TOLERANCE)
        # and on each side, the other method over the same data
        assert formula(below[m].value, below[m].n) == pytest.approx(bounds_below, abs=SWITCH_TOLERANCE)
        assert tuple(np.percentile(boot[m], [2.5, 97.5])) == pytest.approx(bounds_above, abs=SWITCH_TOLERANCE)


def test_the_json_names_each_interval_and_the_threshold():
    n = BOOTSTRAP_MAX_UNITS + 1
    x, _ = bivariate_normal(n, seed=4)
    human = [(i, "IN", rater, float(round(2 * x[i]) + rater)) for i in range(n) for rater in (1, 2)]
    metric = [(i, None, "m", float(x[i])) for i in range(n)]
    d = metric_correlations(human, metric, n_boot=10).as_dict()
    json.dumps(d, allow_nan=False)
    intervals = {m: c["interval"] for m, c in d["metrics"][0]["coefficients"].items()}
    assert intervals == {"pearson": "fisher-z", "spearman": "bonett-wright", "kendall": "fieller-hartley-pearson"}
    assert d["metrics"][0]["coefficients"]["kendall"]["resamples"] is None
    assert d["settings"]["bootstrap_max_units"] == BOOTSTRAP_MAX_UNITS

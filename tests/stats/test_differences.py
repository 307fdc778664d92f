"""Differences between countries: alpha and mean rating per pair of pools and against the rest,
checked against the ``krippendorff`` package and a naive permutation and bootstrap over units."""

import krippendorff
import numpy as np
import pytest

from stats.agreement.base import REASON_FEW_UNITS
from stats.agreement.differences import REST, holm, pool_differences
from tests.stats.rated import rated_units

DOMAIN = [1, 2, 3, 4, 5]


pool = rated_units


def k_alpha(counts, level="ordinal"):
    return krippendorff.alpha(value_counts=counts, level_of_measurement=level, value_domain=DOMAIN)


def test_holm_matches_the_published_step_down():
    # R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.2, None, 0.9]) == pytest.approx([0.4, None, 0.9])
    assert holm([]) == []


def test_each_pair_and_each_pool_against_the_rest_with_the_packages_alpha():
    rng = np.random.default_rng(1)
    sides = {"IN": pool(rng, 120, 0.8), "JP": pool(rng, 120, 0.4), "FR": pool(rng, 100, 0.8)}
    counts = np.vstack(list(sides.values()))
    labels = [p for p, rows in sides.items() for _ in rows]
    result = pool_differences(counts, labels, "ordinal", DOMAIN, n_resamples=300, n_permutations=300)

    pairs = {(r["a"], r["b"], r["statistic"]): r for r in result["pairs"]}
    assert set(pairs) == {(a, b, s) for a, b in [("IN", "JP"), ("IN", "FR"), ("JP", "FR")] for s in ("alpha", "mean")}
    for (a, b, statistic), row in pairs.items():
        if statistic == "alpha":
            assert row["value_a"] == pytest.approx(k_alpha(sides[a]))
            assert row["value_b"] == pytest.approx(k_alpha(sides[b]))
        else:
            mean = lambda c: (c @ np.array(DOMAIN)).sum() / c.sum()  # noqa: E731
            assert row["value_a"] == pytest.approx(mean(sides[a]))
        assert row["difference"] == pytest.approx(row["value_a"] - row["value_b"])
        assert row["ci_low"] < row["difference"] < row["ci_high"]
        assert 0 < row["p_value"] <= row["p_holm"] <= 1
    # India agrees far more than Japan: the difference is clear; India and France alike: it is not.
    assert pairs[("IN", "JP", "alpha")]["p_holm"] < 0.01 and pairs[("IN", "JP", "alpha")]["ci_low"] > 0
    assert pairs[("IN", "FR", "alpha")]["ci_low"] < 0 < pairs[("IN", "FR", "alpha")]["ci_high"]

    rest = {(r["a"], r["statistic"]): r for r in result["vs_rest"]}
    assert {r["b"] for r in result["vs_rest"]} == {REST}
    others = np.vstack([sides["JP"], sides["FR"]])
    assert rest[("IN", "alpha")]["value_b"] == pytest.approx(k_alpha(others))
    assert rest[("IN", "alpha")]["n_units_b"] == 220


def test_the_permutation_p_value_and_the_bootstrap_interval_agree_with_a_naive_loop_over_units():
    rng = np.random.default_rng(7)
    a, b = pool(rng, 40, 0.75), pool(rng, 40, 0.55)
    result = pool_differences(np.vstack([a, b]), ["a"] * 40 + ["b"] * 40, "ordinal", DOMAIN,
                              n_resamples=2000, n_permutations=2000, seed=3)
    row = next(r for r in result["pairs"] if r["statistic"] == "alpha")
    observed = k_alpha(a) - k_alpha(b)
    assert row["difference"] == pytest.approx(observed)

    naive = np.random.default_rng(11)
    both = np.vstack([a, b])
    permuted = []
    for _ in range(2000):
        order = naive.permutation(80)
        permuted.append(k_alpha(both[order[:40]]) - k_alpha(both[order[40:]]))
    p_naive = (1 + np.sum(np.abs(permuted) >= abs(observed))) / 2001
    assert row["p_value"] == pytest.approx(p_naive, abs=0.03)  # two Monte Carlo estimates of one p

    boot = [k_alpha(a[naive.integers(40, size=40)]) - k_alpha(b[naive.integers(40, size=40)]) for _ in range(2000)]
    low, high = np.quantile(boot, [0.025, 0.975])
    assert row["ci_low"] == pytest.approx(low, abs=0.04)
    assert row["ci_high"] == pytest.approx(high, abs=0.04)


def test_the_same_data_twice_differ_by_nothing_and_nominal_has_no_mean():
    rng = np.random.default_rng(2)
    same = pool(rng, 60, 0.7)
    result = pool_differences(np.vstack([same, same]), ["x"] * 60 + ["y"] * 60, "nominal", None,
                              n_resamples=200, n_permutations=200)
    (row,) = result["pairs"]
    assert row["statistic"] == "alpha" and row["difference"] == pytest.approx(0)
    assert row["p_value"] > 0.5
    assert result["vs_rest"] == []  # two pools: each against the rest is the pair itself


def test_too_few_units_and_no_variation_say_why_and_thin_pools_are_flagged():
    rng = np.random.default_rng(3)
    big, one = pool(rng, 50, 0.8), pool(rng, 1, 0.8)
    flat = np.zeros((12, 5), dtype=int)
    flat[:, 2] = 3  # every annotator answered 3: alpha undefined
    counts = np.vstack([big, one, flat])
    labels = ["big"] * 50 + ["one"] + ["flat"] * 12
    result = pool_differences(counts, labels, "interval", DOMAIN, n_resamples=50, n_permutations=50)
    rows = {(r["a"], r["b"], r["statistic"]): r for r in result["pairs"]}
    assert rows[("big", "one", "alpha")]["difference"] is None
    assert rows[("big", "one", "alpha")]["reason"] == REASON_FEW_UNITS
    flat_alpha = rows[("big", "flat", "alpha")]
    assert flat_alpha["difference"] is None and "no variation" in flat_alpha["reason"]
    assert rows[("big", "flat", "mean")]["difference"] is not None  # a mean needs no variation
    assert "only 12 units" in flat_alpha["thin"]
    assert rows[("big", "flat", "mean")]["p_holm"] is not None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"level": "rank"}, "unknown level"),
    ({"pool_of_unit": ["a"]}, "pool_of_unit has 1 entries"),
    ({"value_domain": [1, 2]}, "value_domain has 2 values"),
    ({"n_permutations": -1}, "cannot be negative"),
    ({"confidence": 1.0}, "confidence"),
])
def test_bad_input_is_refused(kwargs, message):
    args = {"value_counts": np.ones((4, 5), dtype=int), "pool_of_unit": ["a", "a", "b", "b"], "level": "ordinal",
            "value_domain": DOMAIN} | kwargs
    with pytest.raises(ValueError, match=message):
        pool_differences(**args)


def test_enough_permutations_for_holms_correction_across_many_countries():
    from stats.agreement.differences import permutations_for

    assert permutations_for(2, 1000) == 1000
    assert permutations_for(11, 1000) == 40 * 55  # 1,000 could never give an adjusted p below 55/1001
    assert 55 / (permutations_for(11, 1000) + 1) < 0.05
    assert permutations_for(10, 0) == 0  # no resamples asked for: no intervals, no p-values


class CountingRng:
    """A generator that counts the permutations drawn through it."""

    def __init__(self, seed):
        self.rng, self.drawn = np.random.default_rng(seed), 0

    def multivariate_hypergeometric(self, colors, nsample, size):
        self.drawn += size
        return self.rng.multivariate_hypergeometric(colors, nsample, size=size)


def test_a_settled_p_value_stops_early_and_agrees_with_every_permutation(monkeypatch):
    from stats.agreement import differences

    rng = np.random.default_rng(5)
    like = np.vstack([pool(rng, 80, 0.6), pool(rng, 80, 0.6)])
    unlike = np.vstack([pool(rng, 80, 0.6), pool(rng, 80, 0.95)])

    def p_value(counts):
        study = differences._Pools(counts, np.repeat([0, 1], 80), 2, "nominal", np.arange(5))
        point = study.figure("alpha", study.weights, exact=True)
        counting = CountingRng(1)
        p = differences._permuted(study, study.weights.sum(axis=0), 80, {"alpha": point[0] - point[1]}, 3000,
                                  counting)
        return p["alpha"], counting.drawn

    settled, drawn = p_value(like)
    assert drawn < 3000 and settled > 0.05  # the like pair stopped once 20 permutations were as extreme
    rare, drawn = p_value(unlike)
    assert drawn == 3000 and rare == pytest.approx(1 / 3001)  # a rare difference gets every permutation
    monkeypatch.setattr(differences, "ENOUGH_EXTREME", 10**9)
    full, drawn = p_value(like)
    assert drawn == 3000 and settled == pytest.approx(full, abs=0.12)

"""Correlations within many groups at once (the human–human baseline): pure, no database.

scipy.stats is the reference, group by group; ``correlate`` is the reference for the reasons."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stats.correlation import correlate, grouped, grouped_correlations, rater_baseline
from stats.correlation.estimates import METHODS

REFERENCE = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def random_groups(seed: int, n_groups: int = 300, largest: int = 60):
    """Groups of 1..largest pairs with many ties (a 1–5 scale against means of a few such values),
    in shuffled order; some groups constant on one side. Past ``LARGE_GROUP`` values, tau-b is scipy's."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, largest + 1, size=n_groups)
    groups = np.repeat(np.arange(n_groups), sizes)
    x = rng.integers(1, 6, size=len(groups)).astype(float)
    y = np.round((x + rng.integers(1, 6, size=len(groups))) / rng.integers(1, 4, size=len(groups)), 1)
    x[groups % 17 == 3] = 2.0  # constant rater
    y[groups % 19 == 5] = 4.5  # constant others
    order = rng.permutation(len(groups))
    return x[order], y[order], groups[order]


def check_against_scipy(x, y, groups, found, min_n=3, names=("x", "y")):
    for g in range(len(found.n)):
        mine = groups == g
        assert found.n[g] == mine.sum()
        for m in METHODS:
            expected = correlate(x[mine], y[mine], m, min_n=min_n, names=names)
            assert found.reasons[m][g] == expected.reason
            if expected.value is None:
                assert math.isnan(found.values[m][g]) and found.value(m, g) is None
            else:
                reference = REFERENCE[m](x[mine], y[mine]).statistic
                assert found.values[m][g] == pytest.approx(reference, abs=1e-12)


@pytest.mark.parametrize(("seed", "largest"), [(0, 60), (1, 60), (2, 60), (3, 2 * grouped.LARGE_GROUP)])
def test_each_group_equals_scipy_with_ties(seed, largest):
    x, y, groups = random_groups(seed, n_groups=300 if largest == 60 else 60, largest=largest)
    found = grouped_correlations(x, y, groups)
    check_against_scipy(x, y, groups, found)
    assert {r for m in METHODS for r in found.reasons[m]} == {
        "", "fewer than 3 paired values", "no variation: every x value is the same",
        "no variation: every y value is the same",
    }


def test_it_gives_the_reasons_correlate_gives_naming_the_sides():
    x = [1, 2, 3, 4, 1, 1, 1, 5, 6, 7, 1, 2, 3]
    y = [1, 2, 1, 4, 2, 3, 4, 5, 5, 5, 9, 8, 7]
    groups = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4]
    found = grouped_correlations(x, y, groups, names=("rater's", "others' mean"), n_groups=6)
    assert list(found.n) == [4, 3, 3, 2, 1, 0]
    assert list(found.reasons["kendall"]) == [
        "",
        "no variation: every rater's value is the same",
        "no variation: every others' mean value is the same",
        "fewer than 3 paired values",
        "fewer than 3 paired values",
        "fewer than 3 paired values",
    ]
    assert found.value("pearson", 0) == pytest.approx(stats.pearsonr([1, 2, 3, 4], [1, 2, 1, 4]).statistic, abs=1e-12)
    assert found.value("spearman", 2) is None


def test_it_leaves_out_pairs_with_a_missing_value_and_takes_min_n():
    x = [1, 2, np.nan, 3, 4, 1, 2]
    y = [1, 3, 5, np.nan, 2, 2, 1]
    groups = [0, 0, 0, 0, 0, 1, 1]
    found = grouped_correlations(x, y, groups, min_n=2)
    assert list(found.n) == [3, 2]
    assert found.value("spearman", 0) == pytest.approx(stats.spearmanr([1, 2, 4], [1, 3, 2]).statistic, abs=1e-12)
    assert found.value("pearson", 1) == pytest.approx(-1.0) and found.value("kendall", 1) == pytest.approx(-1.0)
    few = grouped_correlations(x, y, groups, min_n=4)
    assert set(few.reasons["pearson"]) == {"fewer than 4 paired values"}


def test_nothing_at_all_is_not_a_crash():
    found = grouped_correlations([], [], [])
    assert len(found.n) == 0 and all(len(found.values[m]) == 0 for m in METHODS)


def test_pairs_are_enumerated_in_bounded_blocks_with_the_same_result(monkeypatch):
    x, y, groups = random_groups(4, n_groups=80)
    whole = grouped_correlations(x, y, groups)
    monkeypatch.setattr(grouped, "PAIR_BLOCK", 50)  # smaller than a group's pairs: one group at a time
    blocks = grouped_correlations(x, y, groups)
    np.testing.assert_array_equal(blocks.values["kendall"], whole.values["kendall"])


def test_a_large_group_takes_scipys_tau():
    rng = np.random.default_rng(7)
    size = grouped.LARGE_GROUP + 1
    x = np.concatenate([rng.integers(1, 6, size), [1, 2, 3, 4]]).astype(float)
    y = np.round(x + rng.normal(size=len(x)))
    groups = np.array([0] * size + [1] * 4)
    found = grouped_correlations(x, y, groups)
    check_against_scipy(x, y, groups, found)


def test_the_baseline_is_the_one_computed_rater_by_rater():
    """rater_baseline before it went vectorised: three ``correlate`` calls per rater."""
    rng = np.random.default_rng(11)
    n = 4000
    frame = pd.DataFrame({
        "item": rng.integers(0, 600, n), "country": np.array(["IN", "US", None], dtype=object)[rng.integers(0, 3, n)],
        "rater": rng.integers(0, 150, n), "value": rng.integers(1, 4, n).astype(float),
    }).groupby(["item", "country", "rater"], dropna=False, as_index=False)["value"].mean()
    for per_country in (False, True):
        units = ["item", "country"] if per_country else ["item"]
        by_unit = frame.groupby(units, dropna=False)["value"]
        total, count = by_unit.transform("sum"), by_unit.transform("count")
        shared = frame[count >= 2].assign(others=((total - frame["value"]) / (count - 1))[count >= 2])
        expected, left_out = [], {}
        for key, group in shared.groupby(["rater", "country"] if per_country else ["rater"], dropna=False):
            found = {
                m: correlate(group["value"], group["others"], m, names=("rater's", "others' mean")) for m in METHODS
            }
            if all(c.value is None for c in found.values()):
                left_out[found["pearson"].reason] = left_out.get(found["pearson"].reason, 0) + 1
                continue
            country = (None if key[1] is None or key[1] != key[1] else key[1]) if per_country else None
            expected.append((int(key[0]), country, len(group), *(found[m].value for m in METHODS)))
        baseline = rater_baseline(frame, per_country=per_country)
        assert baseline.left_out == left_out
        assert len(baseline.raters) == len(expected)
        for row, want in zip(baseline.raters, expected):
            assert row[:3] == want[:3] and type(row[0]) is int
            assert row[3:] == pytest.approx(want[3:], abs=1e-12)

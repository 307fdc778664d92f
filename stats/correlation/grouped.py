"""Pearson, Spearman and Kendall's tau-b within each of many groups at once. Pure: no Django.

The human–human baseline correlates each rater's values with the others' means over the units the
rater rated: tens of thousands of small groups (about 25 values each in a study of a million
ratings). Three scipy calls per group take tens of seconds; here every group is done at once with
numpy, and each coefficient equals scipy's (``pearsonr``, ``spearmanr``, ``kendalltau``) on that
group to rounding:

- Pearson from per-group sums of centred values (``np.bincount``; two passes, as scipy, so no
  cancellation): r = Σ dx dy / sqrt(Σ dx² Σ dy²).
- Spearman: Pearson of the average ranks within each group (ties share the mean of their ranks).
- Kendall's tau-b: S = Σ sign(x_i − x_j) sign(y_i − y_j) over the pairs i < j of each group, the
  pairs enumerated with numpy a block of groups at a time (at most ``PAIR_BLOCK`` pairs held at
  once), and tau_b = S / sqrt((n0 − n1)(n0 − n2)), n0 = n(n − 1)/2 and n1, n2 the pairs tied in x,
  in y. A group of more than ``LARGE_GROUP`` values (its n²/2 pairs would cost more than one call
  of scipy's n log n ``kendalltau``) takes scipy instead.

A group with a coefficient undefined has NaN and a reason, the reasons ``correlate`` gives: fewer
than ``min_n`` pairs; no variation (the side named by ``names``, x checked first); undefined.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .estimates import METHODS, MIN_N, REASON_FEW, REASON_NO_VARIATION, REASON_UNDEFINED

PAIR_BLOCK = 500_000  # pairs of values enumerated at once for tau-b (about 50 MB of temporaries)
# Values above which a group's tau-b comes from scipy: enumerating n²/2 pairs costs about 35 ns a
# pair here, a kendalltau call about 0.3 ms, so they break even near 150 values (measured).
LARGE_GROUP = 150


@dataclass(frozen=True)
class GroupedCorrelations:
    """Per group (index = group code): ``n`` pairs, and for each method its ``values`` (NaN where
    undefined) and ``reasons`` ("" where defined)."""

    n: np.ndarray
    values: dict[str, np.ndarray]
    reasons: dict[str, np.ndarray]

    def value(self, method: str, group: int) -> float | None:
        v = float(self.values[method][group])
        return v if math.isfinite(v) else None


def _runs(sorted_groups: np.ndarray, sorted_values: np.ndarray, starts: np.ndarray, n_groups: int):
    """Over values sorted by (group, value): the average rank within its group of each value, the
    number of distinct values in each group and the pairs tied in each group, Σ t(t − 1)/2."""
    size = len(sorted_values)
    new = np.ones(size, dtype=bool)
    new[1:] = (sorted_groups[1:] != sorted_groups[:-1]) | (sorted_values[1:] != sorted_values[:-1])
    first = np.flatnonzero(new)
    length = np.diff(np.append(first, size))
    group = sorted_groups[first]
    rank = (first - starts[group]) + (length + 1) / 2
    distinct = np.bincount(group, minlength=n_groups)
    tied = np.bincount(group, weights=length * (length - 1) / 2, minlength=n_groups)
    return np.repeat(rank, length), distinct, tied


def _pearson(x: np.ndarray, y: np.ndarray, groups: np.ndarray, n: np.ndarray) -> np.ndarray:
    n_groups = len(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = x - (np.bincount(groups, weights=x, minlength=n_groups) / n)[groups]
        dy = y - (np.bincount(groups, weights=y, minlength=n_groups) / n)[groups]
        sxy = np.bincount(groups, weights=dx * dy, minlength=n_groups)
        sxx = np.bincount(groups, weights=dx * dx, minlength=n_groups)
        syy = np.bincount(groups, weights=dy * dy, minlength=n_groups)
        return sxy / (np.sqrt(sxx) * np.sqrt(syy))


def _concordance(x: np.ndarray, y: np.ndarray, groups: np.ndarray, starts: np.ndarray, n: np.ndarray,
                 todo: np.ndarray) -> np.ndarray:
    """S = concordant − discordant pairs of each group in ``todo`` (values sorted by group), the
    pairs of consecutive groups enumerated a block of at most ``PAIR_BLOCK`` pairs at a time."""
    n_groups = len(n)
    s = np.zeros(n_groups)
    pairs = np.where(todo, n * (n - 1) // 2, 0)
    ends = np.cumsum(pairs)
    start = 0
    while start < n_groups:
        stop = max(start + 1, int(np.searchsorted(ends, (ends[start - 1] if start else 0) + PAIR_BLOCK, "right")))
        if ends[stop - 1] > (ends[start - 1] if start else 0):
            lo, hi = int(starts[start]), int(starts[stop - 1] + n[stop - 1])
            g = groups[lo:hi]
            position = np.arange(lo, hi) - starts[g]
            later = np.where(todo[g], n[g] - position - 1, 0)  # partners after each value in its group
            first = np.repeat(np.arange(lo, hi), later)
            second = first + 1 + (np.arange(len(first)) - np.repeat(np.cumsum(later) - later, later))
            sign = np.sign(x[first] - x[second]) * np.sign(y[first] - y[second])
            s += np.bincount(groups[first], weights=sign, minlength=n_groups)
        start = stop
    return s


def grouped_correlations(
    x: Any, y: Any, groups: Any, *, min_n: int = MIN_N, names: tuple[str, str] = ("x", "y"),
    n_groups: int | None = None,
) -> GroupedCorrelations:
    """Pearson, Spearman and Kendall's tau-b between ``x`` and ``y`` within each group: ``groups``
    holds a code 0..n_groups−1 per pair. Pairs with a missing value (NaN) are left out, as
    ``correlate`` does; each group's values and reasons are ``correlate``'s on that group's pairs."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    groups = np.asarray(groups, dtype=np.int64)
    if n_groups is None:
        n_groups = int(groups.max()) + 1 if len(groups) else 0
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y, groups = x[keep], y[keep], groups[keep]
    order = np.lexsort((x, groups))  # by group, then x within it
    x, y, groups = x[order], y[order], groups[order]
    n = np.bincount(groups, minlength=n_groups)
    starts = np.cumsum(n) - n

    rank_x, distinct_x, tied_x = _runs(groups, x, starts, n_groups)
    by_y = np.lexsort((y, groups))
    ranks, distinct_y, tied_y = _runs(groups[by_y], y[by_y], starts, n_groups)
    rank_y = np.empty_like(ranks)
    rank_y[by_y] = ranks

    shared = np.full(n_groups, "", dtype=object)  # the reason all three methods share
    few = n < min_n
    shared[few] = REASON_FEW.format(n=min_n)
    flat_x = ~few & (distinct_x == 1)
    shared[flat_x] = REASON_NO_VARIATION.format(name=names[0])
    flat_y = ~few & ~flat_x & (distinct_y == 1)
    shared[flat_y] = REASON_NO_VARIATION.format(name=names[1])
    todo = shared == ""

    values = {"pearson": _pearson(x, y, groups, n), "spearman": _pearson(rank_x, rank_y, groups, n)}
    small = todo & (n <= LARGE_GROUP)
    s = _concordance(x, y, groups, starts, n, small)
    total = n * (n - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = s / np.sqrt((total - tied_x) * (total - tied_y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in np.flatnonzero(todo & ~small):
            part = slice(int(starts[g]), int(starts[g] + n[g]))
            tau[g] = stats.kendalltau(x[part], y[part]).statistic
    values["kendall"] = tau

    reasons = {}
    for m in METHODS:
        v = np.clip(values[m], -1.0, 1.0)
        reason = shared.copy()
        reason[todo & ~np.isfinite(v)] = REASON_UNDEFINED
        v[reason != ""] = np.nan
        values[m], reasons[m] = v, reason
    return GroupedCorrelations(n, values, reasons)

"""Krippendorff's alpha (nominal, ordinal, interval, ratio) from a units × values count matrix, any
number of raters, missing data, with a bootstrap confidence interval over units. See
docs/agreement.md for the formulas and how they are computed without a units × values × values
array."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Required, TypedDict

import numpy as np

from .base import (
    LEVELS,
    REASON_ALL_RESAMPLES_UNDEFINED,
    REASON_FEW_UNITS,
    REASON_NO_RESAMPLES,
    REASON_NO_VARIATION,
    counts_matrix,
    thin_data,
)

# A batch of resamples holds about this many weights (8 bytes each) per array.
BATCH_CELLS = 1 << 21




@dataclass(frozen=True)
class Alpha:
    alpha: float | None
    n_units: int  # units with at least 2 ratings (pairable units)
    n_ratings: int  # ratings in those units (pairable values, n..)
    reason: str = ""  # why alpha is None
    n_raters: int | None = None  # as given by the caller; the counts do not know raters
    observed_disagreement: float | None = None  # D_o
    expected_disagreement: float | None = None  # D_e
    ci_low: float | None = None  # percentile bootstrap interval over units
    ci_high: float | None = None
    confidence: float = 0.95
    n_resamples: int = 0
    n_resamples_undefined: int = 0  # resamples without variation, left out of the interval
    seed: int | None = None
    ci_reason: str = ""  # why the interval is None
    thin: str = ""  # why the value is too thin to read as stable (``base.thin_data``); "" when it is not

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _AlphaKnown(TypedDict, total=False):
    """The figures of an ``Alpha`` known so far, as ``alpha`` gathers them."""

    n_units: Required[int]
    n_ratings: Required[int]
    n_raters: Required[int | None]
    confidence: Required[float]
    observed_disagreement: float
    expected_disagreement: float
    n_resamples: int
    n_resamples_undefined: int
    seed: int


class Patterns:
    """The pairable units, grouped by identical rows of counts (patterns), ready for weighting.

    Alpha of any multiset of these units depends only on how many units of each pattern it holds
    (``weights``), so the point estimate is ``weights = multiplicity`` and a bootstrap resample is a
    multinomial draw of those weights.
    """

    def __init__(self, counts: np.ndarray, level: str, values: np.ndarray):
        self.level = level
        self.rows, self.multiplicity, self.of_unit = _unique_rows(counts)  # of_unit: each unit's pattern
        self.n_units = int(counts.shape[0])
        self.rows_f = self.rows.astype(float)
        self.m = self.rows_f.sum(axis=1)  # ratings per unit of each pattern
        self.values = values
        if level == "nominal":  # sum over c != k of n_c n_k / (m - 1)
            self.observed = (self.rows_f * (self.m[:, None] - self.rows_f)).sum(axis=1) / (self.m - 1)
        elif level == "interval":
            self.observed = self._within(values)
        elif level == "ratio":
            self.delta = ratio_differences(values)
            self.observed = ((self.rows_f @ self.delta) * self.rows_f).sum(axis=1) / (self.m - 1)

    def _within(self, x: np.ndarray) -> np.ndarray:
        """Per pattern, Σ_ck n_c n_k (x_c - x_k)² / (m - 1): its coincidences weighted by interval δ."""
        return _spread(self.rows_f, self.m, x[None, :])[:, 0] / (self.m - 1)

    def totals(self, weights: np.ndarray, exact: bool = True) -> tuple[np.ndarray, ...]:
        """Per row of ``weights`` (resamples × patterns): n.., Σ o_ck δ_ck, Σ n_c n_k δ_ck, and whether
        at least two values occur (tested on counts: rounding may leave a sum slightly above 0)."""
        marginals = weights @ self.rows_f  # n_c
        n = marginals.sum(axis=1)
        if self.level == "ordinal":
            # δ_ck = (Σ_{g=c..k} n_g - (n_c + n_k)/2)² = (r_c - r_k)² with the mid-ranks r_c below: ordinal
            # alpha is interval alpha on mid-ranks, which move with the marginals of each resample.
            ranks = mid_ranks(marginals)
            ranks -= ((marginals * ranks).sum(axis=1) / n)[:, None]  # centred: fewer digits lost
            if exact:  # centred within each pattern too (the point estimate: one row of weights)
                observed = np.array([w @ self._within(r) for w, r in zip(weights, ranks)])
            else:  # Σ_ck n_c n_k (r_c - r_k)² = 2 (m Σ n_c r_c² - (Σ n_c r_c)²), as matrix products
                first, second = self.rows_f @ ranks.T, self.rows_f @ (ranks**2).T  # patterns × resamples
                per_pattern = 2 * (self.m[:, None] * second - first**2) / (self.m - 1)[:, None]
                observed = np.einsum("bp,pb->b", weights, per_pattern)
            expected = 2 * n * (marginals * ranks**2).sum(axis=1)
        else:
            observed = weights @ self.observed
            if self.level == "nominal":
                expected = n**2 - (marginals**2).sum(axis=1)
            elif self.level == "interval":
                expected = _spread(marginals, n, self.values[None, :])[:, 0]
            else:
                expected = ((marginals @ self.delta) * marginals).sum(axis=1)
        return n, observed, expected, (marginals > 0).sum(axis=1) >= 2


def mid_ranks(marginals: np.ndarray) -> np.ndarray:
    """Ordinal mid-ranks r_c = Σ_{g<c} n_g + n_c / 2 of the marginals n_c (along the last axis), so
    that ordinal δ²_ck = (Σ_{g=c..k} n_g − (n_c + n_k)/2)² = (r_c − r_k)²."""
    return np.cumsum(marginals, axis=-1) - marginals / 2


def ratio_differences(values: np.ndarray) -> np.ndarray:
    """Ratio δ²_ck = ((c − k) / (c + k))², 0 where c + k = 0 (as the ``krippendorff`` package does): V × V."""
    total = values[:, None] + values[None, :]
    return np.divide(values[:, None] - values[None, :], total, out=np.zeros_like(total), where=total != 0) ** 2


def _spread(counts: np.ndarray, m: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Σ_ck n_c n_k (x_c - x_k)² per row, as 2 m Σ_c n_c (x_c - mean)²: no cancellation."""
    mean = (counts * x).sum(axis=1, keepdims=True) / m[:, None]
    return 2 * m[:, None] * (counts * (x - mean) ** 2).sum(axis=1, keepdims=True)


def _unique_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``counts``, how often each occurs, and each row's distinct row."""
    base = int(counts.max()) + 1 if counts.size else 1
    if counts.shape[1] * math.log2(base) < 62:  # encode each row as one integer: much faster
        keys = counts @ (base ** np.arange(counts.shape[1], dtype=np.int64))
        _, first, inverse, multiplicity = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
        return counts[first], multiplicity, inverse.reshape(-1)
    rows, inverse, multiplicity = np.unique(counts, axis=0, return_inverse=True, return_counts=True)
    return rows, multiplicity, inverse.reshape(-1)


def coincidences(value_counts: Any) -> np.ndarray:
    """Krippendorff's coincidence matrix: o_ck = Σ_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1), V × V.

    Units with fewer than two ratings contribute nothing. Row sums are the pairable values per value.
    """
    counts = counts_matrix(value_counts)
    counts = counts[counts.sum(axis=1) >= 2].astype(float)
    scaled = counts / (counts.sum(axis=1) - 1)[:, None]
    return scaled.T @ counts - np.diag(scaled.sum(axis=0))


def alpha(
    value_counts: Any,
    level: str,
    value_domain: Sequence[Any] | None = None,
    *,
    n_raters: int | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Alpha:
    """Krippendorff's alpha of ``value_counts`` (units × values) at ``level`` of measurement.

    ``value_domain`` names the columns, in order (the order matters for ordinal, the numbers for
    interval and ratio); by default the columns are 0, 1, 2, …. Units with fewer than two ratings
    cannot be paired and are left out. Alpha is None, with a reason, when it is undefined.

    The ``confidence`` interval is the percentile interval of alpha over ``n_resamples`` bootstrap
    resamples of the pairable units (with replacement), drawn from ``numpy.random.default_rng(seed)``.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r} (known: {', '.join(LEVELS)})")
    if n_resamples < 0:
        raise ValueError("n_resamples cannot be negative")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    counts = counts_matrix(value_counts)
    domain = np.arange(counts.shape[1]) if value_domain is None else np.asarray(value_domain)
    if len(domain) != counts.shape[1]:
        raise ValueError(f"value_domain has {len(domain)} values but value_counts has {counts.shape[1]} columns")
    if level in ("interval", "ratio"):
        try:
            domain = domain.astype(float)
        except ValueError:
            raise ValueError(f"{level} values must be numbers") from None

    pairable = counts[counts.sum(axis=1) >= 2]
    n_units, n_ratings = int(pairable.shape[0]), int(pairable.sum())
    known: _AlphaKnown = {"n_units": n_units, "n_ratings": n_ratings, "n_raters": n_raters, "confidence": confidence}
    if n_units < 2:
        return Alpha(None, reason=REASON_FEW_UNITS, ci_reason=REASON_FEW_UNITS, **known)
    # Values no pairable unit used change nothing at any level: dropping them keeps the work small.
    used = pairable.sum(axis=0) > 0
    if used.sum() < 2:
        known |= {"observed_disagreement": 0.0, "expected_disagreement": 0.0}
        return Alpha(None, reason=REASON_NO_VARIATION, ci_reason=REASON_NO_VARIATION, **known)
    patterns = Patterns(pairable[:, used], level, domain[used])
    n, observed, expected, _ = (x[0] for x in patterns.totals(patterns.multiplicity[None, :].astype(float)))
    d_o, d_e = float(observed / n), float(expected / (n * (n - 1)))
    known |= {"observed_disagreement": d_o, "expected_disagreement": d_e}
    if not expected > 0:  # e.g. ratio values v and -v only
        return Alpha(None, reason=REASON_NO_VARIATION, ci_reason=REASON_NO_VARIATION, **known)
    value = 1 - d_o / d_e
    known |= {"seed": seed}
    if n_resamples == 0:
        return Alpha(value, ci_reason=REASON_NO_RESAMPLES, thin=thin_data(n_units), **known)
    resampled = _bootstrap(patterns, n_resamples, seed)
    defined = resampled[np.isfinite(resampled)]
    known |= {"n_resamples": n_resamples, "n_resamples_undefined": n_resamples - len(defined)}
    if not len(defined):
        return Alpha(value, ci_reason=REASON_ALL_RESAMPLES_UNDEFINED, thin=thin_data(n_units), **known)
    low, high = (float(x) for x in np.quantile(defined, [(1 - confidence) / 2, (1 + confidence) / 2]))
    return Alpha(value, ci_low=low, ci_high=high, thin=thin_data(n_units, low, high), **known)


def _bootstrap(patterns: Patterns, n_resamples: int, seed: int) -> np.ndarray:
    """Alpha of ``n_resamples`` resamples of the units (NaN where undefined).

    Drawing n units with replacement and counting how many fall in each pattern is a multinomial
    draw over the patterns with probabilities multiplicity / n, so each resample costs one draw per
    pattern, not per unit. Batches of resamples bound the memory.
    """
    rng = np.random.default_rng(seed)
    probabilities = patterns.multiplicity / patterns.multiplicity.sum()
    batch = max(1, BATCH_CELLS // len(probabilities))
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        weights = rng.multinomial(patterns.n_units, probabilities, size=size).astype(float)
        n, observed, expected, varied = patterns.totals(weights, exact=False)
        defined = varied & (expected > 0)  # not: a single value drawn, or ratio values v and -v only
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + size] = np.where(defined, 1 - (n - 1) * observed / expected, np.nan)
    return out

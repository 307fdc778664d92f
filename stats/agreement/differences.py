"""Differences between countries: for every pair of pools, and each pool against the rest, the
difference in Krippendorff's alpha (and in mean rating where the scale has numbers), with a
bootstrap interval that resamples units within each pool, a two-sided permutation p-value that
reshuffles units between the two sides, and Holm's correction across each family of comparisons.

Both the resampling and the permutation work on patterns (``krippendorff_alpha.Patterns``): alpha
of any multiset of units depends only on how many units of each distinct row of counts it holds, so
a bootstrap resample of a pool is a multinomial draw over its patterns and a permutation of the two
sides' units is a multivariate hypergeometric draw, never a loop over units.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .base import LEVELS, REASON_FEW_UNITS, counts_matrix, thin_data
from .krippendorff_alpha import BATCH_CELLS, Patterns

REST = "rest"  # the other side of a pool against every other pool
REASON_UNDEFINED = "alpha is undefined on one side (no variation)"


@dataclass(frozen=True)
class Difference:
    a: Hashable  # a pool id
    b: Hashable  # another pool id, or REST
    statistic: str  # "alpha" or "mean" (the mean rating)
    value_a: float | None
    value_b: float | None
    difference: float | None  # value_a - value_b
    ci_low: float | None = None  # percentile bootstrap interval, units resampled within each side
    ci_high: float | None = None
    p_value: float | None = None  # two-sided permutation p-value, (1 + extreme) / (1 + permutations)
    p_holm: float | None = None  # Holm-adjusted across the comparisons of its family
    n_units_a: int = 0
    n_units_b: int = 0
    reason: str = ""  # why the difference is None
    thin: str = ""  # why either side's data are too thin to read (``base.thin_data``)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment (None stays None): the m p-values sorted, the i-th (from 0)
    multiplied by m - i, made non-decreasing, capped at 1."""
    known = [(p, i) for i, p in enumerate(p_values) if p is not None]
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(known)):
        running = max(running, min(1.0, (len(known) - rank) * p))
        out[i] = running
    return out


class _Sides:
    """Two sides' pairable units as weights over the patterns of their union."""

    def __init__(self, counts_a: np.ndarray, counts_b: np.ndarray, level: str, domain: np.ndarray):
        both = np.vstack([counts_a, counts_b])
        used = both.sum(axis=0) > 0
        self.patterns = Patterns(both[:, used], level, domain[used])
        of_unit, width, split = self.patterns.of_unit, len(self.patterns.multiplicity), len(counts_a)
        self.weights = np.vstack([
            np.bincount(of_unit[:split], minlength=width), np.bincount(of_unit[split:], minlength=width)
        ]).astype(float)
        self.values = domain[used].astype(float) if level != "nominal" else None

    def alphas(self, weights: np.ndarray, exact: bool = False) -> np.ndarray:
        n, observed, expected, varied = self.patterns.totals(weights, exact=exact)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(varied & (expected > 0), 1 - (n - 1) * observed / expected, np.nan)

    def means(self, weights: np.ndarray) -> np.ndarray:
        assert self.values is not None
        rows = self.patterns.rows_f
        with np.errstate(divide="ignore", invalid="ignore"):
            return (weights @ (rows @ self.values)) / (weights @ self.patterns.m)


def _batches(total: int, width: int):
    size = max(1, BATCH_CELLS // max(1, width))
    for start in range(0, total, size):
        yield min(size, total - start)


def _compare(sides: _Sides, statistic: str, *, n_resamples: int, n_permutations: int, seed: int,
             confidence: float) -> dict[str, Any]:
    figure = sides.alphas if statistic == "alpha" else sides.means
    point = sides.alphas(sides.weights, exact=True) if statistic == "alpha" else sides.means(sides.weights)
    value_a, value_b = (None if not np.isfinite(v) else float(v) for v in point)
    out: dict[str, Any] = {"statistic": statistic, "value_a": value_a, "value_b": value_b, "difference": None}
    if value_a is None or value_b is None:
        return out | {"reason": REASON_UNDEFINED}
    observed = value_a - value_b
    out["difference"] = observed
    rng = np.random.default_rng(seed)
    n_a, n_b = (int(w.sum()) for w in sides.weights)
    width = sides.weights.shape[1]
    if n_resamples:
        drawn = []
        for size in _batches(n_resamples, width):
            a = rng.multinomial(n_a, sides.weights[0] / n_a, size=size).astype(float)
            b = rng.multinomial(n_b, sides.weights[1] / n_b, size=size).astype(float)
            drawn.append(figure(a) - figure(b))
        differences = np.concatenate(drawn)
        differences = differences[np.isfinite(differences)]
        if len(differences):
            low, high = np.quantile(differences, [(1 - confidence) / 2, (1 + confidence) / 2])
            out |= {"ci_low": float(low), "ci_high": float(high)}
    if n_permutations:
        union = sides.weights.sum(axis=0).astype(np.int64)
        extreme = valid = 0
        for size in _batches(n_permutations, width):
            a = rng.multivariate_hypergeometric(union, n_a, size=size)
            permuted = figure(a.astype(float)) - figure((union - a).astype(float))
            permuted = permuted[np.isfinite(permuted)]
            valid += len(permuted)
            extreme += int((np.abs(permuted) >= abs(observed) - 1e-12).sum())
        if valid:
            out["p_value"] = (1 + extreme) / (1 + valid)
    return out


def pool_differences(
    value_counts: Any,
    pool_of_unit: Sequence[Hashable] | np.ndarray,
    level: str,
    value_domain: Sequence[Any] | None = None,
    *,
    pools: Sequence[Hashable] | None = None,
    n_resamples: int = 1000,
    n_permutations: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, list[dict[str, Any]]]:
    """Every pair of ``pools`` (by default the distinct values of ``pool_of_unit``, in order), and
    each pool against the rest: ``{"pairs": [...], "vs_rest": [...]}``, each a ``Difference`` as a
    dict, alpha first then (ordinal, interval, ratio) the mean rating. Units with fewer than two
    ratings are left out, as alpha leaves them out. Holm's correction runs per statistic within
    each family (the pairs; each pool against the rest)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r} (known: {', '.join(LEVELS)})")
    if n_resamples < 0 or n_permutations < 0:
        raise ValueError("n_resamples and n_permutations cannot be negative")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    counts = counts_matrix(value_counts)
    labels = np.asarray(pool_of_unit, dtype=object)
    if len(labels) != counts.shape[0]:
        raise ValueError(f"pool_of_unit has {len(labels)} entries but value_counts has {counts.shape[0]} units")
    domain = np.arange(counts.shape[1]) if value_domain is None else np.asarray(value_domain)
    if len(domain) != counts.shape[1]:
        raise ValueError(f"value_domain has {len(domain)} values but value_counts has {counts.shape[1]} columns")
    if level != "nominal":
        domain = domain.astype(float)
    order = list(dict.fromkeys(labels.tolist())) if pools is None else list(pools)
    pairable = counts.sum(axis=1) >= 2
    statistics = ("alpha",) if level == "nominal" else ("alpha", "mean")

    def compare(a: Hashable, b: Hashable, mask_a: np.ndarray, mask_b: np.ndarray) -> list[dict[str, Any]]:
        side_a, side_b = counts[mask_a & pairable], counts[mask_b & pairable]
        n_a, n_b = len(side_a), len(side_b)
        thin = thin_data(min(n_a, n_b))
        if min(n_a, n_b) < 2:
            return [Difference(a, b, s, None, None, None, reason=REASON_FEW_UNITS, thin=thin, n_units_a=n_a,
                               n_units_b=n_b).as_dict() for s in statistics]
        sides = _Sides(side_a, side_b, level, domain)
        return [
            Difference(a, b, **_compare(sides, s, n_resamples=n_resamples, n_permutations=n_permutations, seed=seed,
                                        confidence=confidence), thin=thin, n_units_a=n_a, n_units_b=n_b).as_dict()
            for s in statistics
        ]

    masks = {p: labels == p for p in order}
    pairs = [row for i, a in enumerate(order) for b in order[i + 1:] for row in compare(a, b, masks[a], masks[b])]
    vs_rest = [row for a in order for row in compare(a, REST, masks[a], ~masks[a])] if len(order) > 2 else []
    for family in (pairs, vs_rest):
        for statistic in statistics:
            rows = [r for r in family if r["statistic"] == statistic]
            for row, adjusted in zip(rows, holm([r["p_value"] for r in rows]), strict=True):
                row["p_holm"] = adjusted
    return {"pairs": pairs, "vs_rest": vs_rest}

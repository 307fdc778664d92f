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
SIGNIFICANT = 0.05  # a Holm-adjusted p below this: the difference holds
STEP = 200  # permutations drawn at a time before checking whether a p-value is settled
ENOUGH_EXTREME = 20  # as many permutations as extreme as the difference: its p-value is settled, and large


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


def holds(row: dict[str, Any]) -> bool:
    """Whether a compared difference (a ``Difference`` as a dict) holds after Holm's correction."""
    return row.get("p_holm") is not None and row["p_holm"] < SIGNIFICANT


def permutations_for(n_pools: int, n_resamples: int) -> int:
    """Permutations enough for Holm's correction across the pairs of ``n_pools`` pools: at least
    ``n_resamples``, and at least 40 per pair, so that a difference no permutation reaches gets an
    adjusted p of at most 1/40 (with B permutations and m pairs the smallest adjusted p is
    m / (B + 1): 1,000 permutations could never make a difference among 11 countries significant
    at 0.05). None (0) when no resamples were asked for."""
    if not n_resamples:
        return 0
    return max(n_resamples, 40 * n_pools * (n_pools - 1) // 2)


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


class _Pools:
    """Every pool's pairable units as weights over the patterns of all of them: a pool, a pair of
    pools or the rest of the study is a row of weights, so each side of any comparison (and each of
    its resamples) is a weighted sum, never a new pass over units."""

    def __init__(self, counts: np.ndarray, code: np.ndarray, n_pools: int, level: str, domain: np.ndarray):
        """``counts``: the pairable units; ``code``: each one's pool, an index into the pools compared."""
        used = counts.sum(axis=0) > 0
        self.patterns = Patterns(counts[:, used], level, domain[used])
        self.width = width = len(self.patterns.multiplicity)
        flat = code * width + self.patterns.of_unit
        self.weights = np.bincount(flat, minlength=n_pools * width).reshape(n_pools, width).astype(float)
        self.values = domain[used].astype(float) if level != "nominal" else None

    def figure(self, statistic: str, weights: np.ndarray, exact: bool = False) -> np.ndarray:
        """``statistic`` of each row of ``weights`` (NaN where undefined)."""
        with np.errstate(divide="ignore", invalid="ignore"):  # a pool with no units: NaN, not a warning
            if statistic == "alpha":
                n, observed, expected, varied = self.patterns.totals(weights, exact=exact)
                return np.where(varied & (expected > 0), 1 - (n - 1) * observed / expected, np.nan)
            assert self.values is not None
            return (weights @ (self.patterns.rows_f @ self.values)) / (weights @ self.patterns.m)

    def batches(self, total: int):
        size = max(1, BATCH_CELLS // max(1, self.width))
        for start in range(0, total, size):
            yield min(size, total - start)

    def resampled(self, pool: int, n_resamples: int, seed: int):
        """The pool's bootstrap resamples, batch by batch (the same ones on every call)."""
        rng = np.random.default_rng([seed, pool])
        weights = self.weights[pool]
        for size in self.batches(n_resamples):
            yield rng.multinomial(int(weights.sum()), weights / weights.sum(), size=size).astype(float)


def _interval(differences: np.ndarray | None, confidence: float) -> tuple[float | None, float | None]:
    """The percentile interval of the defined bootstrap ``differences`` (None, None without any)."""
    if differences is None or not np.isfinite(differences).any():
        return None, None
    low, high = np.quantile(differences[np.isfinite(differences)], [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def _permuted(pools: _Pools, union: np.ndarray, n_a: int, observed: dict[str, float], n_permutations: int,
              rng: np.random.Generator) -> dict[str, float]:
    """Per statistic, the permutation p-value of ``observed``: ``n_a`` of the ``union``'s units (weights
    over the patterns) drawn to one side, the rest to the other, ``(1 + extreme) / (1 + permutations)``.

    Sequential (Besag & Clifford 1991): permutations are drawn ``STEP`` at a time, and a statistic
    stops once ``ENOUGH_EXTREME`` of them were as extreme as the observed difference, with the
    p-value ``extreme / permutations`` (estimated to about a fifth of itself, and far above any
    threshold); only a difference that stays rare gets every permutation, the resolution a small
    p-value needs."""
    whole = union.astype(np.int64)
    extreme, valid = dict.fromkeys(observed, 0), dict.fromkeys(observed, 0)
    going = dict(observed)
    drawn = 0
    while going and drawn < n_permutations:
        for size in pools.batches(min(STEP, n_permutations - drawn)):
            a = rng.multivariate_hypergeometric(whole, n_a, size=size).astype(float)
            b = union - a
            for statistic, value in going.items():
                permuted = pools.figure(statistic, a) - pools.figure(statistic, b)
                permuted = permuted[np.isfinite(permuted)]
                valid[statistic] += len(permuted)
                extreme[statistic] += int((np.abs(permuted) >= abs(value) - 1e-12).sum())
            drawn += size
        going = {s: v for s, v in going.items() if extreme[s] < ENOUGH_EXTREME}
    return {
        s: (extreme[s] / valid[s] if extreme[s] >= ENOUGH_EXTREME else (1 + extreme[s]) / (1 + valid[s]))
        for s in observed if valid[s]
    }


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
    ratings are left out, as alpha leaves them out. Each pool is resampled once (its resamples serve
    every comparison it is in; the rest's are the sum of the other pools' own, a bootstrap stratified
    by pool); each comparison has its own permutations. Holm's correction runs per statistic within
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
    statistics = ("alpha",) if level == "nominal" else ("alpha", "mean")
    pairable = counts.sum(axis=1) >= 2
    code = np.full(len(labels), -1)
    for i, p in enumerate(order):
        code[(labels == p) & pairable] = i
    kept = code >= 0  # pairable units of the pools compared
    study = _Pools(counts[kept], code[kept], len(order), level, domain) if kept.any() else None
    sizes = study.weights.sum(axis=1).astype(int) if study is not None else np.zeros(len(order), dtype=int)
    rows = _Comparisons(study, sizes, statistics, n_resamples, n_permutations, seed, confidence)
    pairs = [r for i, a in enumerate(order) for j in range(i + 1, len(order)) for r in rows.pair(i, j, a, order[j])]
    vs_rest = [r for i, a in enumerate(order) for r in rows.rest(i, a)] if len(order) > 2 else []
    for family in (pairs, vs_rest):
        for statistic in statistics:
            chosen = [r for r in family if r["statistic"] == statistic]
            for row, adjusted in zip(chosen, holm([r["p_value"] for r in chosen]), strict=True):
                row["p_holm"] = adjusted
    return {"pairs": pairs, "vs_rest": vs_rest}


class _Comparisons:
    """The comparisons of one study: each pool's point values and bootstrap values computed once."""

    def __init__(self, study: _Pools | None, sizes: np.ndarray, statistics: Sequence[str], n_resamples: int,
                 n_permutations: int, seed: int, confidence: float):
        self.study, self.sizes, self.statistics = study, sizes, statistics
        self.n_permutations, self.seed, self.confidence = n_permutations, seed, confidence
        self.point: dict[str, np.ndarray] = {}
        self.boot: dict[str, np.ndarray] = {}  # statistic → pools × resamples
        self.rest_point: dict[str, np.ndarray] = {}
        self.rest_boot: dict[str, np.ndarray] = {}
        if study is None:
            return
        total = study.weights.sum(axis=0)
        for statistic in statistics:
            self.point[statistic] = study.figure(statistic, study.weights, exact=True)
            self.rest_point[statistic] = study.figure(statistic, total[None, :] - study.weights, exact=True)
        if not n_resamples:
            return
        resampled = [p for p in range(len(sizes)) if sizes[p] >= 2]
        # The study's resample: every pool's own, summed (a pool of one unit as it is).
        whole = np.tile(study.weights[sizes == 1].sum(axis=0), (n_resamples, 1))
        boot = {s: np.full((len(sizes), n_resamples), np.nan) for s in statistics}
        for p in resampled:
            start = 0
            for weights in study.resampled(p, n_resamples, seed):
                whole[start : start + len(weights)] += weights
                for statistic in statistics:
                    boot[statistic][p, start : start + len(weights)] = study.figure(statistic, weights)
                start += len(weights)
        rest = {s: np.full((len(sizes), n_resamples), np.nan) for s in statistics}
        for p in resampled:
            start = 0
            for weights in study.resampled(p, n_resamples, seed):
                others = whole[start : start + len(weights)] - weights
                for statistic in statistics:
                    rest[statistic][p, start : start + len(weights)] = study.figure(statistic, others)
                start += len(weights)
        self.boot, self.rest_boot = boot, rest

    def _rows(self, a: Hashable, b: Hashable, n_a: int, n_b: int, values: dict[str, tuple[float, float]],
              boot: dict[str, np.ndarray], union: np.ndarray | None, rng: np.random.Generator) -> list[dict[str, Any]]:
        thin = thin_data(min(n_a, n_b))
        if min(n_a, n_b) < 2 or self.study is None or union is None:
            return [Difference(a, b, s, None, None, None, reason=REASON_FEW_UNITS, thin=thin, n_units_a=n_a,
                               n_units_b=n_b).as_dict() for s in self.statistics]
        observed = {s: va - vb for s, (va, vb) in values.items() if np.isfinite(va) and np.isfinite(vb)}
        p_values = _permuted(self.study, union, n_a, observed, self.n_permutations, rng)
        rows = []
        for statistic, (value_a, value_b) in values.items():
            if statistic not in observed:
                rows.append(Difference(a, b, statistic, _plain(value_a), _plain(value_b), None, reason=REASON_UNDEFINED,
                                       thin=thin, n_units_a=n_a, n_units_b=n_b).as_dict())
                continue
            low, high = _interval(boot.get(statistic), self.confidence)
            rows.append(Difference(a, b, statistic, float(value_a), float(value_b), observed[statistic], low, high,
                                   p_value=p_values.get(statistic), thin=thin, n_units_a=n_a, n_units_b=n_b).as_dict())
        return rows

    def pair(self, i: int, j: int, a: Hashable, b: Hashable) -> list[dict[str, Any]]:
        values = {s: (self.point[s][i], self.point[s][j]) for s in self.point}
        boot = {s: self.boot[s][i] - self.boot[s][j] for s in self.boot}
        union = None if self.study is None else self.study.weights[i] + self.study.weights[j]
        rng = np.random.default_rng([self.seed, 1, i, j])
        return self._rows(a, b, int(self.sizes[i]), int(self.sizes[j]), values, boot, union, rng)

    def rest(self, i: int, a: Hashable) -> list[dict[str, Any]]:
        values = {s: (self.point[s][i], self.rest_point[s][i]) for s in self.point}
        boot = {s: self.boot[s][i] - self.rest_boot[s][i] for s in self.boot}
        union = None if self.study is None else self.study.weights.sum(axis=0)
        rng = np.random.default_rng([self.seed, 2, i])
        return self._rows(a, REST, int(self.sizes[i]), int(self.sizes.sum() - self.sizes[i]), values, boot, union,
                          rng)


def _plain(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None

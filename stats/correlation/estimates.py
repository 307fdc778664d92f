"""Correlation coefficients with confidence intervals, and the bootstrap behind them. Pure: no Django."""

from __future__ import annotations

import math
import warnings
import zlib
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

METHODS = ("pearson", "spearman", "kendall")
MIN_N = 3  # fewer paired values than this: no coefficient
BOOT_BLOCK = 1_000_000  # resampled values held at once (block of resamples × units)
DENSE_KENDALL_MAX = 4096  # units up to which the bootstrap's tau-b uses an n × n sign matrix (64 MB)
# Units up to which Spearman's and Kendall's intervals are bootstrapped (where the dense tau-b stops);
# above, the large-sample intervals (Bonett & Wright; Fieller, Hartley & Pearson), whose bounds there
# are within 0.003 of the bootstrap's (bivariate-normal and tied human-score data, see
# docs/agreement.md), while the bootstrap costs O(resamples · n) and more (minutes at 333k units).
BOOTSTRAP_MAX_UNITS = 4096
# Distinct values up to which ranks come from the counts of each value (a hash pass) rather than
# a sort of every value: ratings on a scale, and means of a few of them, have a few dozen.
COUNTED_RANKS_MAX = 4096

INTERVAL_FISHER = "fisher-z"  # Pearson: Fisher's z, se 1 / sqrt(n - 3)
INTERVAL_BOOTSTRAP = "bootstrap"  # percentile interval of resamples of the units
INTERVAL_BONETT_WRIGHT = "bonett-wright"  # Spearman: Fisher's z, se sqrt((1 + r²/2) / (n - 3))
INTERVAL_FHP = "fieller-hartley-pearson"  # Kendall: Fisher's z, se sqrt(0.437 / (n - 4))

REASON_FEW = "fewer than {n} paired values"
REASON_NO_VARIATION = "no variation: every {name} value is the same"
REASON_UNDEFINED = "undefined for these values"


@dataclass(frozen=True)
class Coefficient:
    """One correlation coefficient with its p-value, its confidence interval and its n.

    ``value`` is None, with a ``reason``, when undefined. ``interval`` names how the interval was
    computed (``INTERVAL_*``: "fisher-z", "bootstrap", "bonett-wright", "fieller-hartley-pearson";
    None without one); ``resamples`` is the number of bootstrap resamples it rests on (None unless
    bootstrapped)."""

    value: float | None
    p_value: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    resamples: int | None = None
    reason: str = ""
    interval: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _finite(x: Any) -> float | None:
    return float(x) if x is not None and math.isfinite(float(x)) else None


def correlate(x: Any, y: Any, method: str, *, names: tuple[str, str] = ("x", "y"), min_n: int = MIN_N) -> Coefficient:
    """``method`` (pearson, spearman or kendall: tau-b) between two paired sequences, with scipy's
    two-sided p-value and no interval. Pairs where either value is missing (None, NaN) are left out.
    None with a reason for fewer than ``min_n`` pairs or a constant side (named by ``names``)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    n = len(x)
    if n < min_n:
        return Coefficient(None, None, n, reason=REASON_FEW.format(n=min_n))
    for values, name in ((x, names[0]), (y, names[1])):
        if np.all(values == values[0]):
            return Coefficient(None, None, n, reason=REASON_NO_VARIATION.format(name=name))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on near-constant input; the value says it all
        if method == "pearson":
            result = stats.pearsonr(x, y)
        elif method == "spearman":
            result = spearman(x, y)
        else:
            result = stats.kendalltau(x, y)
    value = _finite(result.statistic)
    if value is None:
        return Coefficient(None, None, n, reason=REASON_UNDEFINED)
    return Coefficient(max(-1.0, min(1.0, value)), _finite(result.pvalue), n)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(x)``: the average rank of each value, ties sharing theirs. Where the
    distinct values are few (``COUNTED_RANKS_MAX``), from each one's count: a hash pass over the
    values and a sort of the distinct ones only (a million ratings on a scale: milliseconds, where
    a sort of every value takes a tenth of a second). ``x`` holds no NaN."""
    codes, distinct = pd.factorize(x, sort=True)
    if len(distinct) > COUNTED_RANKS_MAX:
        return stats.rankdata(x)
    counts = np.bincount(codes, minlength=len(distinct)).astype(np.float64)
    return (np.cumsum(counts) - counts + (counts + 1) / 2)[codes]


@dataclass(frozen=True)
class _Spearman:
    statistic: float
    pvalue: float


def spearman(x: np.ndarray, y: np.ndarray) -> _Spearman:
    """``scipy.stats.spearmanr(x, y)``'s rho and two-sided p-value (Pearson's r of the average
    ranks; Student's t with n - 2 degrees of freedom), from ``average_ranks``. No NaN in ``x``, ``y``."""
    rho = np.corrcoef(average_ranks(x), average_ranks(y))[0, 1]
    dof = len(x) - 2
    with np.errstate(divide="ignore"):  # |rho| = 1: t is infinite, p is 0
        t = rho * np.sqrt(np.clip(dof / ((rho + 1.0) * (1.0 - rho)), 0, None))
    return _Spearman(float(rho), float(2 * stats.t.sf(abs(t), dof)))


def _z_interval(r: float, se: float, level: float) -> tuple[float, float]:
    """tanh(atanh r ± z_(1+level)/2 · se); (r, r) when |r| = 1."""
    if abs(r) >= 1:
        return r, r
    z, q = math.atanh(r), float(stats.norm.ppf(0.5 + level / 2))
    return math.tanh(z - q * se), math.tanh(z + q * se)


def fisher_interval(r: float, n: int, level: float = 0.95) -> tuple[float | None, float | None]:
    """The confidence interval of a Pearson ``r`` over ``n`` pairs by Fisher's z transform:
    tanh(atanh r ± z_(1+level)/2 / sqrt(n - 3)). (None, None) for n ≤ 3; (r, r) when |r| = 1."""
    if n <= 3:
        return None, None
    return _z_interval(r, 1 / math.sqrt(n - 3), level)


def bonett_wright_interval(rho: float, n: int, level: float = 0.95) -> tuple[float | None, float | None]:
    """The large-sample interval of a Spearman ``rho`` over ``n`` pairs: Fisher's z with Bonett &
    Wright's (2000) standard error sqrt((1 + rho²/2) / (n - 3)). (None, None) for n ≤ 3."""
    if n <= 3:
        return None, None
    return _z_interval(rho, math.sqrt((1 + rho * rho / 2) / (n - 3)), level)


def fieller_interval(tau: float, n: int, level: float = 0.95) -> tuple[float | None, float | None]:
    """The large-sample interval of a Kendall ``tau`` over ``n`` pairs: Fisher's z with Fieller,
    Hartley & Pearson's (1957) standard error sqrt(0.437 / (n - 4)). (None, None) for n ≤ 4."""
    if n <= 4:
        return None, None
    return _z_interval(tau, math.sqrt(0.437 / (n - 4)), level)


def _resample_counts(n: int, idx: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Per resample (row of ``idx``), how many of its draws fall in each group: resamples × groups."""
    rows = np.arange(idx.shape[0])[:, None]
    flat = (rows * n_groups + groups[idx]).ravel()
    return np.bincount(flat, minlength=idx.shape[0] * n_groups).reshape(idx.shape[0], n_groups).astype(np.float64)


def _tie_ranks(counts: np.ndarray) -> np.ndarray:
    """The average rank of each tie group within each resample, from the group counts (groups in
    ascending order of value): the draws below it, plus (its draws + 1) / 2."""
    return np.cumsum(counts, axis=1) - counts + (counts + 1) / 2


def resample_statistics(
    x: np.ndarray, y: np.ndarray, idx: np.ndarray, *, sign_matrix: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Spearman's rho and Kendall's tau-b of each resample ``(x[idx[b]], y[idx[b]])``, NaN where a
    resample is constant; equal to scipy's ``spearmanr`` and ``kendalltau`` on each resample.

    Computed from counts, without sorting each resample: a resample is a weight ``w[b, i]`` per
    unit (how many times it was drawn). Spearman is the weighted Pearson of the units' average
    ranks within the resample; tau-b's numerator is ``w A w / 2`` with ``A[i, j] = sign(x_i - x_j)
    sign(y_i - y_j)`` (``sign_matrix``, float32: exact, its products are integers below 2^24), its
    ties the pairs of draws in one tie group. Without ``sign_matrix`` tau-b comes from scipy, one
    resample at a time (for many units, where A would not fit)."""
    b, n = idx.shape
    _, gx = np.unique(x, return_inverse=True)
    _, gy = np.unique(y, return_inverse=True)
    gx, gy = gx.reshape(-1), gy.reshape(-1)
    cx = _resample_counts(n, idx, gx, int(gx.max()) + 1)
    cy = _resample_counts(n, idx, gy, int(gy.max()) + 1)
    rows = np.arange(b)[:, None]
    w = np.bincount((rows * n + idx).ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
    rx, ry = _tie_ranks(cx)[rows, gx[None, :]], _tie_ranks(cy)[rows, gy[None, :]]
    mean = (n + 1) / 2  # the mean rank of any resample of n draws
    dx, dy = rx - mean, ry - mean
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on a constant resample (NaN, left out)
        rho = (w * dx * dy).sum(axis=1) / np.sqrt((w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1))
        if sign_matrix is not None:
            s = ((w.astype(np.float32) @ sign_matrix).astype(np.float64) * w).sum(axis=1) / 2
            pairs = n * (n - 1) / 2
            tied_x = (cx * (cx - 1) / 2).sum(axis=1)
            tied_y = (cy * (cy - 1) / 2).sum(axis=1)
            tau = s / np.sqrt((pairs - tied_x) * (pairs - tied_y))
        else:
            tau = np.array([stats.kendalltau(x[i], y[i]).statistic for i in idx], dtype=np.float64)
    rho[~np.isfinite(rho)] = np.nan
    tau[~np.isfinite(tau)] = np.nan
    return np.clip(rho, -1, 1), np.clip(tau, -1, 1)


def sign_matrix(x: np.ndarray, y: np.ndarray, *, rows: int = 256) -> np.ndarray:
    """``A[i, j] = sign(x_i - x_j) · sign(y_i - y_j)``: +1 concordant, −1 discordant, 0 tied
    (float32, built ``rows`` rows at a time so the temporaries stay small)."""
    n = len(x)
    out = np.empty((n, n), dtype=np.float32)
    for start in range(0, n, rows):
        part = slice(start, start + rows)
        out[part] = np.sign(x[part, None] - x[None, :]) * np.sign(y[part, None] - y[None, :])
    return out


def bootstrap_statistics(
    x: np.ndarray, y: np.ndarray, *, n_boot: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Spearman and Kendall (tau-b) on ``n_boot`` resamples of the pairs, drawn with replacement
    (``rng.integers(0, n, size=(block, n))``, block after block); NaN where a resample is constant.
    Both statistics use the same resamples (``resample_statistics``); up to ``DENSE_KENDALL_MAX``
    units tau-b uses the sign matrix (n² float32), beyond it scipy per resample."""
    n = len(x)
    a = sign_matrix(x, y) if n <= DENSE_KENDALL_MAX else None
    spearman, kendall = np.full(n_boot, np.nan), np.full(n_boot, np.nan)
    block = max(1, BOOT_BLOCK // max(n, 1))
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        idx = rng.integers(0, n, size=(size, n))
        spearman[start:start + size], kendall[start:start + size] = resample_statistics(x, y, idx, sign_matrix=a)
    return {"spearman": spearman, "kendall": kendall}


def _percentile_interval(values: np.ndarray, level: float) -> tuple[float | None, float | None, int]:
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return None, None, 0
    low, high = np.percentile(values, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    return float(low), float(high), len(values)


def coefficients(
    x: Any,
    y: Any,
    *,
    n_boot: int = 1000,
    rng: np.random.Generator | None = None,
    level: float = 0.95,
    names: tuple[str, str] = ("x", "y"),
    min_n: int = MIN_N,
) -> dict[str, Coefficient]:
    """Pearson (Fisher z interval), Spearman and Kendall between paired values.

    Spearman's and Kendall's intervals: up to ``BOOTSTRAP_MAX_UNITS`` pairs, percentile intervals
    of ``n_boot`` resamples of the pairs drawn from ``rng`` (no interval when ``n_boot`` is 0);
    above it, the large-sample intervals (``bonett_wright_interval``, ``fieller_interval``), with
    or without ``n_boot``. Each coefficient's ``interval`` says which."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    out = {m: correlate(x, y, m, names=names, min_n=min_n) for m in METHODS}
    p = out["pearson"]
    if p.value is not None:
        low, high = fisher_interval(p.value, p.n, level)
        out["pearson"] = replace(p, ci_low=low, ci_high=high, interval=INTERVAL_FISHER if low is not None else None)
    if len(x) > BOOTSTRAP_MAX_UNITS:
        for m, interval, method in (("spearman", bonett_wright_interval, INTERVAL_BONETT_WRIGHT),
                                    ("kendall", fieller_interval, INTERVAL_FHP)):
            c = out[m]
            if c.value is not None:
                low, high = interval(c.value, c.n, level)
                out[m] = replace(c, ci_low=low, ci_high=high, interval=method)
    elif n_boot > 0 and out["spearman"].value is not None:
        boot = bootstrap_statistics(x, y, n_boot=n_boot, rng=rng or np.random.default_rng(0))
        for m in ("spearman", "kendall"):
            c = out[m]
            if c.value is not None:
                low, high, used = _percentile_interval(boot[m], level)
                out[m] = replace(c, ci_low=low, ci_high=high, resamples=used,
                                 interval=INTERVAL_BOOTSTRAP if low is not None else None)
    return out


def rng_for(seed: int, *names: Any) -> np.random.Generator:
    """The generator of one (metric, country…) analysis: seeded by ``seed`` and the names (CRC-32 of
    their text), so a metric's intervals do not depend on which other metrics were uploaded."""
    return np.random.default_rng([seed, *(zlib.crc32(str(name).encode()) for name in names)])



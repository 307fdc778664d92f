"""Gwet's AC1 (nominal) and AC2 (weighted) from a units × values count matrix: any number of
raters, missing ratings, with the standard error of Gwet (2014, ch. 5; irrCAC's ``gwet.ac1.raw``)
and its t interval. See docs/agreement.md.

Where one answer dominates (a skewed scale: most images "not offensive"), kappa-type coefficients
and alpha fall though annotators agree (the "kappa paradox"); AC1's chance agreement shrinks as the
answers concentrate, so it stays readable there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats as scipy_stats

from .base import REASON_FEW_UNITS, REASON_SINGLE_CATEGORY, counts_matrix, thin_data

GWET_WEIGHTS = ("none", "linear", "quadratic", "ordinal")  # none: AC1; the others: AC2


@dataclass(frozen=True)
class Gwet:
    value: float | None  # AC1 when weights == "none", else AC2
    name: str  # "ac1" or "ac2"
    weights: str
    n_units: int  # units with at least one rating (Gwet's n)
    n_units_paired: int  # units with at least two ratings
    n_ratings: int
    percent_agreement: float | None = None  # p_a (weighted for AC2)
    chance_agreement: float | None = None  # p_e
    se: float | None = None
    ci_low: float | None = None  # t interval, n - 1 degrees of freedom, within [-1, 1]
    ci_high: float | None = None
    confidence: float = 0.95
    reason: str = ""  # why value is None
    thin: str = ""  # why the value is too thin to read as stable (``base.thin_data``)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def gwet_weights(weights: str, domain: Sequence[Any]) -> np.ndarray:
    """The agreement weights w_kl (1 on the diagonal) over ``domain``, as irrCAC defines them:
    linear and quadratic on the values' numbers, ordinal on their ranks."""
    if weights not in GWET_WEIGHTS:
        raise ValueError(f"unknown weights {weights!r} (known: {', '.join(GWET_WEIGHTS)})")
    q = len(domain)
    if weights == "none" or q < 2:
        return np.eye(q)
    if weights == "ordinal":
        rank = np.arange(q)
        span = np.abs(rank[:, None] - rank[None, :]) + 1
        pairs = span * (span - 1) / 2
        return 1 - pairs / pairs.max()
    try:
        x = np.asarray(domain, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{weights} weights need numeric values") from None
    spread = x.max() - x.min()
    if not spread > 0:
        return np.eye(q)
    distance = np.abs(x[:, None] - x[None, :]) / spread
    return 1 - (distance if weights == "linear" else distance**2)


def gwet(value_counts: Any, value_domain: Sequence[Any] | None = None, *, weights: str = "none",
         confidence: float = 0.95) -> Gwet:
    """Gwet's AC1 (``weights="none"``) or AC2 of ``value_counts`` (units × values).

    The categories are the columns, named by ``value_domain`` (the field's declared scale, not only
    the values seen: q counts every category). Units with one rating count in the categories'
    shares π_k, not in the observed agreement, as in Gwet's handbook.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    counts = counts_matrix(value_counts).astype(float)
    domain = list(range(counts.shape[1])) if value_domain is None else list(value_domain)
    if len(domain) != counts.shape[1]:
        raise ValueError(f"value_domain has {len(domain)} values but value_counts has {counts.shape[1]} columns")
    w = gwet_weights(weights, domain)
    counts = counts[counts.sum(axis=1) > 0]
    r = counts.sum(axis=1)
    paired = r >= 2
    n, n2 = len(counts), int(paired.sum())
    known: dict[str, Any] = {"name": "ac1" if weights == "none" else "ac2", "weights": weights, "n_units": n,
                             "n_units_paired": n2, "n_ratings": int(r.sum()), "confidence": confidence}
    if n2 < 2:
        return Gwet(None, reason=REASON_FEW_UNITS, thin=thin_data(n2), **known)
    q = counts.shape[1]
    if q < 2:
        return Gwet(None, reason=REASON_SINGLE_CATEGORY, thin=thin_data(n2), **known)
    weighted = counts @ w.T  # r*_ik = Σ_l w_kl r_il
    agree = (counts * (weighted - 1)).sum(axis=1)
    pairs = np.where(paired, r * (r - 1), 1.0)
    pa_i = np.where(paired, agree / pairs, 0.0)
    p_a = float(pa_i[paired].mean())
    shares = counts / r[:, None]
    pi = shares.mean(axis=0)
    scale = w.sum() / (q * (q - 1))
    p_e = float(scale * (pi * (1 - pi)).sum())
    known |= {"percent_agreement": p_a, "chance_agreement": p_e}
    value = (p_a - p_e) / (1 - p_e)
    ac_i = (n / n2) * (pa_i - p_e * paired) / (1 - p_e)
    pe_i = scale * (shares @ (1 - pi))
    ac_star = ac_i - 2 * (1 - value) * (pe_i - p_e) / (1 - p_e)
    se = float(np.sqrt(((ac_star - value) ** 2).sum() / (n * (n - 1))))
    margin = float(scipy_stats.t.ppf(1 - (1 - confidence) / 2, n - 1)) * se
    low, high = max(-1.0, value - margin), min(1.0, value + margin)
    return Gwet(float(value), se=se, ci_low=low, ci_high=high, thin=thin_data(n2, low, high), **known)

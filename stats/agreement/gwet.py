"""Gwet's AC1 (nominal) and AC2 (weighted) agreement coefficients from a units × values count matrix,
any number of raters, missing ratings, with a standard error and a t-based confidence interval
(Gwet 2014, ch. 5; computed as R's irrCAC ``gwet.ac1.raw`` does). See docs/agreement.md."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Required, TypedDict

import numpy as np
from scipy import stats

from .base import REASON_FEW_UNITS, REASON_SINGLE_CATEGORY, counts_matrix, thin_data

# "none" is the identity weights (AC1); the others give AC2. Linear and quadratic weigh the distance
# between the domain's numbers, ordinal the distance between their ranks.
GWET_WEIGHTS = ("none", "linear", "quadratic", "ordinal")


@dataclass(frozen=True)
class Gwet:
    value: float | None  # AC1 when weights == "none", else AC2
    name: str  # "ac1" or "ac2"
    weights: str
    n_units: int  # units with at least 1 rating (Gwet's n)
    n_units_paired: int  # units with at least 2 ratings
    n_ratings: int
    percent_agreement: float | None = None  # p_a (weighted for AC2)
    chance_agreement: float | None = None  # p_e
    se: float | None = None
    ci_low: float | None = None  # t-based interval, df = n - 1, within [-1, 1]
    ci_high: float | None = None
    confidence: float = 0.95
    reason: str = ""  # why value is None
    thin: str = ""  # why the data are too thin to read the value as stable ("" when they are not)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _GwetKnown(TypedDict, total=False):
    """The figures of a ``Gwet`` known so far, as ``gwet`` gathers them."""

    name: Required[str]
    weights: Required[str]
    n_units: Required[int]
    n_units_paired: Required[int]
    n_ratings: Required[int]
    confidence: Required[float]
    percent_agreement: float
    chance_agreement: float


def gwet_weights(value_domain: Sequence[Any] | np.ndarray, weights: str) -> np.ndarray:
    """The q × q agreement weights w_kl of ``weights`` over the q values of ``value_domain``.

    linear 1 - |x_k - x_l| / (x_max - x_min) and quadratic 1 - (x_k - x_l)² / (x_max - x_min)² on
    the numbers; ordinal 1 - m_kl / max m with m_kl = n_kl (n_kl - 1) / 2, n_kl = |k - l| + 1 on the
    ranks (of the numbers when the domain is numeric, else of the positions: the scale's order).
    """
    if weights not in GWET_WEIGHTS:
        raise ValueError(f"unknown weights {weights!r} (known: {', '.join(GWET_WEIGHTS)})")
    domain = np.asarray(value_domain)
    q = len(domain)
    if weights == "none":
        return np.eye(q)
    numbers = _numbers(domain)
    if numbers is None and weights != "ordinal":
        raise ValueError(f"{weights} weights need a numeric value_domain (got {list(domain)[:5]!r})")
    if numbers is not None and len(np.unique(numbers)) != q:
        raise ValueError("value_domain has duplicate values")
    if q < 2:
        return np.ones((q, q))
    if weights == "ordinal":
        ranks = np.arange(q) if numbers is None else np.argsort(np.argsort(numbers))
        steps = np.abs(ranks[:, None] - ranks[None, :]) + 1
        ordinal = (steps * (steps - 1) / 2).astype(float)
        return 1 - ordinal / ordinal.max()
    assert numbers is not None
    distance = np.abs(numbers[:, None] - numbers[None, :]) / (numbers.max() - numbers.min())
    return 1 - (distance if weights == "linear" else distance**2)


def _numbers(domain: np.ndarray) -> np.ndarray | None:
    """``domain`` as finite floats, or None when it is not numeric (ValueError when not finite)."""
    if domain.dtype.kind not in "biuf":
        return None
    numbers = domain.astype(float)
    if not np.isfinite(numbers).all():
        raise ValueError("value_domain must hold finite numbers")
    return numbers


def gwet(
    value_counts: Any,
    value_domain: Sequence[Any] | None = None,
    *,
    weights: str = "none",
    confidence: float = 0.95,
) -> Gwet:
    """Gwet's AC1 (``weights="none"``) or AC2 of ``value_counts`` (units × values).

    ``value_domain`` names the columns, in order (by default 0, 1, 2, …); its length is the number
    of categories q in the chance agreement, values nobody used included (the field's declared
    scale, not the values observed). Units without ratings are ignored; units with one rating count
    in the classification probabilities π_k but not in the observed agreement. The standard error is
    Gwet's linearised variance over units (no finite-population correction); the ``confidence``
    interval is AC ± t_{n-1} · se, clipped to [-1, 1]. The value is None, with a reason, when
    fewer than 2 units have 2 ratings or the domain has fewer than 2 values.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    counts = counts_matrix(value_counts)
    domain = np.arange(counts.shape[1]) if value_domain is None else np.asarray(value_domain)
    if domain.ndim != 1 or len(domain) != counts.shape[1]:
        raise ValueError(f"value_domain has {len(domain)} values but value_counts has {counts.shape[1]} columns")
    w = gwet_weights(domain, weights)
    rated = counts[counts.sum(axis=1) > 0].astype(float)
    r = rated.sum(axis=1)
    paired = r >= 2
    n, n2, q = len(r), int(paired.sum()), counts.shape[1]
    known: _GwetKnown = {
        "name": "ac1" if weights == "none" else "ac2", "weights": weights, "n_units": n,
        "n_units_paired": n2, "n_ratings": int(r.sum()), "confidence": confidence,
    }
    if n2 < 2:
        return Gwet(None, reason=REASON_FEW_UNITS, thin=thin_data(n2), **known)
    if q < 2:
        return Gwet(None, reason=REASON_SINGLE_CATEGORY, thin=thin_data(n2), **known)

    # Observed agreement per unit: Σ_k r_ik (r*_ik - 1) / (r_i (r_i - 1)), r*_ik = Σ_l w_kl r_il.
    agreeing = (rated * (rated @ w.T - 1)).sum(axis=1)
    pa_i = np.where(paired, agreeing / np.maximum(r * (r - 1), 1), 0.0)
    p_a = float(pa_i.sum() / n2)
    share = rated / r[:, None]  # r_ik / r_i
    pi = share.mean(axis=0)
    scale = float(w.sum()) / (q * (q - 1))
    p_e = scale * float((pi * (1 - pi)).sum())
    known |= {"percent_agreement": p_a, "chance_agreement": p_e}
    if not p_e < 1:
        return Gwet(None, reason=REASON_SINGLE_CATEGORY, thin=thin_data(n2), **known)
    value = (p_a - p_e) / (1 - p_e)

    # Linearised variance over units (Gwet 2014, ch. 5; irrCAC's gwet.ac1.raw with f = 0).
    ac_i = (n / n2) * (pa_i - p_e * paired) / (1 - p_e)
    pe_i = scale * (share @ (1 - pi))
    ac_star = ac_i - 2 * (1 - value) * (pe_i - p_e) / (1 - p_e)
    se = math.sqrt(float(((ac_star - value) ** 2).sum()) / (n * (n - 1)))
    half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * se
    low, high = max(-1.0, value - half), min(1.0, value + half)
    return Gwet(value, se=se, ci_low=low, ci_high=high, thin=thin_data(n2, low, high), **known)

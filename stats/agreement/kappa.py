"""Kappas and percent agreement: Cohen's kappa (unweighted, linear, quadratic) for two raters,
``checker_kappa`` for a checker against the annotators they reviewed, Fleiss' kappa, and the mean
share of agreeing pairs."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Required, TypedDict

import numpy as np

from ..jsonsafe import plain
from .base import (
    REASON_NO_PAIRS,
    REASON_NO_UNITS,
    REASON_SINGLE_CATEGORY,
    WEIGHTS,
    counts_matrix,
)


@dataclass(frozen=True)
class Kappa:
    kappa: float | None
    n_pairs: int  # items with a label from both raters
    n_dropped: int = 0  # items with a missing side
    observed_agreement: float | None = None  # weighted: 1 - observed disagreement / largest weight
    expected_agreement: float | None = None
    weights: str = "none"
    categories: list[Any] | None = None  # the ordered category list used
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _KappaKnown(TypedDict, total=False):
    """The figures of a ``Kappa`` known so far, as ``cohen_kappa`` gathers them."""

    n_pairs: Required[int]
    n_dropped: Required[int]
    weights: Required[str]
    categories: Required[list[Any]]
    observed_agreement: float
    expected_agreement: float


def _missing(label: Any) -> bool:
    return label is None or (isinstance(label, float | np.floating) and math.isnan(label))


def _categories(given: Sequence[Any] | None, seen: Iterable[Any], weights: str) -> list[Any]:
    if given is not None:
        categories = [plain(c) for c in given]
        if len(set(categories)) != len(categories):
            raise ValueError("categories has duplicates")
        return categories
    seen = list(dict.fromkeys(plain(x) for x in seen))
    try:
        return sorted(seen)
    except TypeError:
        if weights != "none":
            raise ValueError("labels cannot be sorted: pass the ordered categories for weighted kappa") from None
        return seen  # the order does not matter without weights


def _disagreement_weights(k: int, weights: str) -> np.ndarray:
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r} (known: {', '.join(WEIGHTS)})")
    i = np.arange(k)
    distance = np.abs(i[:, None] - i[None, :]).astype(float)  # positions in the category list
    return {"none": (distance > 0).astype(float), "linear": distance, "quadratic": distance**2}[weights]


def cohen_kappa(
    a: Sequence[Any], b: Sequence[Any], *, weights: str = "none", categories: Sequence[Any] | None = None
) -> Kappa:
    """Cohen's kappa between raters ``a`` and ``b`` (labels of the same items, in the same order).

    Items where either label is missing (None or NaN) are dropped. ``weights`` is "none", "linear"
    (|i - j|) or "quadratic" ((i - j)²) over positions i, j in ``categories`` (by default the sorted
    labels seen). Categories nobody used still take their position (see docs/agreement.md).
    """
    if len(a) != len(b):
        raise ValueError(f"the raters labelled different numbers of items ({len(a)} and {len(b)})")
    pairs = [(x, y) for x, y in zip(a, b) if not (_missing(x) or _missing(y))]
    cats = _categories(categories, (x for pair in pairs for x in pair), weights)
    w = _disagreement_weights(len(cats), weights)
    index = {c: i for i, c in enumerate(cats)}
    try:
        rows = np.array([index[plain(x)] for x, _ in pairs], dtype=np.int64)
        cols = np.array([index[plain(y)] for _, y in pairs], dtype=np.int64)
    except KeyError as e:
        raise ValueError(f"label {e.args[0]!r} is not in categories") from None
    known: _KappaKnown = {
        "n_pairs": len(pairs), "n_dropped": len(a) - len(pairs), "weights": weights, "categories": cats
    }
    if not pairs:
        return Kappa(None, reason=REASON_NO_PAIRS, **known)
    k = len(cats)
    table = np.bincount(rows * k + cols, minlength=k * k).reshape(k, k) / len(pairs)
    chance = np.outer(table.sum(axis=1), table.sum(axis=0))
    observed, expected = float((w * table).sum()), float((w * chance).sum())
    largest = float(w.max()) if k > 1 else 1.0
    known |= {"observed_agreement": 1 - observed / largest, "expected_agreement": 1 - expected / largest}
    if not expected > 0:
        return Kappa(None, reason=REASON_SINGLE_CATEGORY, **known)
    return Kappa(1 - observed / expected, **known)


@dataclass(frozen=True)
class CheckerKappa:
    kappa: float | None  # checker against annotator, over every reviewed (annotator, checker) pair
    acceptance_rate: float | None  # share of reviews where the checker's label equals the annotator's
    n_reviews: int  # reviews with both labels
    n_units: int  # distinct units among them
    n_dropped: int = 0
    observed_agreement: float | None = None
    expected_agreement: float | None = None
    weights: str = "none"
    categories: list[Any] | None = None
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def checker_kappa(
    reviews: Iterable[tuple[Any, Any, Any]], *, weights: str = "none", categories: Sequence[Any] | None = None
) -> CheckerKappa:
    """Agreement of a checker with the annotators they reviewed (RAVENEA's meta quality check).

    ``reviews`` are (unit, annotator_label, checker_label) triples; a unit reviewed for several
    annotators gives several triples. Kappa treats every triple as one item rated by "the
    annotator" and "the checker"; a review is accepted when the two labels are equal.
    """
    units, annotator, checker = [], [], []
    for unit, given, checked in reviews:
        units.append(unit)
        annotator.append(given)
        checker.append(checked)
    result = cohen_kappa(annotator, checker, weights=weights, categories=categories)
    kept = [(u, plain(x), plain(y)) for u, x, y in zip(units, annotator, checker) if not (_missing(x) or _missing(y))]
    accepted = sum(x == y for _, x, y in kept)
    return CheckerKappa(
        kappa=result.kappa,
        acceptance_rate=accepted / len(kept) if kept else None,
        n_reviews=len(kept),
        n_units=len({u for u, _, _ in kept}),
        n_dropped=result.n_dropped,
        observed_agreement=result.observed_agreement,
        expected_agreement=result.expected_agreement,
        weights=weights,
        categories=result.categories,
        reason=result.reason,
    )




@dataclass(frozen=True)
class Fleiss:
    kappa: float | None
    n_units: int
    n_raters: int  # ratings per unit
    observed_agreement: float | None = None  # P̄: mean share of agreeing pairs per unit
    expected_agreement: float | None = None  # P̄_e = Σ_j p_j²
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _FleissKnown(TypedDict, total=False):
    """The figures of a ``Fleiss`` known so far, as ``fleiss_kappa`` gathers them."""

    n_units: Required[int]
    n_raters: Required[int]
    observed_agreement: float
    expected_agreement: float


def fleiss_kappa(value_counts: Any) -> Fleiss:
    """Fleiss' kappa of a units × categories count matrix with the same number of ratings per unit.

    Refuses (ValueError) when the units have different numbers of ratings: use ``alpha`` for
    missing data.
    """
    counts = counts_matrix(value_counts)
    if counts.shape[0] == 0:
        return Fleiss(None, 0, 0, reason=REASON_NO_UNITS)
    per_unit = counts.sum(axis=1)
    raters = int(per_unit[0])
    if (per_unit != raters).any():
        raise ValueError(
            "Fleiss' kappa needs the same number of ratings in every unit; these units have between "
            f"{per_unit.min()} and {per_unit.max()} (use Krippendorff's alpha for missing data)"
        )
    if raters < 2:
        raise ValueError("Fleiss' kappa needs at least 2 ratings per unit")
    c = counts.astype(float)
    p_bar = float(((c * (c - 1)).sum(axis=1) / (raters * (raters - 1))).mean())
    p_e = float(((c.sum(axis=0) / c.sum()) ** 2).sum())
    known: _FleissKnown = {"n_units": int(counts.shape[0]), "n_raters": raters}
    known |= {"observed_agreement": p_bar, "expected_agreement": p_e}
    if (counts.sum(axis=0) > 0).sum() < 2:
        return Fleiss(None, reason=REASON_SINGLE_CATEGORY, **known)
    return Fleiss((p_bar - p_e) / (1 - p_e), **known)


@dataclass(frozen=True)
class PercentAgreement:
    agreement: float | None  # a share in [0, 1]: mean over units of the share of agreeing pairs
    n_units: int  # pairable units
    n_ratings: int  # ratings in them
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def percent_agreement(value_counts: Any) -> PercentAgreement:
    """Mean over units with at least 2 ratings of Σ_c n_uc (n_uc - 1) / (m_u (m_u - 1))."""
    counts = counts_matrix(value_counts)
    m = counts.sum(axis=1)
    pairable, m = counts[m >= 2].astype(float), m[m >= 2].astype(float)
    if not len(m):
        return PercentAgreement(None, 0, 0, reason="no unit was rated by at least 2 annotators")
    share = (pairable * (pairable - 1)).sum(axis=1) / (m * (m - 1))
    return PercentAgreement(float(share.mean()), len(m), int(m.sum()))

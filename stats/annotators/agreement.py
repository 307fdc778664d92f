"""Agreement per annotator (leave-one-out) and alpha with and without excluded annotators. Pure.

**Leave-one-out agreement** of annotator j: their answers against the other annotators' answers to
the same units, with Krippendorff's metric for the level (docs/agreement.md). For each answer of j
in a unit u with m_u ≥ 2 answers, its disagreement is the mean metric difference to the other
m_u − 1 answers of u:

    d = Σ_{other answers k of u} δ²(v_j, v_k) / (m_u − 1)

and j's ``disagreement`` is the mean of d over j's answers in such units (each unit counts once,
however many others rated it). Their ``agreement`` is 1 − disagreement / D_e, with D_e alpha's
expected disagreement of all the data: 1 when j always agrees with the others, 0 when j agrees
with them no better than chance, negative when worse. For nominal data ``match_share`` is also
given: 1 − disagreement, the mean share of the others who gave j's answer (with three annotators
per unit, the share of j's pairs that match).

Why this one: it is alpha's own decomposition. Alpha's observed disagreement D_o is the mean of d
over all pairable answers, so alpha = 1 − D_o / D_e is the mean of the annotators' agreement
weighted by their shared units. It is defined with two or three annotators per unit (alpha of the
data without j is not, or swings with who else rated j's units), and it uses the level's metric:
ordinal differences are those of alpha's mid-ranks, interval differences squared, ratio ones
((c − k)/(c + k))². An annotator who shares no unit with another has no agreement (None, not 0);
when D_e is undefined (fewer than 2 pairable units, or no variation), neither is anyone's agreement.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..agreement import Alpha, alpha, mid_ranks, ratio_differences
from .answers import Answers, answers_of

AGREEMENT_COLUMNS = ("shared_units", "pairs", "disagreement", "agreement", "match_share")


def _differences(a: Answers, counts: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per answer, Σ δ²(its value, each other answer of its unit) (0 where it is alone)."""
    m_r = m[a.unit].astype(np.float64)
    if a.level == "nominal":
        return m_r - counts[a.unit, a.value]
    if a.level == "ratio":
        delta = ratio_differences(np.asarray(a.values, dtype=np.float64))
        return (counts @ delta)[a.unit, a.value]
    if a.level == "ordinal":  # ordinal differences are interval ones on the mid-ranks of the pairable answers
        x = mid_ranks(counts[m >= 2].sum(axis=0).astype(np.float64))
    else:
        x = np.asarray(a.values, dtype=np.float64)
    x = (x - x.mean())[a.value]  # centred: fewer digits lost below
    s1 = np.bincount(a.unit, weights=x, minlength=len(a.units))[a.unit]
    s2 = np.bincount(a.unit, weights=x**2, minlength=len(a.units))[a.unit]
    return m_r * x**2 - 2 * x * s1 + s2  # Σ_k (x - x_k)² over the unit's answers


def leave_one_out(a: Answers) -> tuple[pd.DataFrame, Alpha]:
    """Per annotator (rows in the order of ``a.annotators``, columns ``AGREEMENT_COLUMNS``): the
    units they share with another annotator, their pairs there, disagreement, agreement and (for
    nominal data) match share, NaN where undefined; and alpha of all the data (no bootstrap)."""
    counts = a.counts()
    m = counts.sum(axis=1)
    overall = alpha(counts, a.level, a.alpha_domain(), n_raters=len(a.annotators), n_resamples=0)
    pairable = m[a.unit] >= 2
    d = np.zeros(len(a.unit))
    d[pairable] = _differences(a, counts, m)[pairable] / (m[a.unit][pairable] - 1)
    k = len(a.annotators)
    shared = np.bincount(a.annotator, weights=pairable, minlength=k)
    with np.errstate(divide="ignore", invalid="ignore"):
        disagreement = np.where(shared > 0, np.bincount(a.annotator, weights=d, minlength=k) / shared, np.nan)
    expected = overall.expected_disagreement if overall.alpha is not None else None
    agreement = 1 - disagreement / expected if expected else np.full(k, np.nan)
    table = pd.DataFrame({
        "shared_units": shared.astype(np.int64),
        "pairs": np.bincount(a.annotator, weights=np.where(pairable, m[a.unit] - 1, 0), minlength=k).astype(np.int64),
        "disagreement": disagreement,
        "agreement": agreement,
        "match_share": 1 - disagreement if a.level == "nominal" else np.full(k, np.nan),
    })
    return table, overall


@dataclass(frozen=True)
class Side:
    """Alpha of one side (all annotators, or without the excluded) and what it was computed from:
    annotators, units and answers in all (``alpha.n_units`` and ``alpha.n_ratings`` count the
    pairable ones: units with at least two answers, and their answers)."""

    alpha: Alpha
    annotators: int
    units: int
    answers: int

    def as_dict(self) -> dict[str, Any]:
        return {"annotators": self.annotators, "units": self.units, "answers": self.answers, **self.alpha.as_dict()}


@dataclass(frozen=True)
class WithWithout:
    """Krippendorff's alpha of all the answers (``all``) and of those of the annotators not in
    ``excluded`` (``without``), at ``level``; ``not_found`` lists the excluded annotators who have
    no answer here."""

    level: str
    excluded: list[Any]
    not_found: list[Any]
    all: Side
    without: Side

    def as_dict(self) -> dict[str, Any]:
        return {"level": self.level, "excluded": self.excluded, "not_found": self.not_found,
                "all": self.all.as_dict(), "without": self.without.as_dict()}


def _side(a: Answers, keep: np.ndarray, n_resamples: int, seed: int) -> Side:
    counts = a.counts(keep)
    annotators = len(np.unique(a.annotator[keep]))
    figures = alpha(counts, a.level, a.alpha_domain(), n_raters=annotators, n_resamples=n_resamples, seed=seed)
    return Side(figures, annotators, int((counts.sum(axis=1) > 0).sum()), int(keep.sum()))


def agreement_with_without(
    frame: pd.DataFrame,
    excluded: Collection[Any],
    level: str,
    *,
    value_domain: Sequence[Any] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> WithWithout:
    """Alpha (``stats.agreement.alpha``, with its bootstrap interval) of all the answers in
    ``frame`` and of the answers of the annotators not in ``excluded``. ``frame`` has the columns
    unit, annotator, value (``stats.annotators.answers``); both sides read the same value domain."""
    a = answers_of(frame, level, value_domain=value_domain)
    excluded = set(excluded)
    present = [name for name in a.annotators if name in excluded]
    code = {name: i for i, name in enumerate(a.annotators)}
    out = np.isin(a.annotator, [code[name] for name in present])
    return WithWithout(
        level=level,
        excluded=present,
        not_found=sorted((name for name in excluded if name not in code), key=str),
        all=_side(a, np.ones(len(a.unit), dtype=bool), n_resamples, seed),
        without=_side(a, ~out, n_resamples, seed),
    )


__all__ = ["AGREEMENT_COLUMNS", "Side", "WithWithout", "agreement_with_without", "leave_one_out"]

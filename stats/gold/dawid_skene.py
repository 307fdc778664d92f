"""Dawid–Skene: a label per unit weighted by each annotator's estimated competence. Pure: numpy.

Dawid & Skene (1979), "Maximum likelihood estimation of observer error-rates using the EM
algorithm": each annotator k has a confusion matrix ``pi[k][j, l]`` (the chance they answer l when
the truth is j) and the classes a prior ``p[j]``. EM alternates the posterior of each unit's class
(E) and the priors and confusion matrices that posterior implies (M). It starts from the majority
vote (each unit's share of votes per label, as crowd-kit's ``DawidSkene`` does), runs until the
mean log-likelihood per unit moves less than ``tol`` or ``max_iter`` steps, and is deterministic
(no random start; ties in the final label go to the label listed first).

An annotator's competence is the diagonal of their confusion matrix weighted by the priors:
``sum_j p[j] * pi[k][j, j]``, the chance they give the true label to a unit drawn at random.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

EPS = 1e-10
UNIT_COLUMNS = ("unit", "label", "probability", "ratings")
ANNOTATOR_COLUMNS = ("annotator", "competence", "items")


@dataclass(frozen=True)
class DawidSkene:
    """The fit: per unit its most probable label and that label's posterior probability
    (``units``, columns ``UNIT_COLUMNS``); per annotator their competence and the units they rated
    (``annotators``, columns ``ANNOTATOR_COLUMNS``); the labels (in the order of ``posteriors``'
    columns and of each confusion matrix), the class priors, each annotator's confusion matrix
    (rows the true label, columns the label given), and how the EM ended."""

    units: pd.DataFrame
    annotators: pd.DataFrame
    labels: list[Any]
    priors: np.ndarray
    confusion: dict[Any, np.ndarray]
    posteriors: np.ndarray  # units × labels
    iterations: int
    converged: bool

    def label_of(self) -> dict[Any, Any]:
        return dict(zip(self.units["unit"], self.units["label"], strict=True))

    def competence_of(self) -> dict[Any, float]:
        return dict(zip(self.annotators["annotator"], self.annotators["competence"], strict=True))


def _codes(values: Sequence[Hashable], order: Sequence[Any] | None = None) -> tuple[np.ndarray, list[Any]]:
    if order is not None:
        index = {v: i for i, v in enumerate(order)}
        return np.array([index[v] for v in values], dtype=np.int64), list(order)
    codes, uniques = pd.factorize(pd.Series(list(values), dtype=object), sort=False)
    return codes.astype(np.int64), list(uniques)


@dataclass(frozen=True)
class _Ratings:
    """One entry per rating: its unit, annotator and label codes."""

    unit: np.ndarray
    annotator: np.ndarray
    label: np.ndarray
    n_units: int
    n_annotators: int
    n_labels: int


def _log_likelihood(r: _Ratings, priors: np.ndarray, confusion: np.ndarray) -> np.ndarray:
    """units × labels: log p[j] + the sum over the unit's ratings of log pi[k][j, l]."""
    log_pi = np.log(np.clip(confusion, EPS, None))  # annotators × true × given
    contributions = log_pi[r.annotator, :, r.label]  # ratings × true
    out = np.empty((r.n_units, r.n_labels))
    for j, log_prior in enumerate(np.log(np.clip(priors, EPS, None)).tolist()):
        out[:, j] = log_prior + np.bincount(r.unit, weights=contributions[:, j], minlength=r.n_units)
    return out


def _m_step(r: _Ratings, posteriors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    priors = posteriors.mean(axis=0)
    cell = r.annotator * r.n_labels + r.label
    size = r.n_annotators * r.n_labels
    expected = np.stack([  # expected counts: annotators × true × given
        np.bincount(cell, weights=posteriors[r.unit, j], minlength=size).reshape(r.n_annotators, r.n_labels)
        for j in range(r.n_labels)
    ], axis=1)
    expected = np.clip(expected, EPS, None)
    return priors, expected / expected.sum(axis=2, keepdims=True)


def dawid_skene(
    rows: pd.DataFrame | Iterable[tuple[Any, Any, Any]],
    *,
    labels: Sequence[Any] | None = None,
    tol: float = 1e-5,
    max_iter: int = 100,
) -> DawidSkene:
    """Fit Dawid–Skene to nominal ratings.

    ``rows``: (unit, annotator, label), one per rating (a frame's first three columns); a row with
    a missing label (None, NaN) is left out. ``labels``: the label set in the order to report it
    (default: the order labels are first seen); a label never given still gets a column."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame.from_records(list(rows))
    if frame.shape[1] < 3:
        frame = pd.DataFrame(columns=["unit", "annotator", "label"])
    frame = frame.iloc[:, :3].set_axis(["unit", "annotator", "label"], axis=1)
    frame = frame[frame["label"].notna()]
    unit, units = _codes(frame["unit"].tolist())
    annotator, annotators = _codes(frame["annotator"].tolist())
    label, domain = _codes(frame["label"].tolist(), labels)
    n_u, n_k, n_l = len(units), len(annotators), len(domain)
    if n_u == 0 or n_l == 0:
        empty_units = pd.DataFrame(columns=list(UNIT_COLUMNS))
        return DawidSkene(empty_units, pd.DataFrame(columns=list(ANNOTATOR_COLUMNS)), list(domain),
                          np.zeros(n_l), {}, np.zeros((0, n_l)), 0, True)
    r = _Ratings(unit, annotator, label, n_u, n_k, n_l)
    votes = np.bincount(unit * n_l + label, minlength=n_u * n_l).reshape(n_u, n_l).astype(np.float64)
    posteriors = votes / votes.sum(axis=1, keepdims=True)  # the majority vote's shares
    priors, confusion = _m_step(r, posteriors)
    loss, iterations, converged = -np.inf, 0, False
    while iterations < max_iter:
        iterations += 1
        log_lik = _log_likelihood(r, priors, confusion)
        top = log_lik.max(axis=1, keepdims=True)
        posteriors = np.exp(log_lik - top)
        total = posteriors.sum(axis=1, keepdims=True)
        posteriors /= total
        new_loss = float((top[:, 0] + np.log(total[:, 0])).mean())  # mean log-likelihood per unit
        priors, confusion = _m_step(r, posteriors)
        if abs(new_loss - loss) < tol:
            converged = True
            break
        loss = new_loss
    best = posteriors.argmax(axis=1)  # the first label on a tie
    competence = np.einsum("j,kjj->k", priors, confusion)
    rated = np.bincount(np.unique(annotator * n_u + unit) // n_u, minlength=n_k)
    return DawidSkene(
        units=pd.DataFrame({
            "unit": units, "label": [domain[i] for i in best],
            "probability": posteriors[np.arange(n_u), best], "ratings": votes.sum(axis=1).astype(np.int64),
        }),
        annotators=pd.DataFrame({"annotator": annotators, "competence": competence, "items": rated.astype(np.int64)}),
        labels=list(domain),
        priors=priors,
        confusion={a: confusion[k] for k, a in enumerate(annotators)},
        posteriors=posteriors,
        iterations=iterations,
        converged=converged,
    )


__all__ = ["ANNOTATOR_COLUMNS", "DawidSkene", "UNIT_COLUMNS", "dawid_skene"]

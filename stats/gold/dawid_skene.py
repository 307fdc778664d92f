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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .ratings import ANNOTATOR_COLUMNS, UNIT_COLUMNS, LabelModel, Ratings, nominal_ratings

EPS = 1e-10


@dataclass(frozen=True)
class DawidSkene(LabelModel):
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


def _log_likelihood(r: Ratings, priors: np.ndarray, confusion: np.ndarray) -> np.ndarray:
    """units × labels: log p[j] + the sum over the unit's ratings of log pi[k][j, l]."""
    log_pi = np.log(np.clip(confusion, EPS, None))  # annotators × true × given
    contributions = log_pi[r.annotator, :, r.label]  # ratings × true
    out = np.empty((r.n_units, r.n_labels))
    for j, log_prior in enumerate(np.log(np.clip(priors, EPS, None)).tolist()):
        out[:, j] = log_prior + np.bincount(r.unit, weights=contributions[:, j], minlength=r.n_units)
    return out


def _m_step(r: Ratings, posteriors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    rows: Ratings | pd.DataFrame | Iterable[tuple[Any, Any, Any]],
    *,
    labels: Sequence[Any] | None = None,
    tol: float = 1e-5,
    max_iter: int = 100,
) -> DawidSkene:
    """Fit Dawid–Skene to nominal ratings.

    ``rows``: (unit, annotator, label), one per rating (a frame's first three columns), or ratings
    already coded (``Ratings``); a row with
    a missing label (None, NaN) is left out. ``labels``: the label set in the order to report it
    (default: the order labels are first seen); a label never given still gets a column."""
    r = nominal_ratings(rows, labels)
    n_l = r.n_labels
    if r.n_units == 0 or n_l == 0:
        empty_units = pd.DataFrame(columns=list(UNIT_COLUMNS))
        return DawidSkene(empty_units, pd.DataFrame(columns=list(ANNOTATOR_COLUMNS)), list(r.labels),
                          np.zeros(n_l), {}, np.zeros((0, n_l)), 0, True)
    votes = r.votes()
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
    competence = np.einsum("j,kjj->k", priors, confusion)
    return DawidSkene(
        units=r.unit_table(posteriors),
        annotators=r.annotator_table(competence),
        labels=list(r.labels),
        priors=priors,
        confusion={a: confusion[k] for k, a in enumerate(r.annotators)},
        posteriors=posteriors,
        iterations=iterations,
        converged=converged,
    )


__all__ = ["ANNOTATOR_COLUMNS", "DawidSkene", "UNIT_COLUMNS", "dawid_skene"]

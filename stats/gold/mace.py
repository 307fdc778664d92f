"""MACE: whom to trust, and a label per unit. Pure: numpy.

Hovy, Berg-Kirkpatrick, Vaswani & Hovy (2013), "Learning Whom to Trust with MACE" (NAACL-HLT):
each unit i has a true label T_i, uniform over the L labels. Annotator j, on each unit they rate,
knows the answer with probability θ_j (their **competence**) and then gives T_i; otherwise they
spam, and give label l with probability ξ_j[l] (their spamming strategy), whatever T_i is. So

    p(answer a | T = t) = θ_j [a = t] + (1 − θ_j) ξ_j[a].

EM (the paper's EM variant, not its variational Bayes one): the E-step gives each unit's posterior
over its true label and, per rating, the posterior probability that the annotator knew
(``q(T = a) θ_j / (θ_j + (1 − θ_j) ξ_j[a])``); the M-step sets θ_j to their share of knowing and
ξ_j to the spread of their spamming over labels, each count smoothed by ``smoothing`` (default
0.01 / L, as in MACE's own code) before normalising. Each of ``restarts`` runs starts from random
θ_j and ξ_j (uniform on [1, 1.5], normalised, as MACE does) drawn from
``numpy.random.default_rng(seed)``, stops after ``max_iter`` steps or when the mean log-likelihood
per unit moves less than ``tol``; the run with the highest log-likelihood is kept. The same data and
seed give the same fit. Ties in the final label go to the label listed first.

Everything is a per-rating array and ``bincount`` sums over units or annotators: one step costs
O(ratings + units × labels). The tests check it against crowd-kit's ``MACE(method="em")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .ratings import ANNOTATOR_COLUMNS, UNIT_COLUMNS, LabelModel, Ratings, nominal_ratings

EPS = 1e-12
NOISE = 0.5  # starting values are uniform on [1, 1 + NOISE] before normalising


@dataclass(frozen=True)
class Mace(LabelModel):
    """The fit: per unit its most probable label and that label's posterior (``units``, columns
    ``UNIT_COLUMNS``); per annotator their competence θ (the chance they are not spamming) and the
    units they rated (``annotators``, ``ANNOTATOR_COLUMNS``); the labels (in the order of
    ``posteriors``' columns and of each strategy), each annotator's spamming strategy ξ, and the
    kept run: its log-likelihood (summed over units), steps, whether it converged, and which restart."""

    units: pd.DataFrame
    annotators: pd.DataFrame
    labels: list[Any]
    strategies: dict[Any, np.ndarray]
    posteriors: np.ndarray  # units × labels
    log_likelihood: float
    iterations: int
    converged: bool
    restart: int


@dataclass(frozen=True)
class _Run:
    competence: np.ndarray  # θ, per annotator
    strategy: np.ndarray  # ξ, annotators × labels
    posteriors: np.ndarray  # labels × units
    log_likelihood: float
    iterations: int
    converged: bool


SIDE_BY_SIDE = 50_000  # ratings × restarts up to which the restarts step side by side (one call steps them all)


@dataclass(frozen=True)
class _Index:
    """What every step reads of the ratings, computed once per fit, for ``runs`` runs stepped side
    by side: each run's copy of the ratings is offset into its own block of every count, so one
    ``bincount`` steps every run, and each bin sums the same ratings in the same order as the run
    alone would (the same numbers; on small data it saves numpy's overhead per call, on large data
    one run at a time stays in cache). Per rating: its unit, annotator, (annotator, label) cell and
    (label, unit) entry. A rating's p(a | T ≠ a) and p(a | T = a) depend only on its cell, so a
    step takes their logarithms once per cell (annotators × labels) and gathers them per rating."""

    unit: np.ndarray
    annotator: np.ndarray
    cell: np.ndarray  # annotator × labels + label
    entry: np.ndarray  # label × units + unit
    n_units: int
    n_annotators: int
    n_labels: int
    runs: int
    rated: np.ndarray  # ratings per annotator (float)

    @classmethod
    def of(cls, r: Ratings, runs: int) -> _Index:
        n_u, n_k, n_l = r.n_units, r.n_annotators, r.n_labels
        block = np.repeat(np.arange(runs, dtype=np.int64), len(r.unit))

        def offset(codes: np.ndarray, size: int) -> np.ndarray:
            codes = codes.astype(np.int64)
            return codes if runs == 1 else np.tile(codes, runs) + block * size

        return cls(
            offset(r.unit, n_u), offset(r.annotator, n_k), offset(r.annotator * n_l + r.label, n_k * n_l),
            offset(r.label * n_u + r.unit, n_l * n_u), n_u, n_k, n_l, runs,
            np.bincount(r.annotator, minlength=n_k).astype(float),
        )


def _e_step(r: _Index, competence: np.ndarray, strategy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run: the units' posteriors over the true label (runs × labels × units: sums over labels
    run along an outer axis, which numpy does fast), the log-likelihood, and per rating the
    posterior probability that its annotator knew the answer."""
    n_u, n_l, n_r = r.n_units, r.n_labels, r.runs
    theta = np.repeat(competence, n_l, axis=1).ravel()  # per cell
    spam = np.clip((1 - theta) * strategy.ravel(), EPS, None)  # p(a | T ≠ a)
    match = spam + theta  # p(a | T = a)
    log_spam = np.log(spam)
    log_lik = np.bincount(r.entry, weights=(np.log(match) - log_spam)[r.cell], minlength=n_r * n_l * n_u)
    log_lik = log_lik.reshape(n_r, n_l, n_u)
    prior = np.bincount(r.unit, weights=log_spam[r.cell], minlength=n_r * n_u).reshape(n_r, n_u) - np.log(n_l)
    log_lik += prior[:, None, :]  # and the uniform prior
    top = log_lik.max(axis=1)
    posteriors = np.exp(log_lik - top[:, None, :])
    total = posteriors.sum(axis=1)
    posteriors /= total[:, None, :]
    knew = posteriors.ravel()[r.entry] * theta[r.cell] / match[r.cell]
    return posteriors, (top + np.log(total)).sum(axis=1), knew


def _m_step(r: _Index, knew: np.ndarray, smoothing: float) -> tuple[np.ndarray, np.ndarray]:
    n_k, n_l, n_r = r.n_annotators, r.n_labels, r.runs
    known = np.bincount(r.annotator, weights=knew, minlength=n_r * n_k).reshape(n_r, n_k) + smoothing
    rated = r.rated + 2 * smoothing
    spammed = np.bincount(r.cell, weights=1 - knew, minlength=n_r * n_k * n_l).reshape(n_r, n_k, n_l) + smoothing
    return known / rated, spammed / spammed.sum(axis=2, keepdims=True)


def _start(r: Ratings, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    start = rng.uniform(1, 1 + NOISE, size=(r.n_annotators, 2))
    strategy = rng.uniform(1, 1 + NOISE, size=(r.n_annotators, r.n_labels))
    return start[:, 1] / start.sum(axis=1), strategy / strategy.sum(axis=1, keepdims=True)


def _runs(
    r: Ratings, rng: np.random.Generator, smoothing: float, tol: float, max_iter: int, restarts: int,
    short: int | None = None,
) -> list[_Run]:
    """Each restart's EM run: side by side on small data (``SIDE_BY_SIDE``), else one after another.
    With ``short``, every restart runs that many steps only, and the one with the highest
    log-likelihood then goes on from where it stopped, up to ``max_iter`` steps in all."""
    starts = [_start(r, rng) for _ in range(restarts)]  # the draws in the order of one run after another
    steps = max_iter if short is None else min(short, max_iter)
    if len(r.unit) * restarts <= SIDE_BY_SIDE:
        runs = _em(_Index.of(r, restarts), starts, smoothing, tol, steps)
    else:
        index = _Index.of(r, 1)
        runs = [run for start in starts for run in _em(index, [start], smoothing, tol, steps)]
    if steps == max_iter:
        return runs
    best = max(range(len(runs)), key=lambda i: runs[i].log_likelihood)
    if runs[best].converged:
        return runs
    (more,) = _em(_Index.of(r, 1), [(runs[best].competence, runs[best].strategy)], smoothing, tol, max_iter - steps)
    runs[best] = _Run(more.competence, more.strategy, more.posteriors, more.log_likelihood,
                      steps + more.iterations, more.converged)
    return runs


def _em(
    r: _Index, starts: list[tuple[np.ndarray, np.ndarray]], smoothing: float, tol: float, max_iter: int
) -> list[_Run]:
    """EM from each start, stepped side by side; a run that converges keeps its figures, and its
    parameters stay as they were while the others go on."""
    competence = np.stack([c for c, _ in starts])
    strategy = np.stack([s for _, s in starts])
    done: dict[int, _Run] = {}
    active = np.ones(r.runs, dtype=bool)
    previous = np.full(r.runs, -np.inf)
    iterations = 0
    while iterations < max_iter and active.any():
        iterations += 1
        posteriors, log_likelihood, knew = _e_step(r, competence, strategy)
        for k in np.flatnonzero(active & (np.abs(log_likelihood - previous) < tol * r.n_units)).tolist():
            # converged: the parameters are those this E-step read, so its figures stand
            done[k] = _Run(competence[k].copy(), strategy[k].copy(), posteriors[k].copy(), float(log_likelihood[k]),
                           iterations, True)
            active[k] = False
        previous = log_likelihood
        if active.any():
            new_competence, new_strategy = _m_step(r, knew, smoothing)
            competence = np.where(active[:, None], new_competence, competence)
            strategy = np.where(active[:, None, None], new_strategy, strategy)
    if active.any():
        posteriors, log_likelihood, _ = _e_step(r, competence, strategy)
        for k in np.flatnonzero(active).tolist():
            done[k] = _Run(competence[k].copy(), strategy[k].copy(), posteriors[k].copy(), float(log_likelihood[k]),
                           iterations, False)
    return [done[k] for k in range(r.runs)]


def mace(
    rows: Ratings | pd.DataFrame | Iterable[tuple[Any, Any, Any]],
    *,
    labels: Sequence[Any] | None = None,
    restarts: int = 10,
    max_iter: int = 50,
    tol: float = 1e-6,
    smoothing: float | None = None,
    seed: int = 0,
    short: int | None = None,
) -> Mace:
    """Fit MACE to nominal ratings by EM with random restarts.

    ``rows``: (unit, annotator, label), one per rating (a frame's first three columns), or ratings
    already coded (``Ratings``); a row with a
    missing label (None, NaN) is left out. ``labels``: the label set in the order to report it
    (default: the order labels are first seen). ``smoothing`` is added to every expected count
    (default 0.01 / the number of labels). ``short``: every restart runs only that many steps and
    the best of them goes on to ``max_iter`` (the "short runs" start of Biernacki, Celeux & Govaert
    2003, "Choosing starting values for the EM algorithm", CSDA 41): the restarts still pick the
    basin, at a fraction of the steps. None: every restart runs to the end, as MACE's own code does.
    ValueError on ``restarts``, ``max_iter`` or ``short`` below 1."""
    if restarts < 1 or max_iter < 1 or (short is not None and short < 1):
        raise ValueError("restarts, max_iter and short must be at least 1")
    r = nominal_ratings(rows, labels)
    n_l = r.n_labels
    if r.n_units == 0 or n_l == 0:
        return Mace(pd.DataFrame(columns=list(UNIT_COLUMNS)), pd.DataFrame(columns=list(ANNOTATOR_COLUMNS)),
                    list(r.labels), {}, np.zeros((0, n_l)), 0.0, 0, True, 0)
    smooth = 0.01 / n_l if smoothing is None else smoothing
    rng = np.random.default_rng(seed)
    runs = _runs(r, rng, smooth, tol, max_iter, restarts, short)
    kept = max(range(len(runs)), key=lambda i: runs[i].log_likelihood)  # the first of equals
    best = runs[kept]
    posteriors = np.ascontiguousarray(best.posteriors.T)
    return Mace(
        units=r.unit_table(posteriors),
        annotators=r.annotator_table(best.competence),
        labels=list(r.labels),
        strategies={a: best.strategy[k] for k, a in enumerate(r.annotators)},
        posteriors=posteriors,
        log_likelihood=best.log_likelihood,
        iterations=best.iterations,
        converged=best.converged,
        restart=kept,
    )


__all__ = ["Mace", "mace"]

"""The Bradley–Terry fit every comparison design shares: penalised maximum likelihood of
log-strengths from a matrix of wins, a bootstrap over observations, ranks, and the comparison
graph's connectivity. Pure: numpy and scipy.

Every design (pairs, best–worst trials, rankings) comes here as *cells*: its distinct observations,
each with what it adds to the K × K win matrix ``W`` (``W[i, j]``: wins of i over j, a tie adding
half a win each way) and how often it occurs. A bootstrap resample of the observations is then a
multinomial draw of the cells' counts, never a re-read of the rows, and the fits of many resamples
run together as one batched Newton iteration.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

# A batch of resamples holds about this many numbers per K × K array (8 bytes each).
BATCH_CELLS = 1 << 20
# Scores closer than this are equal for ranking: the fit is exact to about 1e-12.
EQUAL_SCORES = 1e-9
MAX_NEWTON_STEPS = 100
MAX_HALVINGS = 50


@dataclass(frozen=True)
class Fitted:
    """Centred log-strengths of K things and their percentile intervals (None with no resamples)."""

    scores: np.ndarray
    ci_low: np.ndarray | None
    ci_high: np.ndarray | None
    ranks: np.ndarray
    wins: np.ndarray  # K × K: wins of i over j in the data, ties halved


def check_options(n_resamples: int, confidence: float, penalty: float) -> None:
    """Refuse options the fit cannot use (ValueError)."""
    if n_resamples < 0:
        raise ValueError("n_resamples cannot be negative")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    if not penalty > 0:
        raise ValueError("penalty must be positive: it is what keeps an unbeaten thing's score finite")


def cell_matrix(cells: Sequence[Sequence[tuple[int, int, float]]], n_things: int) -> sparse.csr_matrix:
    """Cells × K² matrix: row c holds what one observation of cell c adds to the flattened ``W``,
    given as (winner, loser, weight) triples."""
    rows, cols, weights = [], [], []
    for c, triples in enumerate(cells):
        for winner, loser, weight in triples:
            rows.append(c)
            cols.append(winner * n_things + loser)
            weights.append(weight)
    shape = (len(cells), n_things * n_things)
    return sparse.csr_matrix((weights, (rows, cols)), shape=shape, dtype=float)


def fit_strengths(cells: sparse.csr_matrix, counts: np.ndarray, n_things: int, *, n_resamples: int, seed: int,
                  confidence: float, penalty: float) -> Fitted:
    """Fit the data (``counts`` of each cell), then ``n_resamples`` bootstrap resamples of the
    observations drawn from ``numpy.random.default_rng(seed)``; the interval is the percentile
    interval at ``confidence`` of each thing's resampled score."""
    counts = np.asarray(counts, dtype=float)
    wins = _win_matrices(cells, counts[None, :], n_things)
    scores = newton(wins, penalty)[0]
    if n_resamples == 0 or n_things == 0:
        return Fitted(scores, None, None, ranks(scores), wins[0])
    rng = np.random.default_rng(seed)
    total = int(counts.sum())
    probabilities = counts / total
    batch = max(1, BATCH_CELLS // max(n_things * n_things, len(counts)))
    resampled = np.empty((n_resamples, n_things))
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        drawn = rng.multinomial(total, probabilities, size=size).astype(float)
        resampled[start:start + size] = newton(_win_matrices(cells, drawn, n_things), penalty, start=scores)
    low, high = np.quantile(resampled, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
    return Fitted(scores, low, high, ranks(scores), wins[0])


def _win_matrices(cells: sparse.csr_matrix, counts: np.ndarray, n_things: int) -> np.ndarray:
    """Resamples × K × K win matrices from resamples × cells counts."""
    flat = np.asarray((cells.T @ counts.T).T)
    return flat.reshape(len(counts), n_things, n_things)


def newton(wins: np.ndarray, penalty: float, start: np.ndarray | None = None) -> np.ndarray:
    """Centred log-strengths maximising each B × K × K win matrix's penalised likelihood, all at once.

    The objective, convex in s, is Σ_ij W_ij log(1 + exp(s_j − s_i)) + penalty/2 Σ s², with gradient
    Σ_j N_ij P_ij − Σ_j W_ij + penalty s_i (N = W + Wᵀ, P_ij = expit(s_i − s_j)) and Hessian
    diag(Σ_j V_ij) − V + penalty I (V = N P (1 − P)), positive definite for any penalty > 0. Each
    step is a Newton step halved until the objective falls enough (Armijo), per resample; a resample
    stops when its Newton decrement is negligible. The likelihood's gradient sums to 0, so at the
    optimum penalty Σ s = 0: the scores come out centred, and are centred again for rounding.
    """
    n_batch, k, _ = wins.shape
    s = np.zeros((n_batch, k)) if start is None else np.broadcast_to(start, (n_batch, k)).copy()
    if k == 0:
        return s
    s -= s.mean(axis=1, keepdims=True)
    n = wins + wins.transpose(0, 2, 1)
    won = wins.sum(axis=2)
    scale = 1.0 + n.sum(axis=(1, 2))
    value = _objective(wins, s, penalty)
    active = np.ones(n_batch, dtype=bool)
    diagonal = np.arange(k)
    for _ in range(MAX_NEWTON_STEPS):
        idx = np.flatnonzero(active)
        p = expit(s[idx, :, None] - s[idx, None, :])
        gradient = (n[idx] * p).sum(axis=2) - won[idx] + penalty * s[idx]
        v = n[idx] * p * (1 - p)
        hessian = -v
        hessian[:, diagonal, diagonal] = v.sum(axis=2) + penalty
        step = -np.linalg.solve(hessian, gradient[:, :, None])[:, :, 0]
        # The all-ones direction is the Hessian's eigenvector of eigenvalue penalty, and the optimum
        # has Σ s = 0: s stays centred, and rounding along that direction (divided by the small
        # penalty) neither moves s nor keeps a resample from converging.
        step -= step.mean(axis=1, keepdims=True)
        slope = (gradient * step).sum(axis=1)  # −(Newton decrement)²
        converged = -slope < 1e-20 * scale[idx]
        s[idx[converged]] += step[converged]  # the last, full step: at this distance Newton is exact
        active[idx[converged]] = False
        idx, step, slope = idx[~converged], step[~converged], slope[~converged]
        if not len(idx):
            break
        s[idx], value[idx] = _line_search(wins[idx], s[idx], step, slope, value[idx], penalty)
    return s - s.mean(axis=1, keepdims=True)


def _line_search(wins: np.ndarray, s: np.ndarray, step: np.ndarray, slope: np.ndarray, value: np.ndarray,
                 penalty: float) -> tuple[np.ndarray, np.ndarray]:
    """The Newton step of each resample, halved until the objective falls by Armijo's rule (give or
    take its rounding, which near the optimum is larger than the fall)."""
    t = np.ones(len(s))
    trial = s + step
    trial_value = _objective(wins, trial, penalty)
    rounding = 1e-12 * (1 + np.abs(value))
    for _ in range(MAX_HALVINGS):
        short = trial_value > value + 1e-4 * t * slope + rounding
        if not short.any():
            break
        t[short] /= 2
        trial[short] = s[short] + t[short, None] * step[short]
        trial_value[short] = _objective(wins[short], trial[short], penalty)
    return trial, trial_value


def _objective(wins: np.ndarray, s: np.ndarray, penalty: float) -> np.ndarray:
    """Σ_ij W_ij log(1 + exp(s_j − s_i)) + penalty/2 Σ s², per resample."""
    losses = np.logaddexp(0.0, s[:, None, :] - s[:, :, None])
    return (wins * losses).sum(axis=(1, 2)) + penalty / 2 * (s * s).sum(axis=1)


def ranks(scores: np.ndarray) -> np.ndarray:
    """1 for the highest score; equal scores (within ``EQUAL_SCORES``) share the smaller rank."""
    higher = scores[None, :] > scores[:, None] + EQUAL_SCORES
    return 1 + higher.sum(axis=1)


def rank_order(scores: np.ndarray) -> list[int]:
    """Things by rank, equal ranks in their order of first appearance."""
    order = ranks(scores)
    return sorted(range(len(scores)), key=lambda i: (int(order[i]), i))


def thin_and_note(names: Sequence[Hashable], wins: np.ndarray) -> tuple[str | None, str | None]:
    """Why the scores cannot all be read against each other (short) and the note saying so in full:
    fewer than two things, or a comparison graph that falls apart; (None, None) when they can."""
    if len(names) < 2:
        reason = f"fewer than 2 things compared ({len(names)}): no scores"
        return reason, reason
    note = disconnected(names, wins)
    return ("the comparison graph is not connected", note) if note else (None, None)


def disconnected(names: Sequence[Hashable], wins: np.ndarray) -> str | None:
    """Which things are cut off when the comparison graph falls apart (never compared, directly or
    through others, with the largest connected set); None when it is connected."""
    linked = sparse.csr_matrix((wins + wins.T) > 0)
    n_sets, labels = connected_components(linked, directed=False)
    if n_sets < 2:
        return None
    main = int(np.argmax(np.bincount(labels)))
    members = [[names[int(i)] for i in np.flatnonzero(labels == c)] for c in range(n_sets)]
    cut_off = "; ".join(_listed(m) for c, m in enumerate(members) if c != main)
    return (
        f"the comparisons fall into {n_sets} unconnected sets: {cut_off} cut off from {_listed(members[main])}; "
        "scores compare only within a set (each set is centred on its own)"
    )


def _listed(names: Sequence[Hashable], most: int = 10) -> str:
    shown = ", ".join(str(n) for n in names[:most])
    return "{" + shown + (f" and {len(names) - most} more" if len(names) > most else "") + "}"


def plain_float(value: float | np.floating | None) -> float | None:
    """A number as a plain Python float, NaN and infinity as None (JSON holds neither)."""
    return None if value is None or not np.isfinite(value) else float(value)

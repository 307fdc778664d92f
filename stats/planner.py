"""A sample-size planner: how wide alpha's interval is expected to be for a choice of annotators per
item and items, by simulation, and what each choice costs on Prolific. Pure: numpy only.

The simulation draws whole studies from a model of the units' answers and reads the spread of
alpha over them (the central ``confidence`` share of the simulated alphas: what an interval from
such a study would span):

- from a pilot: each simulated unit is a pilot unit drawn at random, whose annotators answer from
  that unit's own answers shrunk towards the pool's answers, ``(n_uc + λ π_c) / (m_u + λ)``; λ is
  set so that studies simulated at the pilot's own size reproduce the pilot's alpha (a unit's few
  answers drawn again with replacement would agree more than its annotators did);
- from a stated prior (no pilot): a unit's answer shares are drawn from a Dirichlet around the
  stated (or uniform) answer shares π with concentration set so that the simulated alpha is the
  stated one.

Simulated studies of one size share their patterns of answers (``Patterns``), so the alphas of all
of them come from one weighted sum, as the bootstrap's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .agreement.base import LEVELS, counts_matrix
from .agreement.krippendorff_alpha import Patterns

RATERS = (2, 3, 5, 7, 10)
ITEMS = (50, 100, 200, 400, 800)
SIMULATIONS = 200
MIN_PILOT_UNITS = 10  # a pilot with fewer units rated twice or more is planned from a stated prior


@dataclass(frozen=True)
class Model:
    """Each unit's chance of each answer (units × values), and how the model was set."""

    shares: np.ndarray
    source: str  # "pilot" or "prior"
    target_alpha: float
    fitted_alpha: float
    parameter: float  # λ (pilot) or the Dirichlet concentration (prior)


def simulated_alphas(shares: np.ndarray, level: str, domain: np.ndarray, *, raters: int, items: int,
                     simulations: int, rng: np.random.Generator) -> np.ndarray:
    """Alpha of ``simulations`` studies of ``items`` units drawn from ``shares``, ``raters`` answers
    each (NaN where a study has no variation)."""
    picked = rng.integers(len(shares), size=(simulations, items))
    counts = rng.multinomial(raters, shares[picked]).reshape(simulations * items, -1)
    used = counts.sum(axis=0) > 0
    if used.sum() < 2:
        return np.full(simulations, np.nan)
    patterns = Patterns(counts[:, used], level, domain[used])
    width = len(patterns.multiplicity)
    study = np.repeat(np.arange(simulations), items)
    weights = np.bincount(study * width + patterns.of_unit, minlength=simulations * width)
    n, observed, expected, varied = patterns.totals(weights.reshape(simulations, width).astype(float), exact=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(varied & (expected > 0), 1 - (n - 1) * observed / expected, np.nan)


def _mean_alpha(shares, level, domain, raters, items, rng) -> float:
    alphas = simulated_alphas(shares, level, domain, raters=raters, items=items, simulations=60, rng=rng)
    return float(np.nanmean(alphas)) if np.isfinite(alphas).any() else float("nan")


def pilot_model(value_counts: Any, level: str, domain: Sequence[Any], pilot_alpha: float, *, seed: int = 0) -> Model:
    """The model of a pilot's units (units × values counts; units with fewer than two answers left
    out), λ found by bisection so that studies of the pilot's size reproduce ``pilot_alpha``."""
    counts = counts_matrix(value_counts)
    counts = counts[counts.sum(axis=1) >= 2].astype(float)
    if len(counts) < 2:
        raise ValueError("a pilot needs at least 2 units with two answers or more")
    values = np.asarray(domain, dtype=float if level != "nominal" else object)
    pool = counts.sum(axis=0) / counts.sum()
    m = counts.sum(axis=1, keepdims=True)
    raters, items = int(np.median(m)), len(counts)
    numbers = _numbers(values, level)

    def fitted(shrink: float) -> tuple[float, np.ndarray]:
        shares = (counts + shrink * pool) / (m + shrink)
        return _mean_alpha(shares, level, numbers, raters, items, np.random.default_rng(seed)), shares

    at, shares = fitted(0.0)
    if not np.isfinite(at):
        raise ValueError("the pilot's answers do not vary: alpha cannot be simulated from them")
    shrink = 0.0
    if at > pilot_alpha:  # alpha falls as λ grows: bisect log λ
        low, high = -5.0, 7.0
        for _ in range(14):
            middle = (low + high) / 2
            value, _ = fitted(float(np.exp(middle)))
            low, high = (middle, high) if value > pilot_alpha else (low, middle)
        shrink = float(np.exp((low + high) / 2))
        at, shares = fitted(shrink)
    return Model(shares, "pilot", pilot_alpha, at, shrink)


def prior_model(level: str, domain: Sequence[Any], prior_alpha: float, shares: Sequence[float] | None = None, *,
                units: int = 2000, seed: int = 0) -> Model:
    """The model of a stated prior: alpha ``prior_alpha`` (between 0 and 1), answer ``shares`` over
    ``domain`` (uniform by default); the Dirichlet's concentration found by bisection."""
    if not 0 < prior_alpha < 1:
        raise ValueError("the expected alpha must be between 0 and 1 (exclusive)")
    k = len(domain)
    pool = np.full(k, 1 / k) if shares is None else np.asarray(shares, dtype=float)
    if len(pool) != k or (pool < 0).any() or not pool.sum() > 0:
        raise ValueError(f"answer shares must be {k} non-negative numbers, not all 0")
    pool = pool / pool.sum()
    numbers = _numbers(np.asarray(domain, dtype=object), level)
    low, high = -6.0, 8.0  # log concentration: high concentration = units alike = low alpha
    for _ in range(18):
        middle = (low + high) / 2
        fitted = _mean_alpha(_dirichlet(pool, np.exp(middle), units, seed), level, numbers, 3, 200,
                             np.random.default_rng(seed))
        if fitted > prior_alpha:
            low = middle
        else:
            high = middle
    concentration = float(np.exp((low + high) / 2))
    shares_fit = _dirichlet(pool, concentration, units, seed)
    fitted = _mean_alpha(shares_fit, level, numbers, 3, 200, np.random.default_rng(seed))
    return Model(shares_fit, "prior", prior_alpha, fitted, concentration)


def _dirichlet(pool: np.ndarray, concentration: float, units: int, seed: int) -> np.ndarray:
    """``units`` draws from Dirichlet(``concentration`` · ``pool``), from the same random stream for
    every concentration (so that the bisection sees a smooth curve); a draw that underflows to all
    zeros is the pool's shares."""
    gamma = np.random.default_rng(seed).gamma(np.maximum(pool * concentration, 1e-3), size=(units, len(pool)))
    total = gamma.sum(axis=1, keepdims=True)
    return np.where(total > 0, gamma / np.where(total > 0, total, 1), pool)


def _numbers(values: np.ndarray, level: str) -> np.ndarray:
    return values.astype(float) if level != "nominal" else np.arange(len(values), dtype=float)


def plan(model: Model, level: str, domain: Sequence[Any], *, raters: Sequence[int] = RATERS,
         items: Sequence[int] = ITEMS, simulations: int = SIMULATIONS, confidence: float = 0.95,
         seed: int = 0) -> list[dict[str, Any]]:
    """For every (annotators per item, items): the median simulated alpha and the expected width of
    its ``confidence`` interval (the spread of alpha over ``simulations`` simulated studies)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r} (known: {', '.join(LEVELS)})")
    if any(r < 2 for r in raters) or any(n < 2 for n in items):
        raise ValueError("a choice needs at least 2 annotators per item and 2 items")
    numbers = _numbers(np.asarray(domain, dtype=object), level)
    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    for r in raters:
        for n in items:
            alphas = simulated_alphas(model.shares, level, numbers, raters=r, items=n, simulations=simulations, rng=rng)
            alphas = alphas[np.isfinite(alphas)]
            if not len(alphas):
                out.append({"raters": r, "items": n, "alpha": None, "width": None})
                continue
            low, high = np.quantile(alphas, [(1 - confidence) / 2, (1 + confidence) / 2])
            out.append({"raters": r, "items": n, "alpha": float(np.median(alphas)), "width": float(high - low),
                        "ci_low": float(low), "ci_high": float(high)})
    return out


@dataclass(frozen=True)
class Prices:
    """What a Prolific place costs: the reward (minor units), the service fee on rewards, VAT on
    the fee, and the shares of places lost (returned or timed out: re-opened, unpaid) and of paid
    annotators whose answers quality control excludes (paid, not counted)."""

    reward: int
    fee_rate: float = 1 / 3
    vat_rate: float = 0.2
    returns: float = 0.1
    exclusions: float = 0.1


def cost(items: int, raters: int, items_per_session: int, prices: Prices) -> dict[str, int]:
    """The Prolific cost of ``raters`` counted answers on each of ``items`` items in one pool."""
    if not 0 <= prices.returns < 1 or not 0 <= prices.exclusions < 1:
        raise ValueError("the shares of returns and exclusions must be between 0 and 1 (exclusive)")
    sessions = -(-items * raters // items_per_session)
    paid = int(np.ceil(sessions / (1 - prices.exclusions)))  # excluded annotators are paid too
    places = int(np.ceil(paid / (1 - prices.returns)))  # returned places are re-opened, not paid
    rewards = paid * prices.reward
    fees = int(round(rewards * prices.fee_rate))
    vat = int(round(fees * prices.vat_rate))
    return {"sessions": sessions, "paid": paid, "places": places, "rewards": rewards, "fees": fees, "vat": vat,
            "total": rewards + fees + vat}

"""Bradley–Terry scores of paired comparisons (left, right, winner), with bootstrap intervals, ranks,
win rates and the left/right position bias. Pure: numpy and scipy. See docs/agreement.md.

The model: P(i beats j) = exp(s_i) / (exp(s_i) + exp(s_j)), s fitted by penalised maximum
likelihood (``strengths``). A tie counts as half a win each way. Davidson's (1970) model instead
adds a tie parameter; halving keeps one parameter per thing, needs no assumption about how ties
arise, and is what Chatbot Arena and choix-style fits do: a tie pulls the two scores together
exactly as one win each way at half weight would.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import binomtest

from .strengths import (
    cell_matrix,
    check_options,
    fit_strengths,
    plain_float,
    rank_order,
    thin_and_note,
)

COLUMNS = ("left", "right", "winner")
OUTCOMES = ("left", "right", "tie")
LEFT, RIGHT, TIE = range(3)


@dataclass(frozen=True)
class ThingScore:
    """One thing's fitted score (centred log-strength), its interval and rank, and its record."""

    thing: Hashable
    score: float
    ci_low: float | None
    ci_high: float | None
    rank: int
    wins: int
    losses: int
    ties: int
    comparisons: int

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, "ci_low": self.ci_low, "ci_high": self.ci_high, "rank": self.rank,
                "wins": self.wins, "losses": self.losses, "ties": self.ties, "comparisons": self.comparisons}


@dataclass(frozen=True)
class WinRate:
    """The share of ``thing``'s comparisons with ``over`` that it won, ties as half; ``n`` comparisons."""

    thing: Hashable
    over: Hashable
    rate: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"thing": plain_name(self.thing), "over": plain_name(self.over), "rate": self.rate, "n": self.n}


@dataclass(frozen=True)
class PositionBias:
    """Among ``n`` decisive comparisons (ties left out), the share won by the thing shown on the left,
    its Wilson interval at ``confidence`` and the exact two-sided binomial p-value against 0.5."""

    n: int
    left_wins: int
    left_share: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    confidence: float

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "left_wins": self.left_wins, "left_share": self.left_share, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "p_value": self.p_value, "confidence": self.confidence}


@dataclass(frozen=True)
class BradleyTerry:
    comparisons: int
    things: tuple[ThingScore, ...]  # by rank, equal ranks in order of first appearance
    win_rates: tuple[WinRate, ...]  # every ordered pair compared at least once
    position_bias: PositionBias
    thin: str | None  # why the scores cannot all be read against each other; None when they can
    note: str | None  # what the reader should know (the thin reason, in full)
    n_resamples: int
    seed: int
    confidence: float
    penalty: float

    def score(self, thing: Hashable) -> ThingScore:
        return next(t for t in self.things if t.thing == thing)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able values: the shape ``analyse --pairs --json`` prints per group."""
        return {
            "comparisons": self.comparisons,
            "things": {plain_name(t.thing): t.as_dict() for t in self.things},
            "win_rates": [w.as_dict() for w in self.win_rates],
            "position_bias": self.position_bias.as_dict(),
            "note": self.note,
        }


def bradley_terry(rows: Any, *, n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
                  penalty: float = 0.01) -> BradleyTerry:
    """Bradley–Terry scores of ``rows``: (left, right, winner) with winner "left", "right" or "tie",
    or a pandas DataFrame with those columns. Things are any hashable names.

    Scores are log-strengths centred to mean 0, fitted with an L2 penalty ``penalty``/2 Σ s² (the
    Gaussian prior of variance 1/penalty that choix's ``alpha`` documents) so that a thing that won
    every comparison still gets a finite score. Intervals: percentile intervals at ``confidence``
    over ``n_resamples`` bootstrap resamples of the comparisons (``numpy.random.default_rng(seed)``);
    None when ``n_resamples`` is 0. A bad row is refused (ValueError naming the row).
    """
    check_options(n_resamples, confidence, penalty)
    names, left, right, outcome = _encoded(_pair_rows(rows))
    k = len(names)
    keys = (left * k + right) * 3 + outcome
    distinct, counts = np.unique(keys, return_counts=True)
    cells = cell_matrix([_cell(int(key), k) for key in distinct], k)
    fitted = fit_strengths(cells, counts, k, n_resamples=n_resamples, seed=seed, confidence=confidence,
                           penalty=penalty)
    thin, note = thin_and_note(names, fitted.wins)
    record = _record(left, right, outcome, k)
    order = rank_order(fitted.scores)
    things = tuple(
        ThingScore(
            names[i], float(fitted.scores[i]),
            None if fitted.ci_low is None else plain_float(fitted.ci_low[i]),
            None if fitted.ci_high is None else plain_float(fitted.ci_high[i]),
            int(fitted.ranks[i]), *(int(x) for x in record[i]),
        )
        for i in order
    )
    return BradleyTerry(
        comparisons=len(outcome), things=things, win_rates=_win_rates(names, fitted.wins, order),
        position_bias=position_bias(outcome, confidence), thin=thin, note=note, n_resamples=n_resamples, seed=seed,
        confidence=confidence, penalty=penalty,
    )


def _pair_rows(rows: Any) -> list[Any]:
    """``rows`` as a list; a DataFrame (anything with ``columns`` and ``itertuples``) by its columns."""
    if hasattr(rows, "columns") and hasattr(rows, "itertuples"):
        missing = [c for c in COLUMNS if c not in rows.columns]
        if missing:
            raise ValueError(f"the frame has no column(s) {', '.join(missing)} (need left, right, winner)")
        return list(rows[list(COLUMNS)].itertuples(index=False, name=None))
    return list(rows)


def _encoded(rows: list[Any]) -> tuple[list[Hashable], np.ndarray, np.ndarray, np.ndarray]:
    """The things in order of first appearance, and each row's left, right and outcome as codes.

    The rows are checked column by column (names once per distinct name); only when something is
    wrong are they read again one by one, to name every bad row (ValueError).
    """
    outcome_of = {o: n for n, o in enumerate(OUTCOMES)}
    try:
        lefts, rights, winners = zip(*rows, strict=True) if rows else ((), (), ())
        index: dict[Hashable, int] = {}
        codes = [index.setdefault(name, len(index)) for pair in zip(lefts, rights) for name in pair]
        outcome = np.array([outcome_of.get(w, -1) for w in winners], dtype=np.int64)
    except (TypeError, ValueError):  # a row not of three, an unhashable name or winner
        _refuse(rows)
        raise
    left, right = np.array(codes[0::2], dtype=np.int64), np.array(codes[1::2], dtype=np.int64)
    if (outcome < 0).any() or (left == right).any() or any(empty_name(name) for name in index):
        _refuse(rows)
    return list(index), left, right, outcome


def _refuse(rows: list[Any]) -> None:
    """Every bad row named, in one ValueError (the first five, and how many more)."""
    errors: list[str] = []
    for r, row in enumerate(rows):
        try:
            left, right, winner = row
        except (TypeError, ValueError):
            errors.append(f"row {r + 1}: expected (left, right, winner), got {row!r}")
            continue
        problem = pair_problem(left, right, winner)
        if problem:
            errors.append(f"row {r + 1}: {problem}")
    if errors:
        raise ValueError("; ".join(errors[:5]) + (f"; and {len(errors) - 5} more" if len(errors) > 5 else ""))


def pair_problem(left: Any, right: Any, winner: Any) -> str | None:
    """What is wrong with one comparison, or None."""
    for side, name in (("left", left), ("right", right)):
        if empty_name(name):
            return f"{side} is empty"
        try:
            hash(name)
        except TypeError:
            return f"{side} {name!r} cannot name a thing"
    if left == right:
        return f"left and right are the same thing {left!r}"
    if not isinstance(winner, str) or winner not in OUTCOMES:
        return f"winner {winner!r} is not left, right or tie"
    return None


def empty_name(name: Any) -> bool:
    """None, blank text or NaN (a DataFrame's missing value)."""
    return name is None or (isinstance(name, str) and not name.strip()) or (isinstance(name, float) and name != name)


def _cell(key: int, k: int) -> list[tuple[int, int, float]]:
    """What one comparison of cell ``key`` ((left·K + right)·3 + outcome) adds to the win matrix."""
    pair, outcome = divmod(key, 3)
    left, right = divmod(pair, k)
    if outcome == LEFT:
        return [(left, right, 1.0)]
    if outcome == RIGHT:
        return [(right, left, 1.0)]
    return [(left, right, 0.5), (right, left, 0.5)]


def _record(left: np.ndarray, right: np.ndarray, outcome: np.ndarray, k: int) -> np.ndarray:
    """K × 4: wins, losses, ties, comparisons of each thing."""
    winner = np.where(outcome == LEFT, left, right)[outcome != TIE]
    loser = np.where(outcome == LEFT, right, left)[outcome != TIE]
    tied = np.concatenate([left[outcome == TIE], right[outcome == TIE]])
    appeared = np.concatenate([left, right])
    return np.stack([np.bincount(x, minlength=k) for x in (winner, loser, tied, appeared)], axis=1)


def _win_rates(names: list[Hashable], wins: np.ndarray, order: list[int]) -> tuple[WinRate, ...]:
    """Every ordered pair compared at least once: W_ij / (W_ij + W_ji), ties halved."""
    compared = wins + wins.T  # each comparison adds 1 in all, a tie half each way
    return tuple(
        WinRate(names[i], names[j], float(wins[i, j] / compared[i, j]), int(round(compared[i, j])))
        for i in order for j in order if i != j and compared[i, j] > 0
    )


def position_bias(outcome: np.ndarray, confidence: float) -> PositionBias:
    """The left position's share of the decisive comparisons, Wilson interval, exact binomial test."""
    n = int((outcome != TIE).sum())
    left_wins = int((outcome == LEFT).sum())
    if n == 0:
        return PositionBias(0, 0, None, None, None, None, confidence)
    test = binomtest(left_wins, n, 0.5)
    interval = test.proportion_ci(confidence_level=confidence, method="wilson")
    return PositionBias(n, left_wins, left_wins / n, float(interval.low), float(interval.high), float(test.pvalue),
                        confidence)


def plain_name(name: Hashable) -> Any:
    """A thing's name as a JSON key: text and numbers as they are (numpy's unwrapped), else its text."""
    if isinstance(name, np.generic):
        name = name.item()
    return name if isinstance(name, str | int | float | bool) else str(name)

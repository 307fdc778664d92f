"""Best–worst scaling (MaxDiff) and rankings of K things shown at once, scored with the Bradley–Terry
fit of the pairs each answer implies. Pure: numpy and scipy. See docs/agreement.md.

- ``best_worst``: rows of (shown, best, worst), ``shown`` in on-screen order. The counting score
  (times best − times worst) / times shown, and a fitted score from the implied pairs: the best
  beats every other thing shown, and every other thing shown beats the worst (2K − 3 pairs). This is
  the common approximation of the MaxDiff model (Louviere, Flynn & Marley 2015): it treats the
  implied pairs as independent comparisons, so the scores are on the Bradley–Terry scale, not the
  MaxDiff model's (the tests check they recover a planted order). The bootstrap resamples whole trials, never
  single pairs, so the intervals keep the pairs of one answer together.
- ``rankings``: rows of (shown, ranking from best to worst); every higher-ranked thing beats every
  lower-ranked one (full rank-breaking, K(K − 1)/2 pairs per ranking), then the same fit.

Both also report whether the screen position sways the choice: the share of best (worst, first)
choices at each position against the 1/K expected of a position that does not matter, with a
chi-square test (its approximation wants 5 or more expected choices per position).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import chisquare

from .bradley_terry import empty_name, plain_name
from .strengths import Fitted, cell_matrix, check_options, fit_strengths, plain_float, rank_order, thin_and_note


@dataclass(frozen=True)
class PositionShare:
    """How often the thing at screen ``position`` (1 = first) was chosen, of ``shown`` trials with
    that position; ``expected``: the share a position that does not matter would get (mean 1/K)."""

    position: int
    chosen: int
    shown: int
    share: float
    expected: float

    def as_dict(self) -> dict[str, Any]:
        return {"position": self.position, "chosen": self.chosen, "shown": self.shown, "share": self.share,
                "expected": self.expected}


@dataclass(frozen=True)
class ChoicePositions:
    """Choices by screen position, and the chi-square test of observed against expected counts."""

    n: int
    positions: tuple[PositionShare, ...]
    chi2: float | None
    p_value: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "positions": [p.as_dict() for p in self.positions], "chi2": self.chi2,
                "p_value": self.p_value}


@dataclass(frozen=True)
class Scored:
    """One thing's fitted score (centred log-strength), interval and rank, and how it was chosen:
    ``counts`` holds the design's counts (best–worst: shown, best, worst, count_score; rankings:
    shown, first, mean_place)."""

    thing: Hashable
    score: float
    ci_low: float | None
    ci_high: float | None
    rank: int
    counts: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {**self.counts, "score": self.score, "ci_low": self.ci_low, "ci_high": self.ci_high, "rank": self.rank}


@dataclass(frozen=True)
class Choices:
    """The result of ``best_worst`` or ``rankings``."""

    design: str  # "best_worst" or "rankings"
    trials: int
    things: tuple[Scored, ...]  # by rank, equal ranks in order of first appearance
    positions: dict[str, ChoicePositions]  # "best" and "worst", or "first"
    thin: str | None
    note: str | None
    n_resamples: int
    seed: int
    confidence: float
    penalty: float

    def scored(self, thing: Hashable) -> Scored:
        return next(t for t in self.things if t.thing == thing)

    def as_dict(self) -> dict[str, Any]:
        return {
            "design": self.design, "trials": self.trials,
            "things": {plain_name(t.thing): t.as_dict() for t in self.things},
            "position_bias": {k: v.as_dict() for k, v in self.positions.items()},
            "note": self.note, "resamples": self.n_resamples, "seed": self.seed, "confidence": self.confidence,
            "penalty": self.penalty,
        }


def best_worst(rows: Any, *, n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
               penalty: float = 0.01) -> Choices:
    """Counting and fitted scores of best–worst trials: rows of (shown, best, worst).

    The fit, its penalty and the bootstrap are ``bradley_terry``'s, over the implied pairs (see the
    module's docstring), resampling trials. A bad row is refused (ValueError naming the row).
    """
    check_options(n_resamples, confidence, penalty)
    index, shown, chosen = _trials(rows, _best_worst_problem, "(shown, best, worst)")
    k = len(index)
    best, worst = [c[0] for c in chosen], [c[1] for c in chosen]
    counts = {"shown": _appearances(shown, k), "best": _tally(best, k), "worst": _tally(worst, k)}
    fitted, thin, note = _fit(index, shown, chosen, best_worst_pairs, n_resamples, seed, confidence, penalty)
    per_thing = [
        {"shown": int(counts["shown"][i]), "best": int(counts["best"][i]), "worst": int(counts["worst"][i]),
         "count_score": (int(counts["best"][i]) - int(counts["worst"][i])) / int(counts["shown"][i])}
        for i in range(k)
    ]
    positions = {"best": choice_positions(shown, best), "worst": choice_positions(shown, worst)}
    return Choices("best_worst", len(shown), _scored(list(index), fitted, per_thing), positions, thin, note,
                   n_resamples, seed, confidence, penalty)


def rankings(rows: Any, *, n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
             penalty: float = 0.01) -> Choices:
    """Fitted scores of rankings: rows of (shown, ranking from best to worst), every higher-ranked
    thing beating every lower-ranked one. A bad row is refused (ValueError naming the row)."""
    check_options(n_resamples, confidence, penalty)
    index, shown, chosen = _trials(rows, _ranking_problem, "(shown, ranking)")
    k = len(index)
    appeared = _appearances(shown, k)
    first = _tally([r[0] for r in chosen], k)
    place_sum = np.zeros(k)
    for ranking in chosen:
        place_sum[list(ranking)] += np.arange(1, len(ranking) + 1)
    fitted, thin, note = _fit(index, shown, chosen, ranking_pairs, n_resamples, seed, confidence, penalty)
    per_thing = [{"shown": int(appeared[i]), "first": int(first[i]), "mean_place": float(place_sum[i] / appeared[i])}
                 for i in range(k)]
    positions = {"first": choice_positions(shown, [r[0] for r in chosen])}
    return Choices("rankings", len(shown), _scored(list(index), fitted, per_thing), positions, thin, note,
                   n_resamples, seed, confidence, penalty)


def _trials(rows: Any, problem_of: Any, shape: str
            ) -> tuple[dict[Hashable, int], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """The things (in order of first appearance), each trial's shown things and its choices (best
    and worst, or the ranking) as codes. Every bad row named (ValueError)."""
    index: dict[Hashable, int] = {}
    shown_codes: list[tuple[int, ...]] = []
    chosen: list[tuple[int, ...]] = []
    errors: list[str] = []
    for r, row in enumerate(rows):
        try:
            shown, *choice = (_as_list(item) for item in row)
            problem = problem_of(shown, *choice)
        except (TypeError, ValueError):
            problem = f"expected {shape}, got {row!r}"
        if problem:
            errors.append(f"row {r + 1}: {problem}")
            continue
        shown_codes.append(tuple(index.setdefault(name, len(index)) for name in shown))
        chosen.append(_choice_codes(index, choice))
    if errors:
        raise ValueError("; ".join(errors[:5]) + (f"; and {len(errors) - 5} more" if len(errors) > 5 else ""))
    return index, shown_codes, chosen


def _as_list(item: Any) -> Any:
    """A sequence of things (a list, tuple, numpy array, Series) as a list; a name as it is."""
    if isinstance(item, str | bytes):
        return item
    if hasattr(item, "tolist"):
        item = item.tolist()
    return list(item) if isinstance(item, Sequence) else item


def _choice_codes(index: dict[Hashable, int], choice: list[Any]) -> tuple[int, ...]:
    """Best and worst as codes, or a ranking's codes."""
    if len(choice) == 2:
        return index[choice[0]], index[choice[1]]
    return tuple(index[name] for name in choice[0])


def _shown_problem(shown: Any) -> str | None:
    if not isinstance(shown, list):
        return f"shown must be a sequence of things, not {shown!r}"
    if len(shown) < 2:
        return f"fewer than 2 things shown ({len(shown)})"
    if any(empty_name(name) for name in shown):
        return "an empty name among the things shown"
    for name in shown:
        try:
            hash(name)
        except TypeError:
            return f"{name!r} cannot name a thing"
    twice = sorted({str(name) for name in shown if shown.count(name) > 1})
    return f"shown names {', '.join(twice)} more than once" if twice else None


def _best_worst_problem(shown: Any, best: Any, worst: Any) -> str | None:
    problem = _shown_problem(shown)
    if problem:
        return problem
    for what, name in (("best", best), ("worst", worst)):
        if name not in shown:
            return f"{what} {name!r} is not among the things shown"
    return f"best and worst are the same thing {best!r}" if best == worst else None


def _ranking_problem(shown: Any, ranking: Any) -> str | None:
    problem = _shown_problem(shown)
    if problem:
        return problem
    if not isinstance(ranking, list):
        return f"the ranking must be a sequence of things, not {ranking!r}"
    if len(ranking) != len(shown) or set(ranking) != set(shown):
        return f"the ranking {ranking!r} is not an order of the things shown {shown!r}"
    return None


def best_worst_pairs(shown: tuple[Any, ...], choice: tuple[Any, ...]) -> list[tuple[Any, Any, float]]:
    """The best beats every other thing shown; every other thing beats the worst."""
    best, worst = choice
    return [(best, x, 1.0) for x in shown if x != best] + [(x, worst, 1.0) for x in shown if x not in (best, worst)]


def ranking_pairs(shown: tuple[Any, ...], ranking: tuple[Any, ...]) -> list[tuple[Any, Any, float]]:
    """Full rank-breaking: every higher-ranked thing beats every lower-ranked one."""
    return [(ranking[a], ranking[b], 1.0) for a in range(len(ranking)) for b in range(a + 1, len(ranking))]


def _fit(index: dict[Hashable, int], shown: list[tuple[int, ...]], chosen: list[tuple[int, ...]], pairs_of: Any,
         n_resamples: int,
         seed: int, confidence: float, penalty: float) -> tuple[Fitted, str | None, str | None]:
    """The fit over distinct trials (a cell each: the set shown, not its order, and the choices),
    resampling trials; with its thin reason and note."""
    k = len(index)
    distinct: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    for trial, choice in zip(shown, chosen):
        key = (tuple(sorted(trial)), choice)
        distinct[key] = distinct.get(key, 0) + 1
    cells = cell_matrix([pairs_of(s, choice) for s, choice in distinct], k)
    fitted = fit_strengths(cells, np.array(list(distinct.values()), dtype=float), k, n_resamples=n_resamples,
                           seed=seed, confidence=confidence, penalty=penalty)
    thin, note = thin_and_note(list(index), fitted.wins)
    return fitted, thin, note


def _appearances(shown: list[tuple[int, ...]], k: int) -> np.ndarray:
    return _tally([code for trial in shown for code in trial], k)


def _tally(codes: list[int], k: int) -> np.ndarray:
    """How often each of the k things occurs in ``codes``."""
    return np.bincount(np.array(codes, dtype=np.int64), minlength=k)


def _scored(names: list[Hashable], fitted: Fitted, per_thing: list[dict[str, Any]]) -> tuple[Scored, ...]:
    return tuple(
        Scored(
            names[i], float(fitted.scores[i]),
            None if fitted.ci_low is None else plain_float(fitted.ci_low[i]),
            None if fitted.ci_high is None else plain_float(fitted.ci_high[i]),
            int(fitted.ranks[i]), per_thing[i],
        )
        for i in rank_order(fitted.scores)
    )


def choice_positions(shown: list[tuple[int, ...]], chosen: list[int]) -> ChoicePositions:
    """The share of choices at each screen position against 1/K, with a chi-square test over the
    positions (expected count at position p: Σ 1/K over the trials showing a p-th thing)."""
    n = len(shown)
    if n == 0:
        return ChoicePositions(0, (), None, None)
    width = max(len(s) for s in shown)
    observed, trials, expected = np.zeros(width), np.zeros(width), np.zeros(width)
    for trial, choice in zip(shown, chosen):
        observed[trial.index(choice)] += 1
        trials[: len(trial)] += 1
        expected[: len(trial)] += 1 / len(trial)
    test = chisquare(observed, expected)
    positions = tuple(
        PositionShare(p + 1, int(observed[p]), int(trials[p]), float(observed[p] / trials[p]),
                      float(expected[p] / trials[p]))
        for p in range(width)
    )
    return ChoicePositions(n, positions, plain_float(test.statistic), plain_float(test.pvalue))

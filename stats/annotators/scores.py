"""Quality-control scores per annotator, for the researcher to sort, filter and exclude by. Pure.

``annotator_scores(frame, level=...)`` reads the answers (``stats.annotators.answers``: unit,
annotator, value, optionally seconds and expected or correct) and gives one row per annotator, in
order of first appearance, with the columns ``SCORE_COLUMNS``:

- ``answers``: answers given (rows with a value).
- ``median_seconds``: the median time per answer, over the answers with a time.
- ``too_fast``, ``too_fast_share``: answers faster than the speed threshold, and their share of
  the annotator's timed answers. An answer is too fast when its seconds are below
  ``too_fast_seconds``, or below ``too_fast_fraction`` × the median seconds of all the answers to
  its unit (either test or both, as given; neither given: no speed figures).
- ``gold_items``, ``gold_correct``, ``gold_accuracy``: answers to gold items, how many were correct,
  and their share (none without gold items).
- ``attention_passed``, ``attention_failed``: attention checks passed and failed, counted from
  ``attention`` (a frame with the columns annotator and passed, one row per check taken; None when
  not given). An annotator who took checks but gave no answer gets a row of their own.
- ``shared_units``, ``pairs``, ``disagreement``, ``agreement``, ``match_share``: leave-one-out
  agreement with the other annotators of the same units (``stats.annotators.agreement``).
- ``competence``: MACE's competence (the chance the annotator is not spamming;
  ``stats.gold.mace``), or Dawid–Skene's (the chance of the true label; ``stats.gold.dawid_skene``),
  over all the answers with their values as categories: meaningful for nominal data and scales of a
  few points, not for free numbers (refused above ``MAX_CATEGORIES`` values); ``competence=None``
  leaves it out. ``competence_note`` says when it rests on too few answers to be stable (fewer
  than ``DS_MIN_ITEMS``, the bar the gold labels' Dawid–Skene fit sets); None otherwise.

``table`` holds NaN where a figure is undefined; ``rows()`` gives plain dicts with None there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..gold.dawid_skene import DawidSkene, dawid_skene
from ..gold.fields import DS_MIN_ITEMS, plain_rows
from ..gold.mace import Mace, mace
from ..gold.ratings import Ratings
from .agreement import leave_one_out
from .answers import Answers, answers_of

COMPETENCE = ("mace", "dawid_skene")
MAX_CATEGORIES = 100  # competence reads values as categories: more than this are free numbers, not labels
SCORE_COLUMNS = (
    "annotator", "answers", "median_seconds", "too_fast", "too_fast_share", "gold_items", "gold_correct",
    "gold_accuracy", "attention_passed", "attention_failed", "shared_units", "pairs", "disagreement", "agreement",
    "match_share", "competence", "competence_note",
)


@dataclass(frozen=True)
class AnnotatorScores:
    """``table``: one row per annotator (``SCORE_COLUMNS``). ``alpha``: Krippendorff's alpha of all
    the answers, whose expected disagreement (``expected_disagreement``) scales everyone's
    agreement; ``model``: the competence model's fit (labels per unit too), when one was asked for;
    ``settings``: the thresholds and choices the figures were computed with."""

    table: pd.DataFrame
    level: str
    values: list[Any]
    alpha: float | None
    expected_disagreement: float | None
    model: Mace | DawidSkene | None
    settings: dict[str, Any]

    def rows(self) -> list[dict[str, Any]]:
        return plain_rows(self.table)


def _per_annotator(a: Answers, weights: np.ndarray) -> np.ndarray:
    return np.bincount(a.annotator, weights=weights, minlength=len(a.annotators))


def _share(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(whole > 0, part / whole, np.nan)


def _speed(a: Answers, too_fast_seconds: float | None, too_fast_fraction: float | None) -> dict[str, np.ndarray]:
    seconds = pd.Series(a.seconds)
    timed = seconds.notna().to_numpy()
    median = seconds.groupby(a.annotator).median().reindex(range(len(a.annotators))).to_numpy()
    fast = np.zeros(len(seconds), dtype=bool)
    if too_fast_seconds is not None:
        fast |= timed & (a.seconds < too_fast_seconds)
    if too_fast_fraction is not None:
        unit_median = seconds.groupby(a.unit).transform("median").to_numpy()
        fast |= timed & (a.seconds < too_fast_fraction * unit_median)
    if too_fast_seconds is None and too_fast_fraction is None:
        nothing = np.full(len(a.annotators), np.nan)
        return {"median_seconds": median, "too_fast": nothing, "too_fast_share": nothing}
    n_fast = _per_annotator(a, fast)
    n_timed = _per_annotator(a, timed)
    return {"median_seconds": median, "too_fast": np.where(n_timed > 0, n_fast, np.nan),
            "too_fast_share": _share(n_fast, n_timed)}


def _gold(a: Answers) -> dict[str, np.ndarray]:
    gold = ~np.isnan(a.correct)
    items = _per_annotator(a, gold)
    correct = _per_annotator(a, gold & (a.correct == 1))
    return {"gold_items": items.astype(np.int64), "gold_correct": np.where(items > 0, correct, np.nan),
            "gold_accuracy": _share(correct, items)}


def _with_attention(table: pd.DataFrame, attention: pd.DataFrame | None) -> pd.DataFrame:
    if attention is None:
        return table
    if not isinstance(attention, pd.DataFrame) or not {"annotator", "passed"} <= set(attention.columns):
        raise ValueError("attention must be a DataFrame with the columns annotator, passed")
    passed = attention["passed"]
    if not passed.map(lambda x: isinstance(x, bool | np.bool_)).all():
        raise ValueError("attention's passed must be True or False")
    counts = (attention.assign(passed=passed.astype(bool)).groupby("annotator", sort=False)["passed"]
              .agg(["sum", "size"]))
    known = set(table["annotator"])
    alone = [name for name in counts.index if name not in known]
    if alone:  # took checks, gave no answer
        zeros = dict.fromkeys(("answers", "gold_items", "shared_units", "pairs"), 0)
        table = pd.concat([table, pd.DataFrame({"annotator": alone, **zeros})], ignore_index=True)
    per = counts.reindex(table["annotator"]).fillna(0).astype(np.int64)
    return table.assign(attention_passed=per["sum"].to_numpy(), attention_failed=(per["size"] - per["sum"]).to_numpy())


SHORT_RUNS = 5  # steps of each MACE restart before the best goes on (``mace``'s ``short``)


def _model(a: Answers, competence: str, seed: int) -> Mace | DawidSkene:
    # The answers' own codes, which are those ``nominal_ratings`` would give (units and annotators
    # in the order first seen, labels in the order of ``values``): no name is built or coded again.
    rows = Ratings(a.unit, a.annotator, a.value, a.units, a.annotators, a.values)
    if competence == "mace":
        # Short runs pick the restart, the best one goes on: on the benchmark's pools (33,334 units,
        # 4,000 annotators) the same log-likelihood per unit to 5 decimals as ten full restarts, the
        # competences within 0.03, in a quarter of the steps.
        return mace(rows, labels=a.values, seed=seed, short=SHORT_RUNS)
    return dawid_skene(rows, labels=a.values)


def _competence(model: Mace | DawidSkene | None, annotators: list[Any]) -> list[float] | float:
    if model is None:
        return np.nan
    competence = model.competence_of()
    return [competence[name] for name in annotators]


def annotator_scores(
    frame: pd.DataFrame,
    *,
    level: str,
    value_domain: Sequence[Any] | None = None,
    too_fast_seconds: float | None = None,
    too_fast_fraction: float | None = None,
    gold_tolerance: float = 0.0,
    competence: str | None = "mace",
    seed: int = 0,
    attention: pd.DataFrame | None = None,
) -> AnnotatorScores:
    """The quality-control scores of every annotator in ``frame`` (see the module's docstring).

    ``level``: the level of measurement of the values; ``value_domain``: the values in order (for
    ordinal data; by default the sorted distinct values); ``gold_tolerance``: how far an interval or
    ratio answer may be from the expected one and still be correct; ``competence``: "mace",
    "dawid_skene" or None; ``seed``: MACE's restarts; ``attention``: the attention checks taken
    (annotator, passed). ValueError on bad input."""
    if competence is not None and competence not in COMPETENCE:
        raise ValueError(f"unknown competence model {competence!r} (known: {', '.join(COMPETENCE)}, or None)")
    if too_fast_seconds is not None and too_fast_seconds < 0:
        raise ValueError("too_fast_seconds cannot be negative")
    if too_fast_fraction is not None and not too_fast_fraction > 0:
        raise ValueError("too_fast_fraction must be above 0 (a share of the unit's median time)")
    a = answers_of(frame, level, value_domain=value_domain, gold_tolerance=gold_tolerance)
    if competence is not None and len(a.values) > MAX_CATEGORIES:
        raise ValueError(f"the answers have {len(a.values)} distinct values; a competence model reads them as "
                         f"categories (at most {MAX_CATEGORIES}): pass competence=None")
    agreement, overall = leave_one_out(a)
    model = _model(a, competence, seed) if competence is not None else None
    table = pd.DataFrame({
        "annotator": a.annotators,
        "answers": _per_annotator(a, np.ones(len(a.unit))).astype(np.int64),
        **_speed(a, too_fast_seconds, too_fast_fraction),
        **_gold(a),
        **{c: agreement[c].to_numpy() for c in agreement.columns},
        "competence": _competence(model, a.annotators),
    }, columns=list(SCORE_COLUMNS))
    if model is not None:
        few = table["answers"] < DS_MIN_ITEMS
        table.loc[few, "competence_note"] = [
            f"rated {n} item{'s' if n != 1 else ''}: too few for a stable competence ({DS_MIN_ITEMS} or more)"
            for n in table.loc[few, "answers"]
        ]
    table = _with_attention(table, attention)
    return AnnotatorScores(
        table=table,
        level=level,
        values=a.values,
        alpha=overall.alpha,
        expected_disagreement=overall.expected_disagreement if overall.alpha is not None else None,
        model=model,
        settings={"too_fast_seconds": too_fast_seconds, "too_fast_fraction": too_fast_fraction,
                  "gold_tolerance": gold_tolerance, "competence": competence, "seed": seed},
    )


__all__ = ["AnnotatorScores", "COMPETENCE", "MAX_CATEGORIES", "SCORE_COLUMNS", "annotator_scores"]

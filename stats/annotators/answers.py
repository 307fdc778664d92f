"""A long frame of answers, checked and coded once for the annotator scores. Pure: no Django.

The frame has one row per answer and these columns, by name:

- ``unit``, ``annotator``, ``value`` (required): what was rated (an item, or an item in a pool),
  who rated it, and the answer. A row whose value is missing (None, NaN) is not an answer and is
  left out first; a second answer of the same unit by the same annotator is refused.
- ``seconds`` (optional): the time spent on the answer; missing where unknown.
- ``expected`` (optional): the gold answer where the unit is a gold item, missing elsewhere; an
  answer is correct when it equals it (for interval and ratio values: within ``gold_tolerance``).
- ``correct`` (optional, instead of ``expected``): a precomputed flag, True/False on gold items and
  missing elsewhere.

Values: for ``nominal`` any hashable answers; for ``ordinal`` answers whose order is
``value_domain`` (by default the sorted distinct answers); for ``interval`` and ``ratio`` numbers.
Every problem is a ValueError that says what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..agreement import LEVELS
from ..frames import numeric
from ..reports.common import number

REQUIRED = ("unit", "annotator", "value")
NUMERIC_LEVELS = ("interval", "ratio")


@dataclass(frozen=True)
class Answers:
    """The answers as codes: per answer its unit, annotator and value (a position in ``values``),
    the seconds spent (NaN where unknown) and whether it was correct (1.0, 0.0; NaN off gold)."""

    level: str
    values: list[Any]
    units: list[Any]
    annotators: list[Any]
    unit: np.ndarray
    annotator: np.ndarray
    value: np.ndarray
    seconds: np.ndarray
    correct: np.ndarray

    def counts(self, keep: np.ndarray | None = None) -> np.ndarray:
        """units × values: how many of the answers (those where ``keep`` is True) gave each value
        to each unit. Every unit keeps its row, so the rows match ``units``."""
        cells = self.unit * len(self.values) + self.value
        if keep is not None:
            cells = cells[keep]
        size = len(self.units) * len(self.values)
        return np.bincount(cells, minlength=size).reshape(len(self.units), len(self.values))

    def alpha_domain(self) -> list[Any]:
        """The value of each column of ``counts`` as ``stats.agreement.alpha`` reads it: positions for
        nominal and ordinal (the order is that of ``values``), the numbers for interval and ratio."""
        return list(self.values) if self.level in NUMERIC_LEVELS else list(range(len(self.values)))


def _some(values: Iterable[Any]) -> str:
    return ", ".join(repr(v) for v in list(values)[:5])


def _coded(values: pd.Series, level: str, value_domain: Sequence[Any] | None) -> tuple[np.ndarray, list[Any]]:
    if level in NUMERIC_LEVELS:
        raw, values = values, numeric(values, number)
        if values.isna().any():
            raise ValueError(f"{level} values must be numbers; not numbers: {_some(raw[values.isna()])}")
        if value_domain is not None:
            value_domain = [float(v) for v in value_domain]
    if value_domain is not None:
        domain = list(value_domain)
        if len(set(domain)) != len(domain):
            raise ValueError("value_domain has duplicates")
        codes = pd.Index(domain).get_indexer(values)
        if (codes < 0).any():
            raise ValueError(f"values outside value_domain: {_some(pd.unique(values[codes < 0]))}")
        return codes.astype(np.int64), domain
    try:
        codes, uniques = pd.factorize(values, sort=level != "nominal")
    except TypeError:
        raise ValueError(f"{level} values must be hashable and comparable (text or numbers)") from None
    return codes.astype(np.int64), list(uniques)


def _correct(frame: pd.DataFrame, level: str, gold_tolerance: float) -> np.ndarray:
    if "correct" in frame:
        flags = frame["correct"].map(lambda x: np.nan if x is None or x is pd.NA or x != x else x)
        bad = flags[flags.notna() & ~flags.isin([True, False])]
        if len(bad):
            raise ValueError(f"correct must be True, False or missing; got {_some(bad)}")
        return flags.astype(np.float64).to_numpy()
    if "expected" not in frame:
        return np.full(len(frame), np.nan)
    gold = frame["expected"].notna().to_numpy()
    out = np.full(len(frame), np.nan)
    if level in NUMERIC_LEVELS:
        expected = numeric(frame["expected"], number).to_numpy()
        if np.isnan(expected[gold]).any():
            raise ValueError(f"{level} expected answers must be numbers")
        value = numeric(frame["value"], number).to_numpy()
        out[gold] = np.abs(value[gold] - expected[gold]) <= gold_tolerance
    else:
        out[gold] = (frame["value"].to_numpy()[gold] == frame["expected"].to_numpy()[gold]).astype(np.float64)
    return out


def answers_of(
    frame: pd.DataFrame, level: str, *, value_domain: Sequence[Any] | None = None, gold_tolerance: float = 0.0
) -> Answers:
    """``frame`` (columns as in this module's docstring) checked and coded."""
    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r} (known: {', '.join(LEVELS)})")
    if not isinstance(frame, pd.DataFrame):
        raise ValueError("the answers must be a pandas DataFrame with the columns unit, annotator, value")
    missing = [c for c in REQUIRED if c not in frame]
    if missing:
        raise ValueError(f"the answers lack the column(s) {', '.join(missing)} (need unit, annotator, value)")
    if "expected" in frame and "correct" in frame:
        raise ValueError("give either an expected column or a correct column, not both")
    if gold_tolerance < 0:
        raise ValueError("gold_tolerance cannot be negative")
    frame = frame[frame["value"].notna()].reset_index(drop=True)
    if frame.empty:
        raise ValueError("no answers: no row has a value")
    if frame["unit"].isna().any() or frame["annotator"].isna().any():
        raise ValueError("every answer needs a unit and an annotator")
    twice = frame.duplicated(["unit", "annotator"])
    if twice.any():
        first = frame[twice].iloc[0]
        unit, annotator = first["unit"], first["annotator"]
        raise ValueError(f"unit {unit!r} has a second answer by annotator {annotator!r}")
    value, values = _coded(frame["value"], level, value_domain)
    unit, units = pd.factorize(frame["unit"])
    annotator, annotators = pd.factorize(frame["annotator"])
    seconds = numeric(frame["seconds"], number).to_numpy() if "seconds" in frame else np.full(len(frame), np.nan)
    if (seconds < 0).any():
        raise ValueError("seconds cannot be negative")
    return Answers(
        level=level, values=values, units=list(units), annotators=list(annotators),
        unit=unit.astype(np.int64), annotator=annotator.astype(np.int64), value=value,
        seconds=seconds, correct=_correct(frame, level, gold_tolerance),
    )

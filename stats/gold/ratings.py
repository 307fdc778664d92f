"""Nominal ratings as integer codes, as the label models (Dawid–Skene, MACE) read them. Pure: numpy.

``nominal_ratings`` takes (unit, annotator, label) rows, one per rating (a frame's first three
columns, or tuples), leaves out a missing label (None, NaN) and codes units, annotators and labels
in order of first appearance (labels in the order given, when given). ``LabelModel`` is what every
fitted model answers: a label per unit and a competence per annotator.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

UNIT_COLUMNS = ("unit", "label", "probability", "ratings")
ANNOTATOR_COLUMNS = ("annotator", "competence", "items")


def _codes(values: Sequence[Hashable], order: Sequence[Any] | None = None) -> tuple[np.ndarray, list[Any]]:
    if order is not None:
        index = {v: i for i, v in enumerate(order)}
        try:
            return np.array([index[v] for v in values], dtype=np.int64), list(order)
        except KeyError as e:
            raise ValueError(f"label {e.args[0]!r} is not in labels") from None
    codes, uniques = pd.factorize(pd.Series(list(values), dtype=object), sort=False)
    return codes.astype(np.int64), list(uniques)


@dataclass(frozen=True)
class Ratings:
    """One entry per rating: its unit, annotator and label codes, and the names the codes index."""

    unit: np.ndarray
    annotator: np.ndarray
    label: np.ndarray
    units: list[Any]
    annotators: list[Any]
    labels: list[Any]

    @property
    def n_units(self) -> int:
        return len(self.units)

    @property
    def n_annotators(self) -> int:
        return len(self.annotators)

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    def votes(self) -> np.ndarray:
        """units × labels: how many ratings gave each label to each unit (float)."""
        cells = self.unit * self.n_labels + self.label
        shape = (self.n_units, self.n_labels)
        return np.bincount(cells, minlength=self.n_units * self.n_labels).reshape(shape).astype(np.float64)

    def items_rated(self) -> np.ndarray:
        """Per annotator, the number of distinct units they rated."""
        pairs = np.unique(self.annotator * self.n_units + self.unit)
        return np.bincount(pairs // max(self.n_units, 1), minlength=self.n_annotators).astype(np.int64)

    def unit_table(self, posteriors: np.ndarray) -> pd.DataFrame:
        """Per unit (``UNIT_COLUMNS``): its most probable label (the first listed on a tie), that
        label's posterior probability, and how many ratings it has."""
        best = posteriors.argmax(axis=1)
        return pd.DataFrame({
            "unit": self.units, "label": [self.labels[i] for i in best],
            "probability": posteriors[np.arange(self.n_units), best],
            "ratings": np.bincount(self.unit, minlength=self.n_units).astype(np.int64),
        })

    def annotator_table(self, competence: np.ndarray) -> pd.DataFrame:
        """Per annotator (``ANNOTATOR_COLUMNS``): their competence and the units they rated."""
        return pd.DataFrame({"annotator": self.annotators, "competence": competence, "items": self.items_rated()})


def nominal_ratings(
    rows: Ratings | pd.DataFrame | Iterable[tuple[Any, Any, Any]], labels: Sequence[Any] | None = None
) -> Ratings:
    """``rows`` coded: (unit, annotator, label) per rating, a missing label left out. ``labels``:
    the label set in the order to report it (default: the order labels are first seen); a label
    never given still gets a code; a label outside it is a ValueError. ``rows`` already coded (a
    ``Ratings``, as a caller holding codes builds it) is taken as it is: ``labels``, when given,
    must be its labels."""
    if isinstance(rows, Ratings):
        if labels is not None and list(labels) != list(rows.labels):
            raise ValueError("labels differ from the coded ratings' labels")
        return rows
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame.from_records(list(rows))
    if frame.shape[1] < 3:
        frame = pd.DataFrame(columns=["unit", "annotator", "label"])
    frame = frame.iloc[:, :3].set_axis(["unit", "annotator", "label"], axis=1)
    frame = frame[frame["label"].notna()]
    unit, units = _codes(frame["unit"].tolist())
    annotator, annotators = _codes(frame["annotator"].tolist())
    label, domain = _codes(frame["label"].tolist(), labels)
    return Ratings(unit, annotator, label, units, annotators, domain)


class LabelModel:
    """What a fitted label model answers, from its ``units`` and ``annotators`` tables."""

    units: pd.DataFrame
    annotators: pd.DataFrame

    def label_of(self) -> dict[Any, Any]:
        return dict(zip(self.units["unit"], self.units["label"], strict=True))

    def competence_of(self) -> dict[Any, float]:
        return dict(zip(self.annotators["annotator"], self.annotators["competence"], strict=True))


__all__ = ["ANNOTATOR_COLUMNS", "LabelModel", "Ratings", "UNIT_COLUMNS", "nominal_ratings"]

"""``scale``: a point of a numeric scale."""

from __future__ import annotations

import math

from ..gold import EPSILON
from .choice import ChoiceType


class ScaleType(ChoiceType):
    """A choice among numeric points (each with a label); its domain for agreement is its points
    by value, whatever their order in the spec."""

    name = "scale"
    levels = ("ordinal", "interval", "ratio")
    categorical = False
    numeric = True

    def spec_errors(self, f, earlier):
        if not all(isinstance(c.value, (int, float)) and not isinstance(c.value, bool) for c in f.choices):
            return ["every point of a scale must be a number"]
        return []

    def gold_number(self, f, value):
        """The point's own value."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return float(value)

    def gold_tolerance_problem(self, f, tolerance):
        """A number ≥ 0: the largest difference from the gold point that still matches."""
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance) \
                or tolerance < 0:
            return "its gold tolerance is a number ≥ 0: the largest difference from the gold point"
        return None

    def gold_matches(self, f, given, expected, tolerance):
        """|given − gold| ≤ tolerance (0 by default: the same point)."""
        g, e = self.gold_number(f, given), self.gold_number(f, expected)
        return g is not None and e is not None and abs(g - e) <= (tolerance or 0) + EPSILON

    def domain(self, f):
        return tuple(sorted(f.choices, key=lambda c: c.value))

"""``scale``: a point of a numeric scale."""

from __future__ import annotations

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

    def domain(self, f):
        return tuple(sorted(f.choices, key=lambda c: c.value))

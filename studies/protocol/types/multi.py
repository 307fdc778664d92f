"""``multi``: several of named options."""

from __future__ import annotations

from ..gold import at_least, jaccard, share_problem
from ..values import value_token
from .base import FieldType, ShownAnswer, choice_label

SEPARATOR = "|"  # between the values of one answer in a CSV cell


class MultiType(FieldType):
    """Any of the field's choices, ticked; stored as the list of their values in choice order.
    Exported (and imported from a CSV) as the values joined by "|"."""

    name = "multi"
    shortcuts = frozenset({"numbers"})
    levels = ("nominal",)
    needs_choices = True
    multiple = True
    importable = True

    def parse(self, f, raw, ctx, answers):
        chosen = [f.choice_for(token) for token in dict.fromkeys(raw)]
        if None in chosen:
            raise ValueError("Tick only the options shown.")
        if f.min and len(chosen) < f.min:
            raise ValueError(f.required_message or f"Tick at least {f.min}.")
        if f.max and len(chosen) > f.max:
            raise ValueError(f"Tick at most {f.max}.")
        return [c.value for c in chosen]

    def gold_votes(self, f, value):
        """A vote per option: "1" ticked, "0" not (an answer that is no list casts none)."""
        if not isinstance(value, list):
            return {}
        ticked = {value_token(v) for v in value}
        return {c.token: "1" if c.token in ticked else "0" for c in f.choices}

    def gold_tolerance_problem(self, f, tolerance):
        return share_problem(tolerance, "the least Jaccard overlap of the options ticked")

    def gold_matches(self, f, given, expected, tolerance):
        """The same options ticked; with a tolerance, a Jaccard overlap (shared over either) at least it."""
        overlap = jaccard(_ticked(given), _ticked(expected))
        return overlap == 1.0 if tolerance is None else at_least(overlap, tolerance)

    def import_value(self, f, cell, ctx):
        return self.parse(f, [v.strip() for v in cell.split(SEPARATOR)], ctx, {})

    def export_arrow(self, f):
        import pyarrow as pa

        return {f.key: pa.list_(self._value_type(f))}

    def show_answer(self, f, value, *, candidates=()):
        return ShownAnswer(text=", ".join(choice_label(f, v) for v in value) or "none")


def _ticked(value) -> set[str]:
    return {value_token(v) for v in value} if isinstance(value, list) else {value_token(value)}

"""``multi``: several of named options."""

from __future__ import annotations

from .base import FieldType, ShownAnswer, choice_label

SEPARATOR = "|"  # between the values of one answer in a CSV cell


class MultiType(FieldType):
    """Any of the field's choices, ticked; stored as the list of their values in choice order.
    Exported (and imported from a CSV) as the values joined by "|"."""

    name = "multi"
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

    def import_value(self, f, cell, ctx):
        return self.parse(f, [v.strip() for v in cell.split(SEPARATOR)], ctx, {})

    def export_arrow(self, f):
        import pyarrow as pa

        return {f.key: pa.list_(self._value_type(f))}

    def show_answer(self, f, value, *, candidates=()):
        return ShownAnswer(text=", ".join(choice_label(f, v) for v in value) or "none")

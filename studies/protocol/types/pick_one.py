"""``pick_one``: one of the item's candidates."""

from __future__ import annotations

from collections.abc import Mapping

from ..values import Choice, value_token
from ..words import gettext
from .base import FieldType, ShownAnswer, cell_text


class PickOneType(FieldType):
    """One of the item's candidates, shown in an order that is stored with the answer:
    ``{"choice": candidate id, "order": [candidate ids as shown]}``. Compared by the candidate
    chosen, not the order. Exported as ``<key>`` the chosen id and ``<key>_order`` the ids in the
    order shown, joined by "|"."""

    name = "pick_one"
    shortcuts = frozenset({"numbers"})
    plain_export = False
    levels = ("nominal",)
    importable = True
    agreement_note = "the candidate chosen"

    def item_parts(self, f):
        return frozenset({"candidates"})

    def parse(self, f, raw, ctx, answers):
        ids = [c.id for c in ctx.candidates]
        if len(raw) != 1 or raw[0] not in ids:
            raise ValueError(gettext("Choose one of the options."))
        return {"choice": raw[0], "order": ids}

    def options(self, f, candidates):
        return tuple(Choice(c.id, c.text) for c in candidates)

    def answer_token(self, f, value):
        if isinstance(value, Mapping):
            return value_token(value.get("choice"))
        return super().answer_token(f, value)

    def form_values(self, f, value):
        return [value_token(value.get("choice"))] if isinstance(value, Mapping) else []

    def import_value(self, f, cell, ctx):
        """A candidate's id; the order it was shown in is not known."""
        ids = [c.id for c in ctx.candidates]
        if cell not in ids:
            raise ValueError(f"{cell!r} is not a candidate of this item ({', '.join(ids) or 'none'})")
        return {"choice": cell, "order": []}

    def export_columns(self, f):
        return [f.key, f"{f.key}_order"]

    def export_cells(self, f, value):
        if value is None:
            return {}
        picked = value if isinstance(value, Mapping) else {"choice": value}
        order = picked.get("order")
        if not isinstance(order, list):
            order = []
        return {f.key: cell_text(picked.get("choice")), f"{f.key}_order": "|".join(cell_text(c) for c in order)}

    def export_values(self, f, value):
        if value is None:
            return {}
        picked = value if isinstance(value, Mapping) else {"choice": value}
        order = picked.get("order")
        choice = picked.get("choice")
        return {
            f.key: None if choice is None else cell_text(choice),
            f"{f.key}_order": [cell_text(c) for c in order] if isinstance(order, list) else [],
        }

    def export_arrow(self, f):
        import pyarrow as pa

        return {f.key: pa.string(), f"{f.key}_order": pa.list_(pa.string())}

    def show_answer(self, f, value, *, candidates=()):
        if not isinstance(value, dict):
            return super().show_answer(f, value)
        texts = {c.id: c.text for c in candidates}
        return ShownAnswer(text=texts.get(str(value.get("choice")), str(value.get("choice"))))

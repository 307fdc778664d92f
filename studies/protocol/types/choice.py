"""``choice``: one of named options."""

from __future__ import annotations

from ..words import gettext
from .base import FieldType, ShownAnswer, choice_label


class ChoiceType(FieldType):
    """One of the field's choices; stored as the choice's value. Its domain for agreement is
    its choices in spec order. Exported as the value."""

    name = "choice"
    shortcuts = frozenset({"numbers"})
    levels: tuple[str, ...] = ("nominal", "ordinal")
    needs_choices = True
    categorical = True
    importable = True

    def parse(self, f, raw, ctx, answers):
        if len(raw) != 1 or f.choice_for(raw[0]) is None:
            raise ValueError(gettext("Choose one of the options."))
        return f.choice_for(raw[0]).value

    def domain(self, f):
        return tuple(f.choices)

    def show_answer(self, f, value, *, candidates=()):
        return ShownAnswer(text=choice_label(f, value))

"""``highlight``: words of an item text."""

from __future__ import annotations

from ..gold import at_least, f1, share_problem
from ..item import ITEM_TEXTS, tokenize
from .base import FieldType, ShownAnswer, mappings


class HighlightType(FieldType):
    """Words selected in the item text named by ``over``; stored as
    ``[{"index", "start", "end", "text"}, …]``. Exported as ``<key>`` the words and
    ``<key>_indices`` their token indices, each joined by "|"."""

    name = "highlight"
    shortcuts = frozenset({"words"})
    plain_export = False
    required_text = "Select the words."

    def spec_errors(self, f, earlier):
        if f.over not in ITEM_TEXTS:
            return [f"a highlight field needs 'over', the item text it marks (one of {', '.join(ITEM_TEXTS)})"]
        return []

    def tokens(self, f, ctx):
        return tokenize(ctx.texts.get(f.over, ""))

    def markup_is_fixed(self, f):
        return False  # its words are the item's

    def parse(self, f, raw, ctx, answers):
        tokens = self.tokens(f, ctx)
        try:
            picked = sorted({int(r) for r in raw})
        except ValueError:
            raise ValueError("Select words of the text shown.") from None
        if any(i < 0 or i >= len(tokens) for i in picked):
            raise ValueError("Select words of the text shown.")
        if f.max and len(picked) > f.max:
            raise ValueError(f"Select at most {f.max} words.")
        return [{"index": t.index, "start": t.start, "end": t.end, "text": t.text} for t in (tokens[i] for i in picked)]

    def gold_tolerance_problem(self, f, tolerance):
        return share_problem(tolerance, "the least F1 of the words selected against the gold words")

    def gold_matches(self, f, given, expected, tolerance):
        """The same words (by token index); with a tolerance, an F1 against the gold words at least it."""
        score = f1(_indices(given), _indices(expected))
        return score == 1.0 if tolerance is None else at_least(score, tolerance)

    def export_columns(self, f):
        return [f.key, f"{f.key}_indices"]

    def export_cells(self, f, value):
        if value is None:
            return {}
        words = mappings(value)
        return {  # lists, not generators, joined: an export's hottest cells
            f.key: "|".join([str(w.get("text", "")) for w in words]),
            f"{f.key}_indices": "|".join([str(w.get("index", "")) for w in words]),
        }

    def export_values(self, f, value):
        if value is None:
            return {}
        words = mappings(value)
        return {f.key: [str(w.get("text", "")) for w in words], f"{f.key}_indices": [w.get("index") for w in words]}

    def export_arrow(self, f):
        import pyarrow as pa

        return {f.key: pa.list_(pa.string()), f"{f.key}_indices": pa.list_(pa.int64())}

    def show_answer(self, f, value, *, candidates=()):
        return ShownAnswer(text=" · ".join(str(w.get("text", "")) for w in value if isinstance(w, dict)) or "no words")


def _indices(value) -> set[int]:
    """The token indices of a stored highlight (or of a bare list of indices); an unreadable entry
    counts as no word (-1), which no gold word has."""
    out = set()
    for word in value if isinstance(value, list) else []:
        index = word.get("index") if isinstance(word, dict) else word
        out.add(index if isinstance(index, int) and not isinstance(index, bool) else -1)
    return out

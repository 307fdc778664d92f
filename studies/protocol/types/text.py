"""``text``: a written answer."""

from __future__ import annotations

from ..gold import normalised_text
from .base import FieldType


class TextType(FieldType):
    """A text the annotator writes, with optional bounds in characters and words; stored and
    exported as the text, stripped. Its gold answer is a text or a list of accepted texts."""

    name = "text"
    shortcuts = frozenset({"typing"})
    free_text = True
    importable = True
    required_text = "Write an answer."

    def gold_matches(self, f, given, expected, tolerance):
        """The same text once normalised (Unicode NFKC, case, runs of spaces); a gold answer may be
        a list of accepted texts, any of which matches."""
        accepted = expected if isinstance(expected, list) else [expected]
        return normalised_text(given) in {normalised_text(a) for a in accepted}

    def parse(self, f, raw, ctx, answers):
        text = raw[0].strip()
        words = len(text.split())
        if f.min_chars and len(text) < f.min_chars:
            raise ValueError(f"Write at least {f.min_chars} characters.")
        if f.max_chars and len(text) > f.max_chars:
            raise ValueError(f"Write at most {f.max_chars} characters (you wrote {len(text)}).")
        if f.min_words and words < f.min_words:
            raise ValueError(f"Write at least {f.min_words} word{'s' if f.min_words > 1 else ''}.")
        if f.max_words and words > f.max_words:
            raise ValueError(f"Write at most {f.max_words} word{'s' if f.max_words > 1 else ''} (you wrote {words}).")
        return text

"""``text``: a written answer."""

from __future__ import annotations

from ..gold import normalised_text
from ..words import gettext_noop, ngettext
from .base import FieldType


class TextType(FieldType):
    """A text the annotator writes, with optional bounds in characters and words; stored and
    exported as the text, stripped. Its gold answer is a text or a list of accepted texts."""

    name = "text"
    shortcuts = frozenset({"typing"})
    free_text = True
    importable = True
    required_text = gettext_noop("Write an answer.")

    def gold_matches(self, f, given, expected, tolerance):
        """The same text once normalised (Unicode NFKC, case, runs of spaces); a gold answer may be
        a list of accepted texts, any of which matches."""
        accepted = expected if isinstance(expected, list) else [expected]
        return normalised_text(given) in {normalised_text(a) for a in accepted}

    def parse(self, f, raw, ctx, answers):
        text = raw[0].strip()
        words = len(text.split())
        if f.min_chars and len(text) < f.min_chars:
            raise ValueError(ngettext(
                "Write at least {n} character.", "Write at least {n} characters.", f.min_chars,
            ).format(n=f.min_chars))
        if f.max_chars and len(text) > f.max_chars:
            raise ValueError(ngettext(
                "Write at most {n} character (you wrote {wrote}).", "Write at most {n} characters (you wrote {wrote}).",
                f.max_chars,
            ).format(n=f.max_chars, wrote=len(text)))
        if f.min_words and words < f.min_words:
            raise ValueError(ngettext(
                "Write at least {n} word.", "Write at least {n} words.", f.min_words,
            ).format(n=f.min_words))
        if f.max_words and words > f.max_words:
            raise ValueError(ngettext(
                "Write at most {n} word (you wrote {wrote}).", "Write at most {n} words (you wrote {wrote}).",
                f.max_words,
            ).format(n=f.max_words, wrote=words))
        return text

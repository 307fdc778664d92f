"""The Yes/No vote rules of the CulturalFrames prompt filter: plain functions, no ORM, so the
reports in stats and the seeding in annotation share them without loading the database."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from studies.protocol import value_token

YES, NO = "yes", "no"
_TOKENS = {"yes": YES, "true": YES, "1": YES, "no": NO, "false": NO, "0": NO}

Decision = Literal["kept", "dropped", "pending"]


def vote_token(value: Any) -> str | None:
    """A Yes/No answer as "yes" or "no" (None for anything else), whatever the choice's value."""
    return _TOKENS.get(value_token(value).strip().lower()) if value is not None else None


def prompt_kept(votes: Iterable[Any], *, min_yes: int = 2) -> bool:
    """CulturalFrames: a prompt is kept when at least ``min_yes`` of its annotators say Yes."""
    return sum(vote_token(v) == YES for v in votes) >= min_yes


def prompt_decision(*, yes: int, no: int, wanted: int, min_yes: int = 2) -> Decision:
    """Kept once enough say Yes; dropped once the votes still to come cannot make it; else pending."""
    if yes >= min_yes:
        return "kept"
    if yes + max(wanted - yes - no, 0) < min_yes:
        return "dropped"
    return "pending"

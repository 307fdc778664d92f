"""Honest-effort flags per annotator, for review only: never a reason to reject by itself (Prolific's
rules: a flag is a question for a person, not an answer). Pure: no Django.

Three signals, from what each annotation stored:

- **Pasted answers**, from the page's counts (``annotation.effort``): an answer is *mostly pasted*
  when more than ``PASTED_SHARE`` (half) of the characters that went into it were pasted and at
  least ``MIN_CHARS`` went in (a pasted word or two is ordinary). Per annotator: the answers
  counted, those mostly pasted, and the pasted share of all their free text.
- **Leaving the page**, from the same counts: the times the page lost the focus or was hidden,
  per item with counts, and the seconds hidden in all.
- **Straight-lining**, from the stored answers, not the page: a session in which each of the
  study's rating questions (``rating_keys``: ordinal questions with fixed points, a scale's) got
  the same answer on every item (always "3" to "overall", always "1" to "quality"…). A session
  is judged only when it holds at least ``MIN_RATINGS`` rating answers in all (five: fewer
  identical ratings are too likely by honest chance to mean anything); one with fewer is not
  judged, and an annotator with no judged session has no figure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

PASTED_SHARE = 0.5
MIN_CHARS = 20
MIN_RATINGS = 5


def mostly_pasted(counts: Mapping[str, Any]) -> bool:
    """Whether one answer's counts (``{pasted, typed, …}``) say most of its text was pasted."""
    pasted, typed = int(counts.get("pasted", 0)), int(counts.get("typed", 0))
    total = pasted + typed
    return total >= MIN_CHARS and pasted > PASTED_SHARE * total


def straight_lined(ratings: Sequence[tuple[str, Any]]) -> bool | None:
    """Whether a session's rating answers, (question key, value) pairs, give each question one
    value throughout; None (not judged) with fewer than ``MIN_RATINGS`` answers."""
    if len(ratings) < MIN_RATINGS:
        return None
    values: dict[str, set[str]] = {}
    for key, value in ratings:
        values.setdefault(key, set()).add(json.dumps(value, sort_keys=True))
    return all(len(v) == 1 for v in values.values())


@dataclass
class EffortFlags:
    """One annotator's figures (see the module's docstring); None: nothing to tell it from."""

    pasted_answers: int = 0  # free-text answers with counts of at least MIN_CHARS characters
    mostly_pasted: int = 0
    pasted_chars: int = 0
    text_chars: int = 0
    items_counted: int = 0  # annotations that carried counts
    focus_losses: int = 0
    hidden_ms: int = 0
    sessions_judged: int = 0
    sessions_straight: int = 0
    _ratings: dict[Any, list[tuple[str, Any]]] = field(default_factory=dict, repr=False)

    @property
    def pasted_share(self) -> float | None:
        return self.pasted_chars / self.text_chars if self.text_chars else None

    @property
    def focus_losses_per_item(self) -> float | None:
        return self.focus_losses / self.items_counted if self.items_counted else None

    @property
    def hidden_seconds(self) -> float | None:
        return round(self.hidden_ms / 1000, 1) if self.items_counted else None

    @property
    def flagged(self) -> bool:
        return bool(self.mostly_pasted or self.sessions_straight)


def _add_counts(flags: EffortFlags, effort: Any) -> None:
    if not isinstance(effort, Mapping):
        return
    flags.items_counted += 1
    flags.focus_losses += int(effort.get("blurs", 0))
    flags.hidden_ms += int(effort.get("hidden_ms", 0))
    for counts in (effort.get("fields") or {}).values():
        if not isinstance(counts, Mapping):
            continue
        pasted, typed = int(counts.get("pasted", 0)), int(counts.get("typed", 0))
        flags.pasted_chars += pasted
        flags.text_chars += pasted + typed
        if pasted + typed >= MIN_CHARS:
            flags.pasted_answers += 1
            flags.mostly_pasted += mostly_pasted(counts)


def effort_flags(
    rows: Iterable[tuple[int, Any, Any, Any]], *, rating_keys: Sequence[str]
) -> dict[int, EffortFlags]:
    """Per annotator, the flags of their annotations: ``rows`` of (annotator, session, answers,
    effort), a skipped item's answers holding none of ``rating_keys``."""
    out: dict[int, EffortFlags] = {}
    for annotator, session, answers, effort in rows:
        flags = out.setdefault(annotator, EffortFlags())
        _add_counts(flags, effort)
        if isinstance(answers, Mapping):
            ratings = flags._ratings.setdefault(session, [])
            ratings.extend((k, answers[k]) for k in rating_keys if k in answers)
    for flags in out.values():
        for ratings in flags._ratings.values():
            verdict = straight_lined(ratings)
            if verdict is not None:
                flags.sessions_judged += 1
                flags.sessions_straight += verdict
        flags._ratings = {}
    return out

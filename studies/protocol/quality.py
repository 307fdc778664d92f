"""The ``quality`` setting of a protocol spec: quality control during a study. Pure: no Django.

Every part is off unless the spec turns it on, so a spec without ``quality`` asks for nothing::

    "quality": {
      "attention": {"on": true, "placement": "random", "count": 2},   # or "placement": "every", "every": 10
      "gold": {"rate": 0.1, "tolerance": {"rating": 1, "box": 0.6}},  # a share of the items; by field key
      "speed": {"min_seconds": 3, "median_share": 0.25},
      "outcomes": {"warnings": 1, "failures": 2},
      "estimated_minutes": 8
    }

Attention checks are items the researcher writes and marks as checks (instructed-response items:
the question itself says which answer to give); the spec says only where they go (``schedule``).
Gold items are ordinary items with known answers, mixed in at ``rate``; each field the gold names
is compared within its ``tolerance`` (``gold``). An answer faster than ``min_seconds``, or than
``median_share`` of the item's median time, is flagged (``too_fast``). Failed attention checks
decide the session's outcome (``check_outcome``): a warning after the first, then the end of the
session with the failed-check outcome at ``failures``, within Prolific's attention check policy
(``least_failures_to_end``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

PLACEMENTS = ("random", "every")
MAX_GOLD_RATE = 0.5
SHORT_STUDY_MINUTES = 5  # Prolific: a study this long or longer ends only on a second failed check

CONTINUE, WARN, END = "continue", "warn", "end"  # what a failed attention check leads to


@dataclass(frozen=True)
class Attention:
    """Where the attention checks go: ``count`` at uniformly random places in each session
    (placement "random"), or one after every ``every`` items (placement "every")."""

    on: bool = False
    placement: str = "random"
    count: int = 2  # at least two: a session of five minutes or more ends only on a second failed check
    every: int = 10


@dataclass(frozen=True)
class Gold:
    """Gold items as a share of each session's items (0: none), and each field's tolerance by key
    (a field not named is compared by its type's default)."""

    rate: float = 0.0
    tolerance: tuple[tuple[str, Any], ...] = ()

    @property
    def on(self) -> bool:
        return self.rate > 0

    def tolerance_for(self, key: str) -> Any:
        """The tolerance of the field ``key``; None for its type's default."""
        return dict(self.tolerance).get(key)


@dataclass(frozen=True)
class Speed:
    """An answer is too fast under ``min_seconds``, or under ``median_share`` of the median time
    annotators took on the item; None turns that test off."""

    min_seconds: float | None = None
    median_share: float | None = None

    @property
    def on(self) -> bool:
        return self.min_seconds is not None or self.median_share is not None


@dataclass(frozen=True)
class Outcomes:
    """What failed attention checks lead to: a warning after each of the first ``warnings``
    (0 or 1), the end of the session (with the failed-check outcome) at ``failures`` (1 or 2)."""

    warnings: int = 1
    failures: int = 2


@dataclass(frozen=True)
class Quality:
    attention: Attention = field(default_factory=Attention)
    gold: Gold = field(default_factory=Gold)
    speed: Speed = field(default_factory=Speed)
    outcomes: Outcomes = field(default_factory=Outcomes)
    estimated_minutes: float | None = None  # how long a session takes, as the study is advertised

    @property
    def on(self) -> bool:
        return self.attention.on or self.gold.on or self.speed.on


# --- decisions --------------------------------------------------------------------------------


def least_failures_to_end(estimated_minutes: float | None) -> int:
    """The fewest failed attention checks that may end a session with the failed-check outcome,
    by Prolific's policy: one in a study under five minutes, two otherwise (and when its length
    is not known)."""
    if estimated_minutes is not None and estimated_minutes < SHORT_STUDY_MINUTES:
        return 1
    return 2


def outcome_rule_problem(outcomes: Outcomes, estimated_minutes: float | None) -> str | None:
    """Why ending a session at ``outcomes.failures`` breaks Prolific's rule for a study of
    ``estimated_minutes`` (the spec's, or the estimate a launch gives Prolific), or None."""
    least = least_failures_to_end(estimated_minutes)
    if outcomes.failures >= least:
        return None
    length = "of unknown length" if estimated_minutes is None else f"of {estimated_minutes:g} minutes"
    return (f"a study {length} may end a session only after {least} failed checks (Prolific's attention check "
            f"policy allows one only in a study under {SHORT_STUDY_MINUTES} minutes: set 'estimated_minutes')")


def check_outcome(outcomes: Outcomes, failed: int) -> str:
    """What the ``failed``-th failed attention check of a session leads to: ``END`` (the session
    ends with the failed-check outcome), ``WARN`` (the annotator is told, once) or ``CONTINUE``."""
    if failed >= outcomes.failures:
        return END
    if 1 <= failed <= outcomes.warnings:
        return WARN
    return CONTINUE


def too_fast(speed: Speed, seconds: float, median_seconds: float | None = None) -> bool:
    """Is an answer given in ``seconds`` too fast: under ``min_seconds``, or under ``median_share``
    of the item's ``median_seconds`` (None: no median yet)? Exactly at a threshold is not too fast."""
    if speed.min_seconds is not None and seconds < speed.min_seconds:
        return True
    if speed.median_share is None or median_seconds is None:
        return False
    return seconds < speed.median_share * median_seconds


def gold_count(rate: float, items: int) -> int:
    """How many gold items a session of ``items`` ordinary items mixes in: ``rate`` of them,
    rounded half up."""
    return math.floor(rate * items + 0.5) if rate > 0 and items > 0 else 0


# --- the spec ---------------------------------------------------------------------------------


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _section(raw: Any, where: str, keys: Sequence[str], errors: list[str]) -> dict:
    """``raw`` as an object of ``keys`` (None: an empty one); an unknown key or no object is an error."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be an object with {', '.join(repr(k) for k in keys)}")
        return {}
    unknown = set(raw) - set(keys)
    if unknown:
        errors.append(f"{where}: unknown setting(s) {', '.join(sorted(unknown))} (known: {', '.join(keys)})")
    return raw


def _attention(raw: Any, errors: list[str]) -> Attention:
    where = "quality.attention"
    data = _section(raw, where, ("on", "placement", "count", "every"), errors)
    if not isinstance(raw, dict):
        return Attention()
    on, placement = data.get("on", True), data.get("placement", "random")
    count, every = data.get("count", Attention.count), data.get("every", Attention.every)
    if not isinstance(on, bool):
        errors.append(f"{where}.on: must be true or false")
    if placement not in PLACEMENTS:
        errors.append(f"{where}.placement: must be one of {', '.join(PLACEMENTS)} (got {placement!r})")
    if not _whole(count) or count < 1:
        errors.append(f"{where}.count: must be a whole number ≥ 1 (checks in each session)")
    if not _whole(every) or every < 1:
        errors.append(f"{where}.every: must be a whole number ≥ 1 (a check after every so many items)")
    if placement == "random" and "every" in data:
        errors.append(f"{where}.every: belongs to placement \"every\" (this placement is \"random\")")
    if placement == "every" and "count" in data:
        errors.append(f"{where}.count: belongs to placement \"random\" (this placement is \"every\")")
    return Attention(on=on is True, placement=str(placement), count=count if _whole(count) else Attention.count,
                     every=every if _whole(every) else Attention.every)


def _gold(raw: Any, fields: Sequence[Any], errors: list[str]) -> Gold:
    where = "quality.gold"
    data = _section(raw, where, ("rate", "tolerance"), errors)
    rate = data.get("rate", 0.0)
    if not _number(rate) or not 0 <= rate <= MAX_GOLD_RATE:
        errors.append(f"{where}.rate: must be a number from 0 to {MAX_GOLD_RATE} (a share of each session's items)")
        rate = 0.0
    tolerances = data.get("tolerance", {})
    if not isinstance(tolerances, dict):
        errors.append(f"{where}.tolerance: must be an object of tolerances by field key")
        tolerances = {}
    by_key = {f.key: f for f in fields}
    kept = []
    for key, tolerance in tolerances.items():
        f = by_key.get(key)
        if f is None:
            errors.append(f"{where}.tolerance.{key}: no field '{key}' in this protocol")
            continue
        problem = f.kind.gold_problem(f) or f.kind.gold_tolerance_problem(f, tolerance)
        if problem:
            errors.append(f"{where}.tolerance.{key}: field '{key}' ({f.type}): {problem}")
            continue
        kept.append((key, tolerance))
    return Gold(rate=float(rate), tolerance=tuple(kept))


def _speed(raw: Any, errors: list[str]) -> Speed:
    where = "quality.speed"
    data = _section(raw, where, ("min_seconds", "median_share"), errors)
    least, share = data.get("min_seconds"), data.get("median_share")
    if least is not None and not (_number(least) and least > 0):
        errors.append(f"{where}.min_seconds: must be a number of seconds > 0")
        least = None
    if share is not None and not (_number(share) and 0 < share <= 1):
        errors.append(f"{where}.median_share: must be a number in (0, 1] (a share of the item's median time)")
        share = None
    return Speed(min_seconds=least, median_share=share)


def _outcomes(raw: Any, minutes: float | None, errors: list[str]) -> Outcomes:
    where = "quality.outcomes"
    data = _section(raw, where, ("warnings", "failures"), errors)
    warnings, failures = data.get("warnings", Outcomes.warnings), data.get("failures", Outcomes.failures)
    if warnings not in (0, 1) or not _whole(warnings):
        errors.append(f"{where}.warnings: must be 0 or 1 (warnings before the session ends)")
        warnings = Outcomes.warnings
    if failures not in (1, 2) or not _whole(failures):
        errors.append(f"{where}.failures: must be 1 or 2 (the failed checks that end the session)")
        return Outcomes(warnings=warnings)
    outcomes = Outcomes(warnings=warnings, failures=failures)
    problem = outcome_rule_problem(outcomes, minutes)
    if problem:
        errors.append(f"{where}.failures: {problem}")
    if warnings >= failures:
        errors.append(f"{where}.warnings: a warning follows a failed check that does not end the session; "
                      f"with 'failures' {failures} there is none, so 'warnings' must be 0")
    return outcomes


def parse_quality(raw: Any, fields: Sequence[Any], errors: list[str]) -> Quality:
    """The ``quality`` setting checked against the protocol's top-level ``fields``; each problem
    is added to ``errors`` naming its key ("quality.gold.rate: …"). None or absent: all off."""
    data = _section(raw, "quality", ("attention", "gold", "speed", "outcomes", "estimated_minutes"), errors)
    minutes = data.get("estimated_minutes")
    if minutes is not None and not (_number(minutes) and minutes > 0):
        errors.append("quality.estimated_minutes: must be a number of minutes > 0")
        minutes = None
    attention = _attention(data.get("attention"), errors)
    outcomes = _outcomes(data.get("outcomes"), minutes, errors) if attention.on or "outcomes" in data else Outcomes()
    if attention.on and attention.placement == "random" and 1 <= attention.count < outcomes.failures:
        errors.append(f"quality.attention.count: {attention.count} check(s) in a session can never reach the "
                      f"{outcomes.failures} failed checks that end it ('quality.outcomes.failures')")
    return Quality(
        attention=attention, gold=_gold(data.get("gold"), fields, errors), speed=_speed(data.get("speed"), errors),
        outcomes=outcomes, estimated_minutes=minutes,
    )

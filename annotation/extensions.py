"""Where apps above annotation plug into the annotator's way through, without annotation importing
them (the layers point one way). An app registers its hooks in its ``AppConfig.ready()``;
annotation calls whatever is registered, and behaves as before when nothing is.

- **Entry checks** (``entry_check_register``): asked at every entry link with the pool and the
  link's parameters. A check answers ``None`` when the pool is not its business (one cheap lookup
  at most: the annotator's hot path), else an ``EntryVerdict``: let in (verified, or unverified
  because the check could not be made now), or refuse with a reason for the page. A verdict that
  lets in may carry ``entered``, called with the session once it exists (to record it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from studies.models import CountryPool

    from .models import Session


@dataclass(frozen=True)
class EntryVerdict:
    outcome: Literal["allow", "refuse", "unverified"]
    reason: str = ""  # for "refuse": a key of the entry problems page (e.g. "wrong_participant")
    detail: str = ""
    entered: Callable[[Session], None] | None = None

    @property
    def lets_in(self) -> bool:
        return self.outcome != "refuse"


EntryCheck = Callable[["CountryPool", dict[str, str]], "EntryVerdict | None"]

_entry_checks: list[EntryCheck] = []


def entry_check_register(check: EntryCheck) -> None:
    """Add ``check`` to the entry checks (once: registering it again changes nothing)."""
    if check not in _entry_checks:
        _entry_checks.append(check)


def entry_check_unregister(check: EntryCheck) -> None:
    if check in _entry_checks:
        _entry_checks.remove(check)


def entry_verdict(pool: CountryPool, params: dict[str, str]) -> EntryVerdict | None:
    """The first verdict of a registered check that minds this pool, or None (no check applies)."""
    for check in _entry_checks:
        verdict = check(pool, params)
        if verdict is not None:
            return verdict
    return None


# --- facts a dataset card states -------------------------------------------------------------
#
# **Recruitment facts** (``recruitment_facts_register``): asked by an export's datasheet (exports
# sits above annotation, beside recruitment, and may not import it) for what a study's launches
# say about recruitment, e.g. each Prolific launch's reward and estimated minutes: plain JSON-able
# dicts, one per launch; an empty list when the study was not launched anywhere.

RecruitmentFacts = Callable[[int], list[dict]]

_recruitment_facts: list[RecruitmentFacts] = []


def recruitment_facts_register(reader: RecruitmentFacts) -> None:
    """Add ``reader`` (study id → facts) to the readers (once)."""
    if reader not in _recruitment_facts:
        _recruitment_facts.append(reader)


def recruitment_facts(study_id: int) -> list[dict]:
    """Every registered reader's facts about the study's recruitment, in registration order."""
    return [fact for reader in _recruitment_facts for fact in reader(study_id)]

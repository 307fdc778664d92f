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

    from .models import Annotator, Session


@dataclass(frozen=True)
class EntryVerdict:
    # "test": a researcher's test entry (e.g. Prolific's test study): walked in the path preview,
    # nothing stored (``annotation.trial_entry``)
    outcome: Literal["allow", "refuse", "unverified", "test"]
    reason: str = ""  # for "refuse": a key of the entry problems page (e.g. "wrong_participant")
    detail: str = ""
    entered: Callable[[Session], None] | None = None

    @property
    def lets_in(self) -> bool:
        return self.outcome in ("allow", "unverified")


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


# --- paid screen-outs and extra entry parameters (issue 28, part 2) ---------------------------
#
# **Screen-outs** (``screen_out_register``): where an eligibility "no" ends in the recruiting
# platform's paid screen-out instead of a return. ``offer`` answers, for an annotator who was not
# eligible, the fixed reward they are paid (as money, for the end page), or None where the pool does
# not pay screen-outs; ``request`` asks the platform to screen them out (once; it may queue a job).
#
# **Entry parameters** (``entry_param_register``): names of further query parameters the entry link
# passes on to the entry checks (e.g. the signed token of Prolific's secured study URL); the callable
# is asked at each entry, so a setting may name the parameter.


@dataclass(frozen=True)
class ScreenOut:
    reward: str  # the fixed reward, as money ("£0.10")


ScreenOutOffer = Callable[["Annotator"], "ScreenOut | None"]
ScreenOutRequest = Callable[["Annotator"], None]

_screen_outs: list[tuple[ScreenOutOffer, ScreenOutRequest]] = []
_entry_params: list[Callable[[], str]] = []


def screen_out_register(offer: ScreenOutOffer, request: ScreenOutRequest) -> None:
    if (offer, request) not in _screen_outs:
        _screen_outs.append((offer, request))


def screen_out_offer(annotator: Annotator) -> ScreenOut | None:
    """The paid screen-out an annotator who was not eligible gets, or None (they are asked to return).
    An annotator not saved (the researcher's path preview) has no submission anywhere: None."""
    if annotator.pk is None:
        return None
    for offer, _ in _screen_outs:
        found = offer(annotator)
        if found is not None:
            return found
    return None


def screen_out_request(annotator: Annotator) -> bool:
    """Ask the first registered platform that offers the annotator a screen-out to screen them out."""
    for offer, request in _screen_outs:
        if offer(annotator) is not None:
            request(annotator)
            return True
    return False


def entry_param_register(name: Callable[[], str]) -> None:
    if name not in _entry_params:
        _entry_params.append(name)


def entry_params() -> list[str]:
    """The further entry-link parameters the registered checks read."""
    return [n for n in (name() for name in _entry_params) if n]

"""The body of a pool's Prolific study: what is sent to ``POST /studies/``, built from the study, the
pool, its open quota, the researcher's choices and Prolific's own filter list."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import F, Sum

from annotation.links import entry_link
from studies.models import CountryPool, ItemQuota, Study
from studies.protocol.quality import outcome_rule_problem

from ..country_choices import RESIDENCE_FILTER_TITLE, pool_country
from ..models import ProlificCountryPick
from ..prolific import DEVICES, Filter
from ..rules import (
    RuleBroken,
    completion_code_problems,
    least_maximum_minutes,
    places_for,
    reward_check,
    screen_out_reward_check,
    site_url_problem,
)


@dataclass(frozen=True)
class Outcome:
    """One way out of the study, the completion code Prolific gets for it, and why."""

    key: str  # annotation's Annotator.Outcome ("completed": the session finished)
    code_field: str  # the Study field holding the code
    code_type: str
    actions: tuple[dict[str, Any], ...]
    why: str  # for the docs and the page: what Prolific then does, and the rule behind it

    @property
    def returns(self) -> bool:
        return any(a["action"] == "REQUEST_RETURN" for a in self.actions)


REVIEW = {"action": "MANUALLY_REVIEW"}
APPROVE = {"action": "AUTOMATICALLY_APPROVE"}


def _return(reason: str) -> dict[str, Any]:
    return {"action": "REQUEST_RETURN", "return_reason": reason}


# Every ending the platform has (annotation.selectors.ending_for), one line each, checked against
# Prolific's rules by ``rules.completion_code_problems`` whenever codes are built. Whoever did not
# qualify (no consent, not eligible, failed the practice test, a comprehension check) is asked to
# return: Prolific forbids rejecting on a criterion it did not prescreen, and its help asks
# comprehension failures to return. Only failed fair attention checks may lead to a rejection, and
# never automatically.
OUTCOMES = (
    Outcome("completed", "code_completed", "COMPLETED", (REVIEW,),
            "reviewed here, then approved and paid (or approved by Prolific, if chosen at launch)"),
    Outcome("failed_mock", "code_failed_mock", "OTHER",
            (_return("You did not pass the practice test, so the study ended early."),),
            "asked to return: a practice test is a comprehension check, never a reason to reject"),
    Outcome("not_eligible", "code_not_eligible", "OTHER",
            (_return("You are not eligible for this study's country pool."),),
            "asked to return: re-asked screening questions may only ask a mismatch to return"),
    Outcome("no_consent", "code_no_consent", "NO_CONSENT", (_return("You did not consent to take part."),),
            "asked to return, as Prolific requires for no consent"),
    Outcome("all_skipped", "code_all_skipped", "OTHER", (REVIEW,),
            "reviewed here: the researcher decides on pay"),
    Outcome("failed_check", "code_failed_check", "FAILED_ATTENTION_CHECK", (REVIEW,),
            "reviewed here: the researcher may reject with the pre-filled reason (never automatically)"),
)

# issue 28, part 2: where a launch pays screen-outs, "not eligible" ends without a code: the server
# screens the submission out (``POST /studies/{id}/screen-out-submissions/``) and Prolific pays the
# fixed reward. The code above stays configured, for a participant who submits it anyway.
SCREEN_OUT_ENDING = {
    "key": "not_eligible",
    "label": "not eligible, where the launch pays screen-outs",
    "code_type": "none (no code: the server screens the submission out)",
    "action": "POST /studies/{id}/screen-out-submissions/ with the fixed reward (bonus_per_submission)",
    "why": "Prolific's paid screen-out: the study is created with is_custom_screening, and a participant who "
           "does not qualify is paid a fixed amount for their time instead of being asked to return",
}


def outcome_table(*, auto_approve: bool = False) -> list[dict[str, str]]:
    """Every ending with its code type, what Prolific then does, and why: for the docs and the page."""
    rows = []
    for outcome in OUTCOMES:
        actions = (APPROVE,) if outcome.key == "completed" and auto_approve else outcome.actions
        rows.append({"key": outcome.key, "label": outcome.key.replace("_", " "), "code_type": outcome.code_type,
                     "action": ", ".join(a["action"] for a in actions), "why": outcome.why})
    return [*rows, SCREEN_OUT_ENDING]


@dataclass(frozen=True)
class FilterPick:
    """A filter the researcher adds, by its title (or its id) in Prolific's list, with the labels
    of the choices wanted; no label means the pool's country (nationality, country of birth)."""

    title: str
    labels: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> FilterPick:
        """``Nationality`` or ``First Language=Hindi|Tamil``."""
        title, _, labels = (part.strip() for part in text.partition("="))
        if not title:
            raise RuleBroken(f"{text!r} names no filter")
        return cls(title, tuple(label.strip() for label in labels.split("|") if label.strip()))

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "labels": list(self.labels)}


@dataclass(frozen=True)
class LaunchOptions:
    reward: int  # minor units, per participant
    estimated_minutes: int
    maximum_allowed_minutes: int | None = None
    devices: tuple[str, ...] = ("desktop",)
    filter_picks: tuple[FilterPick, ...] = ()
    auto_approve: bool = False  # completed submissions approved by Prolific, else reviewed here
    description: str = ""
    # issue 28, part 2: an eligibility "no" ends in Prolific's paid screen-out at this fixed reward
    # (minor units; None: a return, as before); the entry link carries Prolific's signed token
    screen_out_reward: int | None = None
    secured_entry: bool = False
    # rounds (services/rounds.py), by our ids: groups restricted to, groups and earlier studies excluded
    allow_groups: tuple[int, ...] = ()
    block_groups: tuple[int, ...] = ()
    exclude_studies: tuple[int, ...] = ()


@dataclass
class LaunchPlan:
    """What a launch will send, and the figures a researcher checks before publishing."""

    places: int
    open_slots: int
    currency: str
    maximum_allowed_minutes: int
    filters: list[dict[str, Any]]
    body: dict[str, Any] = field(repr=False)


def pool_open_slots(pool: CountryPool) -> int:
    """Annotations the pool still wants that nobody holds: the sum of ``wanted - done - leased``.
    Leases out are not counted (their holders are already in); slots that reopen later raise the
    study's places then."""
    total = ItemQuota.objects.filter(pool=pool).with_room().aggregate(
        open=Sum(F("wanted") - F("done") - F("leased"))
    )["open"]
    return int(total or 0)


def completion_codes(study: Study, *, auto_approve: bool) -> list[dict[str, Any]]:
    codes = []
    seen: dict[str, str] = {}
    for outcome in OUTCOMES:
        code = (getattr(study, outcome.code_field) or "").strip()
        if not code:
            raise RuleBroken(f"the study has no completion code for '{outcome.key}': set it in the study's settings")
        if code in seen:
            raise RuleBroken(
                f"the completion code {code!r} is used for both '{seen[code]}' and '{outcome.key}': "
                "Prolific needs a different code for each outcome"
            )
        seen[code] = outcome.key
        actions = (APPROVE,) if outcome.key == "completed" and auto_approve else outcome.actions
        codes.append({"code": code, "code_type": outcome.code_type, "actions": list(actions), "actor": "participant"})
    problems = completion_code_problems(codes)
    if problems:  # the table above broke one of Prolific's rules: never sent
        raise RuleBroken("; ".join(problems))
    return codes


def _find_filter(catalogue: list[Filter], title: str) -> Filter:
    wanted = _norm(title)
    for candidate in catalogue:
        if candidate.filter_id == title or _norm(candidate.title) == wanted:
            return candidate
    raise RuleBroken(f"Prolific's filter list has no filter titled {title!r}")


def _choice_keys(flt: Filter, labels: tuple[str, ...]) -> list[str]:
    by_label = {_norm(label): key for key, label in flt.choices.items()}
    keys = []
    for label in labels:
        key = by_label.get(_norm(label))
        if key is None:
            raise RuleBroken(f"Prolific's filter {flt.title!r} has no choice {label!r}")
        keys.append(key)
    return keys


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def resolve_filters(
    *, catalogue: list[Filter], pool: CountryPool, picks: tuple[FilterPick, ...]
) -> list[dict[str, Any]]:
    """The pool's country as current country of residence, then the researcher's picks, each
    resolved to Prolific's filter id and choice keys from its own list (a pick with no label takes
    the pool's country, found as for residence)."""
    picked = ProlificCountryPick.objects.filter(pool=pool).first()
    out: list[dict[str, Any]] = []
    for title, labels in [(RESIDENCE_FILTER_TITLE, ()), *((p.title, p.labels) for p in picks)]:
        flt = _find_filter(catalogue, title)
        if not flt.selects_choices:
            raise RuleBroken(
                f"Prolific's filter {flt.title!r} is a {flt.type or 'non-select'} filter: not supported yet"
            )
        if any(f["filter_id"] == flt.filter_id for f in out):
            raise RuleBroken(f"the filter {flt.title!r} is given twice")
        if labels:
            keys = _choice_keys(flt, labels)
        else:
            pick = (picked.choice_key, picked.choice_label) if picked is not None else None
            keys = [pool_country(flt, code=pool.country, name=pool.country_name, picked=pick).key]
        out.append({"filter_id": flt.filter_id, "selected_values": keys})
    return out


def description_for(study: Study, options: LaunchOptions) -> str:
    if options.description.strip():
        return options.description.strip()
    n = study.items_per_session
    return (
        f"Answer a few questions about {n} item{'s' if n != 1 else ''} (for example an image and its text), "
        f"one at a time, in your browser. It takes about {options.estimated_minutes} minutes."
    )


def launch_refusal() -> str | None:
    """Why no study may be launched from this deployment, or None (the SITE_URL rule)."""
    return site_url_problem(site_url=settings.SITE_URL, api_url=settings.PROLIFIC_API_URL)


def launch_plan(
    *, pool: CountryPool, options: LaunchOptions, currency: str, catalogue: list[Filter], reference: str,
    round_filters: list[dict[str, Any]] | None = None,
) -> LaunchPlan:
    """The create-study body for ``pool``, or RuleBroken saying which rule refuses it."""
    study = pool.study
    reward_check(reward=options.reward, minutes=options.estimated_minutes, currency=currency)
    least = least_maximum_minutes(options.estimated_minutes)
    maximum = options.maximum_allowed_minutes or least
    if maximum < least:
        raise RuleBroken(
            f"the maximum allowed time ({maximum} minutes) must be at least {least} minutes for an estimate of "
            f"{options.estimated_minutes} minutes"
        )
    quality = study.spec.quality
    if quality.attention.on:
        # Prolific's policy on failed attention checks, against the estimate it is actually sent.
        problem = outcome_rule_problem(quality.outcomes, options.estimated_minutes)
        if problem:
            raise RuleBroken(f"the protocol's attention checks: {problem}")
    bad = [d for d in options.devices if d not in DEVICES]
    if bad:
        raise RuleBroken(f"unknown device(s) {', '.join(bad)}: choose among {', '.join(DEVICES)}")
    open_slots = pool_open_slots(pool)
    places = places_for(open_slots=open_slots, session_size=study.items_per_session)
    if places < 1:
        raise RuleBroken(f"the pool {pool.country_name} has no open slot: nobody to recruit")
    filters = resolve_filters(catalogue=catalogue, pool=pool, picks=options.filter_picks) + list(round_filters or [])
    body = {
        "name": study.name,
        "internal_name": reference,
        "description": description_for(study, options),
        "external_study_url": entry_link(pool),
        "prolific_id_option": "url_parameters",
        "completion_codes": completion_codes(study, auto_approve=options.auto_approve),
        "estimated_completion_time": options.estimated_minutes,
        "maximum_allowed_time": maximum,
        "reward": options.reward,
        "total_available_places": places,
        "device_compatibility": list(options.devices),
        "filters": filters,
        "submissions_config": {"max_submissions_per_participant": 1},
        "metadata": reference,
    }
    if options.screen_out_reward is not None:
        # Prolific's paid screen-out (workspace-restricted): the study says it screens its own
        # participants, and each one screened out is paid the fixed reward (services.screenouts).
        screen_out_reward_check(reward=options.screen_out_reward, currency=currency)
        body["is_custom_screening"] = True
    return LaunchPlan(
        places=places, open_slots=open_slots, currency=currency, maximum_allowed_minutes=maximum,
        filters=filters, body=body,
    )

"""Reads of recruitment: a study's Prolific studies, what publishing a pool would bring and cost,
and what removing a pool would take with it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db.models import Count, F, Q, QuerySet, Sum

from annotation.models import Checker, ReviewTarget
from studies.models import CountryPool, ItemQuota, PoolPanel, Study

from .country_choices import RESIDENCE_FILTER_TITLE, CountryMatch, pool_country
from .models import (
    ProlificAction,
    ProlificBonus,
    ProlificCountryPick,
    ProlificStudy,
    ProlificSubmission,
    ProlificWebhook,
    RecruitmentPolicy,
)
from .prolific import Filter, ProlificClient, ProlificError
from .rules import RuleBroken, money
from .tokens import client_for


def panel_change_problem(*, pool: CountryPool, kind: str) -> str:
    """Why ``pool`` may not recruit through ``kind`` ("" when it may): a pool with a study on
    Prolific stays on Prolific, its participants arriving by Prolific's link. Asked wherever a
    panel is set (the pool's panel page, the API): studies, which keeps the panel, sits below
    recruitment."""
    if kind != PoolPanel.Kind.URL or not ProlificStudy.objects.filter(pool=pool).exclude(prolific_id="").exists():
        return ""
    return ("This pool has a study on Prolific: it stays on Prolific. Add a pool for another panel instead, "
            "or stop the Prolific study and remove the pool first.")


def prolific_studies_of(*, study: Study) -> QuerySet[ProlificStudy]:
    """The study's pools on Prolific, by country (the caller has scoped the study)."""
    return ProlificStudy.objects.filter(pool__study=study).select_related("pool").order_by("pool__country")


# What may be done with a pool's study in each of Prolific's statuses.
VERBS_BY_STATUS = {
    "UNPUBLISHED": ("publish",),
    "ACTIVE": ("pause", "stop"),
    "PAUSED": ("resume", "stop"),
}


def prolific_actions_of(*, study: Study) -> QuerySet[ProlificAction]:
    """The study's calls to Prolific, newest first."""
    return ProlificAction.objects.filter(study=study).select_related("prolific_study__pool", "user")


@dataclass(frozen=True)
class PoolRecruitment:
    """One row of the study's Prolific page."""

    pool: CountryPool
    prolific_study: ProlificStudy | None
    open_slots: int

    @property
    def verbs(self) -> tuple[str, ...]:
        row = self.prolific_study
        return VERBS_BY_STATUS.get(row.status, ()) if row is not None and row.created else ()


def prolific_pools(*, study: Study) -> list[PoolRecruitment]:
    """Every pool of the study with its Prolific study (if any) and its open slots, in three queries."""
    rows = {row.pool_id: row for row in ProlificStudy.objects.filter(pool__study=study)}
    open_by_pool = dict(
        ItemQuota.objects.filter(pool__study=study).with_room().values("pool")
        .annotate(open=Sum(F("wanted") - F("done") - F("leased"))).values_list("pool", "open")
    )
    return [
        PoolRecruitment(pool, rows.get(pool.pk), int(open_by_pool.get(pool.pk) or 0))
        for pool in study.pools.order_by("country")
    ]


@dataclass(frozen=True)
class Preview:
    """Before publishing one pool: who could take part, and what it costs. Each figure is asked of
    Prolific on its own, so one that fails leaves the other shown, with its reason."""

    prolific_study: ProlificStudy
    eligible: int | None  # Prolific answers 0 below 25 participants; None: not known (``eligible_error``)
    rewards: int  # places x reward, minor units
    total_cost: int | None  # Prolific's figure with its fees, minor units, when it gives one
    eligible_error: str = ""
    cost_error: str = ""  # Prolific could not be asked now: ``total_cost`` is the last one it gave

    @property
    def rewards_text(self) -> str:
        return money(self.rewards, self.prolific_study.currency)

    @property
    def total_cost_text(self) -> str:
        return money(self.total_cost, self.prolific_study.currency) if self.total_cost is not None else "unknown"


ELIGIBLE_CACHED = 600  # seconds: a count barely moves in minutes, and each one is a call to Prolific


def eligible_count(client: ProlificClient, filters: list[dict], *, user: AbstractBaseUser | None) -> int:
    """Prolific's count of participants passing ``filters``, cached for ten minutes per token's owner."""
    digest = hashlib.sha256(json.dumps(filters, sort_keys=True).encode()).hexdigest()[:32]
    key = f"prolific:eligible:{settings.PROLIFIC_API_URL}:{getattr(user, 'pk', None)}:{digest}"
    count = cache.get(key)
    if count is None:
        count = client.eligibility_count(filters)
        cache.set(key, count, ELIGIBLE_CACHED)
    return int(count)


def prolific_preview(*, prolific_study: ProlificStudy, user: AbstractBaseUser | None) -> Preview:
    """The eligible participant count (asked of Prolific with the study's filters, cached) and the
    cost (read back from Prolific), each on its own."""
    row = prolific_study
    eligible, eligible_error, total_cost, cost_error = None, "", row.total_cost, ""
    with client_for(user=user) as client:
        try:
            eligible = eligible_count(client, row.filters, user=user)
        except ProlificError as exc:
            eligible_error = str(exc)
        if row.created:
            try:
                total_cost = client.study_get(row.prolific_id).total_cost
            except ProlificError as exc:
                cost_error = str(exc)
    return Preview(
        row, eligible=eligible, rewards=row.places * row.reward, total_cost=total_cost,
        eligible_error=eligible_error, cost_error=cost_error,
    )


@dataclass(frozen=True)
class Budget:
    """What the study's pools on Prolific cost, in one currency: the rewards, and Prolific's total
    with its fees and VAT as Prolific itself reported it (the pools it reported for)."""

    currency: str
    pools: int  # pools on Prolific in this currency
    rewards: int  # minor units: places x reward, summed
    reported: int  # pools whose total Prolific reported
    total_cost: int  # Prolific's totals, summed over the pools it reported
    rewards_reported: int  # the rewards of those pools (their fees are total - these)
    bonuses: int = 0  # bonuses paid, what the participants got, minor units
    bonuses_total: int = 0  # the same with Prolific's fees and VAT, as it reported them

    @property
    def bonuses_text(self) -> str:
        return money(self.bonuses, self.currency)

    @property
    def bonuses_total_text(self) -> str:
        return money(self.bonuses_total, self.currency)

    @property
    def unreported(self) -> int:
        return self.pools - self.reported

    @property
    def rewards_text(self) -> str:
        return money(self.rewards, self.currency)

    @property
    def total_cost_text(self) -> str:
        return money(self.total_cost, self.currency)

    @property
    def fees_text(self) -> str:
        """Prolific's fees and VAT on the pools it reported a total for."""
        return money(self.total_cost - self.rewards_reported, self.currency)


def study_budget(*, study: Study) -> list[Budget]:
    """The study's budget on Prolific, one line per currency (one in practice), from what Prolific
    last reported of each pool (the launch, the preview, the sync and refresh keep it), with the
    bonuses paid."""
    by_currency: dict[str, list[ProlificStudy]] = {}
    for row in ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").order_by("pk"):
        by_currency.setdefault(row.currency or "GBP", []).append(row)
    if not by_currency:
        return []  # nothing on Prolific: no budget, and no bonus could be paid
    paid: dict[str, tuple[int, int]] = {}
    bonuses = ProlificBonus.objects.filter(prolific_study__pool__study=study, state=ProlificBonus.State.PAID)
    for bonus in bonuses.only("amount", "total_amount", "currency"):
        amount, total = paid.get(bonus.currency or "GBP", (0, 0))
        paid[bonus.currency or "GBP"] = (amount + bonus.amount, total + (bonus.total_amount or bonus.amount))
    budgets = []
    for currency, rows in sorted(by_currency.items()):
        reported = [r for r in rows if r.total_cost is not None]
        bonus_amount, bonus_total = paid.get(currency, (0, 0))
        budgets.append(Budget(
            currency=currency, pools=len(rows), rewards=sum(r.places * r.reward for r in rows),
            reported=len(reported), total_cost=sum(r.total_cost or 0 for r in reported),
            rewards_reported=sum(r.places * r.reward for r in reported),
            bonuses=bonus_amount, bonuses_total=bonus_total,
        ))
    return budgets


FILTERS_CACHED = 3600  # seconds: Prolific's filter list changes rarely; a launch reads it afresh


def filter_catalogue(*, user: AbstractBaseUser | None) -> list[Filter]:
    """Prolific's filter list as the user's token sees it, cached for an hour."""
    key = f"prolific:filters:{settings.PROLIFIC_API_URL}:{getattr(user, 'pk', None)}"
    catalogue = cache.get(key)
    if catalogue is None:
        with client_for(user=user) as client:
            catalogue = client.filters()
        cache.set(key, catalogue, FILTERS_CACHED)
    return catalogue


@dataclass(frozen=True)
class PoolCountry:
    """A pool's country as Prolific's list of countries of residence has it (or why not)."""

    pool: CountryPool
    match: CountryMatch | None
    problem: str = ""


def residence_filter(*, user: AbstractBaseUser | None) -> Filter:
    """Prolific's "Current Country of Residence" filter, from its (cached) list."""
    residence = next((f for f in filter_catalogue(user=user) if f.title == RESIDENCE_FILTER_TITLE), None)
    if residence is None:
        raise RuleBroken(f"Prolific's filter list has no filter titled {RESIDENCE_FILTER_TITLE!r}")
    return residence


def prolific_countries(*, study: Study, user: AbstractBaseUser | None) -> tuple[list[PoolCountry], dict[str, str]]:
    """Each pool's choice in Prolific's "Current Country of Residence" filter, as a launch would
    send it, and that filter's choices (key -> label, by label) to pick one by hand."""
    residence = residence_filter(user=user)
    picks = {p.pool_id: p for p in ProlificCountryPick.objects.filter(pool__study=study)}
    rows = []
    for pool in study.pools.order_by("country"):
        picked = picks.get(pool.pk)
        try:
            match = pool_country(
                residence, code=pool.country, name=pool.country_name,
                picked=(picked.choice_key, picked.choice_label) if picked else None,
            )
            rows.append(PoolCountry(pool, match))
        except RuleBroken as exc:
            rows.append(PoolCountry(pool, None, str(exc)))
    return rows, dict(sorted(residence.choices.items(), key=lambda kv: kv[1].casefold()))


def entries_unverified_of(*, study: Study) -> QuerySet[ProlificSubmission]:
    """The study's entries let in without Prolific's confirmation (pending a recheck) or found
    not to match it afterwards, newest first."""
    return (
        ProlificSubmission.objects.filter(
            prolific_study__pool__study=study,
            entry_check__in=[ProlificSubmission.Check.PENDING, ProlificSubmission.Check.FAILED],
        )
        .select_related("prolific_study__pool")
        .order_by("-pk")
    )


def count_returned_of(*, study: Study) -> bool:
    return bool(
        RecruitmentPolicy.objects.filter(study=study).values_list("count_returned", flat=True).first() or False
    )


def webhooks_set_up() -> list[ProlificWebhook]:
    return list(ProlificWebhook.objects.only("workspace_id", "target_url", "subscriptions", "updated_at"))


def launch_facts(study_id: int) -> list[dict]:
    """Each Prolific launch of the study as a dataset card states it (registered in
    ``annotation.extensions`` for the export's datasheet): the pool's country, places, the reward,
    the estimated minutes and the hourly rate they make, and how many entries it let in without
    Prolific's confirmation of the participant (a check pending or failed). Only launches
    participants could see: a draft never published (or a row Prolific never created) offered no
    pay to anyone."""
    unverified = Q(submissions__entry_check__in=[ProlificSubmission.Check.PENDING, ProlificSubmission.Check.FAILED])
    rows = (
        ProlificStudy.objects.filter(pool__study_id=study_id)
        .exclude(status__in=ProlificStudy.NEVER_PUBLISHED)
        .annotate(unverified=Count("submissions", filter=unverified))
        .select_related("pool")
        .order_by("pool__country")
    )
    return [
        {
            "platform": "Prolific", "country": p.pool.country, "places": p.places,
            "reward": money(p.reward, p.currency or "GBP"), "estimated_minutes": p.estimated_minutes,
            "hourly": money(round(p.reward * 60 / p.estimated_minutes), p.currency or "GBP")
            if p.estimated_minutes else None,
            "unverified_entries": p.unverified,
        }
        for p in rows
    ]


@dataclass(frozen=True)
class PoolRemoval:
    """What removing a pool takes with it, for the page that asks first (``services.pool_delete``
    says whether it may go)."""

    pool: CountryPool
    items: int  # items routed to the pool: one quota each
    wanted: int  # the annotations those quotas want
    questions: list[tuple[str, str]]  # its eligibility questions
    checkers: list[str]  # the usernames of its checkers
    review_percent: int | None  # its review target, when one was set

    @property
    def by_country(self) -> bool:
        """Items go to the pool of their country: no other pool takes this pool's items."""
        return self.pool.study.by_country


def pool_removal(*, pool: CountryPool) -> PoolRemoval:
    quotas = ItemQuota.objects.filter(pool=pool).aggregate(items=Count("pk"), wanted=Sum("wanted"))
    checkers = Checker.objects.filter(pool=pool).order_by("user__username").values_list("user__username", flat=True)
    return PoolRemoval(
        pool=pool,
        items=quotas["items"],
        wanted=quotas["wanted"] or 0,
        questions=pool.eligibility_questions(),
        checkers=list(checkers),
        review_percent=ReviewTarget.objects.filter(pool=pool).values_list("percent", flat=True).first(),
    )

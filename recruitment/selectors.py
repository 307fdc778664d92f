"""Reads of recruitment: a study's Prolific studies, what publishing a pool would bring and cost,
and what removing a pool would take with it."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, Q, QuerySet, Sum

from annotation.models import Checker, ReviewTarget
from studies.models import CountryPool, ItemQuota, Study

from .models import ProlificAction, ProlificStudy, ProlificSubmission, ProlificWebhook, RecruitmentPolicy
from .rules import money
from .tokens import client_for


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
    """Before publishing one pool: who could take part, and what it costs."""

    prolific_study: ProlificStudy
    eligible: int  # Prolific answers 0 below 25 participants
    rewards: int  # places x reward, minor units
    total_cost: int | None  # Prolific's figure with its fees, minor units, when it gives one

    @property
    def rewards_text(self) -> str:
        return money(self.rewards, self.prolific_study.currency)

    @property
    def total_cost_text(self) -> str:
        return money(self.total_cost, self.prolific_study.currency) if self.total_cost is not None else "unknown"


def prolific_preview(*, prolific_study: ProlificStudy, user: AbstractBaseUser | None) -> Preview:
    """The eligible participant count (asked of Prolific with the study's filters) and the cost."""
    row = prolific_study
    with client_for(user=user) as client:
        eligible = client.eligibility_count(row.filters)
        total_cost = client.study_get(row.prolific_id).total_cost if row.created else row.total_cost
    return Preview(row, eligible=eligible, rewards=row.places * row.reward, total_cost=total_cost)


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
        return self.pool.study.routing == Study.Routing.COUNTRY


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

"""Reads of studies, always scoped to what the user may see."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q, QuerySet, Sum
from django.http import Http404
from django.shortcuts import get_object_or_404

from .models import CountryPool, Item, ItemQuota, MockQuestion, ProtocolVersion, Study
from .protocol import Protocol, SpecError, parse_spec


def owned_by(queryset: QuerySet, user: AbstractBaseUser, *, owner_path: str = "owner") -> QuerySet:
    """The rows of ``queryset`` a researcher may see: those of their own studies, ``owner_path``
    leading from a row to its study's owner ("study__owner" for a pool, an item or an annotator).
    Every row for a superuser; none for a visitor who is not logged in."""
    if not user.is_authenticated:
        return queryset.none()
    if user.is_superuser:
        return queryset
    return queryset.filter(**{owner_path: user})


def studies_for_user(user: AbstractBaseUser) -> QuerySet[Study]:
    """The studies a researcher may see: their own (every study for a superuser)."""
    return owned_by(Study.objects.all(), user)


def study_for_user(user: AbstractBaseUser, pk: int) -> Study:
    """One study the user may see, or 404 (never 403: another's study does not exist for them)."""
    if not user.is_authenticated:
        raise Http404
    return get_object_or_404(studies_for_user(user), pk=pk)


def protocol_specs(*, study: Study, versions: Iterable[int]) -> dict[int, Protocol]:
    """The stored specs of these protocol versions of the study, parsed (one query). A version
    with no stored spec, or one that no longer parses, is left out: its answers are read with the
    current spec, and the caller says so."""
    out = {}
    for version, spec in ProtocolVersion.objects.filter(study=study, version__in=list(versions)).values_list(
        "version", "spec"
    ):
        try:
            out[version] = parse_spec(spec)
        except SpecError:
            continue
    return out


@dataclass(frozen=True)
class VersionRow:
    """One protocol version of a study, for the editor's history: when it was made, and how many
    annotations were given under it (withdrawn ones too: they are kept)."""

    version: int
    created_at: datetime | None
    annotations: int
    current: bool


def protocol_history(*, study: Study) -> list[VersionRow]:
    """Every version of the study's protocol, newest first, with its annotations (two queries). A
    version answered under but not stored (older data) is listed without a date."""
    created = dict(study.protocol_versions.values_list("version", "created_at"))
    # ``annotations`` is the reverse of annotation.Annotation.study: counted here, never imported.
    counts = dict(study.annotations.values_list("protocol_version").annotate(n=Count("pk")).order_by())
    versions = sorted(set(created) | set(counts) | {study.protocol_version}, reverse=True)
    return [
        VersionRow(v, created.get(v), counts.get(v, 0), v == study.protocol_version) for v in versions
    ]


def items_in_hand(*, study: Study) -> int:
    """Items of the study an annotator holds now (a lease: ``assignments`` is the reverse of
    annotation.Assignment.pool, counted here, never imported; "leased" is its LEASED status)."""
    return study.pools.filter(assignments__status="leased").count()


def study_sample_item(*, study: Study) -> Item | None:
    """An item of the study as annotators meet one, for previewing its form: the first routed to a
    pool (it has a quota), its documents with it; None when no item is routed yet."""
    return (
        study.items.filter(is_example=False, quotas__isnull=False)
        .order_by("pk").prefetch_related("documents").distinct().first()
    )


# --- the item list of a study -----------------------------------------------------------------

EXAMPLE_CHOICES = {"yes": True, "no": False}


@dataclass(frozen=True)
class ItemFilters:
    """The item list's search and filters, as read from the query string ("" = any)."""

    q: str = ""
    country: str = ""
    model: str = ""
    category: str = ""
    example: str = ""

    @classmethod
    def from_query(cls, query) -> ItemFilters:
        values = {name: str(query.get(name, "")).strip()[:200] for name in ("q", "country", "model", "category")}
        example = str(query.get("example", ""))
        return cls(**values, example=example if example in EXAMPLE_CHOICES else "")

    @property
    def active(self) -> bool:
        return any((self.q, self.country, self.model, self.category, self.example))


def items_search(*, study: Study, filters: ItemFilters) -> QuerySet:
    """The study's items matching ``filters``, in import order: the search matches an item's id
    exactly or its prompt text in part."""
    items = study.items.order_by("id")
    if filters.q:
        items = items.filter(Q(external_id=filters.q) | Q(prompt__icontains=filters.q))
    if filters.country:
        items = items.filter(country=filters.country.upper())
    if filters.model:
        items = items.filter(model_name=filters.model)
    if filters.category:
        items = items.filter(category=filters.category)
    if filters.example:
        items = items.filter(is_example=EXAMPLE_CHOICES[filters.example])
    return items.only("id", "study_id", "external_id", "country", "prompt", "model_name", "category", "is_example")


def item_filter_choices(*, study: Study) -> dict[str, list[str]]:
    """The values the filters offer: the study's countries, models and categories (three DISTINCT
    queries on the study's items)."""
    items = study.items.order_by()

    def distinct(column: str) -> list[str]:
        return sorted(v for v in items.values_list(column, flat=True).distinct() if v)

    return {"countries": distinct("country"), "models": distinct("model_name"), "categories": distinct("category")}
def pool_for_user(user: AbstractBaseUser, pk: int, pool_pk: int) -> CountryPool:
    """One pool of one of the user's studies, or 404."""
    study = study_for_user(user, pk)
    return get_object_or_404(CountryPool.objects.select_related("study"), study=study, pk=pool_pk)


@dataclass(frozen=True)
class PoolPlan:
    """What a pool's settings mean for the study: items routed to it, the slots they make
    (items × annotations wanted) and the sessions needed to fill them."""

    pool: CountryPool
    items: int
    slots: int
    sessions: int
    done: int


def pool_plans(study: Study) -> list[PoolPlan]:
    """Every pool of the study with its consequences (three queries)."""
    items = Item.objects.filter(study=study, is_example=False)
    by_country = dict(items.values_list("country").annotate(n=Count("pk")).order_by())
    every = sum(by_country.values())
    done = dict(
        ItemQuota.objects.filter(pool__study=study).values_list("pool").annotate(n=Sum("done")).order_by()
    )
    plans = []
    for pool in study.pools.order_by("country_name"):
        routed = every if study.routing == Study.Routing.ALL_POOLS else by_country.get(pool.country, 0)
        slots = routed * pool.annotations_per_item
        plans.append(PoolPlan(
            pool=pool, items=routed, slots=slots,
            sessions=math.ceil(slots / study.items_per_session), done=done.get(pool.pk) or 0,
        ))
    return plans


def mock_question_for_user(user: AbstractBaseUser, pk: int, question_pk: int) -> MockQuestion:
    """One practice question of one of the user's studies, or 404."""
    study = study_for_user(user, pk)
    return get_object_or_404(MockQuestion.objects.select_related("study", "item"), study=study, pk=question_pk)

"""Reads of studies, always scoped to what the user may see.

Who sees a study: its owner, its members (``StudyMember``: a viewer reads, an editor also changes)
and a superuser. Everyone else gets 404. ``study_for_user(..., write=True)`` refuses a viewer (403,
"read-only"); ``owner_only=True`` refuses every member: managing members and Prolific (the owner's
token and money) are the owner's alone. A pool's checkers see only its quality check
(``annotation.reviews.access``)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery, Sum
from django.http import Http404
from django.shortcuts import get_object_or_404

from .models import CountryPool, Item, ItemQuota, MockQuestion, ProtocolVersion, Role, Study, StudyMember, panel_label
from .protocol import Protocol, SpecError, parse_spec, text_problem


def owned_by(queryset: QuerySet, user: AbstractBaseUser, *, owner_path: str = "owner") -> QuerySet:
    """The rows of ``queryset`` of the user's own studies, ``owner_path`` leading from a row to its
    study's owner ("study__owner" for a pool, an item or an annotator). Every row for a superuser;
    none for a visitor who is not logged in. The operators' admin stays scoped by this (owners only);
    the researcher's pages use ``studies_for_user``, which adds the studies shared with the user."""
    if not user.is_authenticated:
        return queryset.none()
    if user.is_superuser:
        return queryset
    return queryset.filter(**{owner_path: user})


def owner_path_for(model: type) -> str | None:
    """The lookup from a row of ``model`` to its study's owner ("owner" for a study, "study__owner"
    for a pool, "pool__study__owner" for a checker), found by following foreign keys, the shortest
    way and a ``study`` key first; None for a model that does not hang off a study (an account)."""
    if model is Study:
        return "owner"
    paths: list[tuple[str, type]] = [("", model)]
    for _ in range(4):  # Review → annotation → study is the longest way today
        following = []
        for prefix, current in paths:
            links = [f for f in current._meta.get_fields() if f.many_to_one or (f.one_to_one and f.concrete)]
            for field in sorted(links, key=lambda f: f.name != "study"):
                path = f"{prefix}{field.name}"
                if field.related_model is Study:
                    return f"{path}__owner"
                if field.related_model is not current:
                    following.append((f"{path}__", field.related_model))
        paths = following
    return None


def owned_choices(queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
    """The choices an admin form may offer a researcher: rows of their own studies (every row for a
    superuser); of accounts, only their own; of anything else that hangs off no study, all."""
    path = owner_path_for(queryset.model)
    if path is not None:
        return owned_by(queryset, user, owner_path=path)
    if issubclass(queryset.model, AbstractBaseUser) and not user.is_superuser:
        return queryset.filter(pk=user.pk)
    return queryset


def studies_for_user(user: AbstractBaseUser, *, write: bool = False) -> QuerySet[Study]:
    """The studies a researcher may see: their own and those they are a member of (every study for a
    superuser); with ``write``, those they may change (a viewer's are left out)."""
    if not user.is_authenticated:
        return Study.objects.none()
    if user.is_superuser:
        return Study.objects.all()
    memberships = StudyMember.objects.filter(study=OuterRef("pk"), user=user)
    if write:
        memberships = memberships.filter(role=Role.EDITOR)
    return Study.objects.filter(Q(owner=user) | Exists(memberships))


def may_create_studies(user: AbstractBaseUser) -> bool:
    """A researcher's own account (staff, the Researchers group's: ``services.researcher_create``),
    which makes studies; an invited co-researcher without it only sees the studies shared."""
    return bool(user.is_authenticated and user.is_active and user.is_staff)


def is_researcher(user: AbstractBaseUser) -> bool:
    """A researcher: an account that makes studies (staff) or sees one (an invited co-researcher).
    A checker's account, which sees only a pool's quality check, is none."""
    return bool(user.is_authenticated and (user.is_staff or studies_for_user(user).exists()))


@dataclass(frozen=True)
class StudyAccess:
    """What one user may do with one study (``study.access`` on a study from ``study_for_user``):
    the templates read ``can_edit`` and ``is_owner`` to hide what the user cannot use."""

    role: str  # "owner" (a superuser too), "editor" or "viewer"

    @property
    def is_owner(self) -> bool:
        return self.role == OWNER

    @property
    def can_edit(self) -> bool:
        return self.role in (OWNER, Role.EDITOR)


OWNER = "owner"
READ_ONLY_MESSAGE = "Your role on this study is read-only."
OWNER_ONLY_MESSAGE = (
    "Only the study's owner may do this (it manages the study's members or uses their Prolific account)."
)


def study_for_user(user: AbstractBaseUser, pk: int, *, write: bool = False, owner_only: bool = False) -> Study:
    """One study the user may see, or 404 (never 403 to a stranger: another's study does not exist
    for them). A member sees it; ``write=True`` refuses a viewer with PermissionDenied ("read-only");
    ``owner_only=True`` refuses every member who is not the owner (a superuser counts as the owner).

    Owner-only are the members page's changes and everything of Prolific (recruitment): a Prolific call
    uses the acting user's token (``recruitment.tokens.token_for``) and launching, publishing, approving
    and bonuses spend the owner's money, so an editor may not act there in the owner's name."""
    if not user.is_authenticated:
        raise Http404
    member_role = StudyMember.objects.filter(study=OuterRef("pk"), user=user).values("role")[:1]
    study = get_object_or_404(studies_for_user(user).annotate(member_role=Subquery(member_role)), pk=pk)
    role = OWNER if (study.owner_id == user.pk or user.is_superuser) else study.member_role
    study.access = StudyAccess(role=role)
    if owner_only and role != OWNER:
        raise PermissionDenied(OWNER_ONLY_MESSAGE)
    if write and role == Role.VIEWER:
        raise PermissionDenied(READ_ONLY_MESSAGE)
    return study


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
CHECK_CHOICES = {"attention": "attention", "gold": "gold", "none": ""}  # the item list's "Quality check" filter


@dataclass(frozen=True)
class ItemFilters:
    """The item list's search and filters, as read from the query string ("" = any)."""

    q: str = ""
    country: str = ""
    model: str = ""
    category: str = ""
    example: str = ""
    check: str = ""

    @classmethod
    def from_query(cls, query) -> ItemFilters:
        values = {name: str(query.get(name, "")).strip()[:200] for name in ("q", "country", "model", "category")}
        # a text no column can hold (a NUL: PostgreSQL refuses it even in a query) is no filter
        values = {name: "" if text_problem(value) else value for name, value in values.items()}
        example, check = str(query.get("example", "")), str(query.get("check", ""))
        return cls(**values, example=example if example in EXAMPLE_CHOICES else "",
                   check=check if check in CHECK_CHOICES else "")

    @property
    def active(self) -> bool:
        return any((self.q, self.country, self.model, self.category, self.example, self.check))


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
    if filters.check:
        items = items.filter(check_kind=CHECK_CHOICES[filters.check])
    return items.only(
        "id", "study_id", "external_id", "country", "prompt", "model_name", "category", "is_example", "check_kind"
    )


def item_filter_choices(*, study: Study) -> dict[str, list[str]]:
    """The values the filters offer: the study's countries, models and categories (three DISTINCT
    queries on the study's items)."""
    items = study.items.order_by()

    def distinct(column: str) -> list[str]:
        return sorted(v for v in items.values_list(column, flat=True).distinct() if v)

    return {"countries": distinct("country"), "models": distinct("model_name"), "categories": distinct("category")}
def pool_for_user(
    user: AbstractBaseUser, pk: int, pool_pk: int, *, write: bool = False, owner_only: bool = False
) -> CountryPool:
    """One pool of one of the user's studies, or 404 (``write`` and ``owner_only`` as for
    ``study_for_user``); ``pool.study`` is the scoped study, with its ``access``."""
    study = study_for_user(user, pk, write=write, owner_only=owner_only)
    pool = get_object_or_404(CountryPool.objects.all(), study=study, pk=pool_pk)
    pool.study = study
    return pool


@dataclass(frozen=True)
class PoolPlan:
    """What a pool's settings mean for the study: items routed to it, the slots they make
    (items × annotations wanted) and the sessions needed to fill them; ``added``: the extra
    annotations the adaptive comparison mode placed so far (of ``pool.adaptive_budget``)."""

    pool: CountryPool
    items: int
    slots: int
    sessions: int
    done: int
    added: int = 0

    @property
    def panel(self) -> str:
        """The panel the pool recruits through (``pool.panel`` is selected with it)."""
        return panel_label(self.pool)


def pool_plans(study: Study) -> list[PoolPlan]:
    """Every pool of the study with its consequences (three queries)."""
    items = Item.objects.ordinary().filter(study=study)
    by_country = dict(items.values_list("country").annotate(n=Count("pk")).order_by())
    done, added = {}, {}
    sums = ItemQuota.objects.filter(pool__study=study).values_list("pool").annotate(n=Sum("done"), a=Sum("added"))
    for pool_id, n, a in sums.order_by():
        done[pool_id], added[pool_id] = n, a
    plans = []
    for pool in study.pools.select_related("panel").order_by("country_name"):
        routed = sum(n for country, n in by_country.items()
                     if study.routes(item_country=country, pool_country=pool.country))
        slots = routed * pool.annotations_per_item
        plans.append(PoolPlan(
            pool=pool, items=routed, slots=slots,
            sessions=math.ceil(slots / study.items_per_session), done=done.get(pool.pk) or 0,
            added=added.get(pool.pk) or 0,
        ))
    return plans


def mock_question_for_user(user: AbstractBaseUser, pk: int, question_pk: int, *, write: bool = False) -> MockQuestion:
    """One practice question of one of the user's studies, or 404 (403 to a viewer's change)."""
    study = study_for_user(user, pk, write=write)
    question = get_object_or_404(MockQuestion.objects.select_related("item"), study=study, pk=question_pk)
    question.study = study  # with its ``access`` for the templates
    return question

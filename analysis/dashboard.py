"""The study's home page: per pool progress, entry links and annotator outcomes, in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Sum
from django.utils import timezone

from annotation.links import entry_link
from annotation.models import Annotation, Annotator, Assignment
from studies.models import CountryPool, ItemQuota, Study


@dataclass
class PoolProgress:
    pool: CountryPool
    entry_link: str
    items: int = 0
    wanted: int = 0
    done: int = 0
    leased_now: int = 0
    annotators_active: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.done / self.wanted)) if self.wanted else 0

    @property
    def not_eligible(self) -> int:
        return self.outcomes.get(Annotator.Outcome.NOT_ELIGIBLE, 0)

    @property
    def failed_mock(self) -> int:
        return self.outcomes.get(Annotator.Outcome.FAILED_MOCK, 0)

    @property
    def no_consent(self) -> int:
        return self.outcomes.get(Annotator.Outcome.NO_CONSENT, 0)


def dashboard_pools(*, study: Study, now: datetime | None = None) -> list[PoolProgress]:
    """Per pool progress in a fixed number of grouped queries, whatever the number of pools or items."""
    now = now or timezone.now()
    rows = {p.pk: PoolProgress(pool=p, entry_link=entry_link(p)) for p in study.pools.order_by("country")}
    quotas = (
        ItemQuota.objects.filter(pool__study=study)
        .values("pool_id")
        .annotate(items=Count("id"), wanted=Sum("wanted"), done=Sum("done"))
        .order_by()
    )
    for q in quotas:
        row = rows[q["pool_id"]]
        row.items, row.wanted, row.done = q["items"], q["wanted"] or 0, q["done"] or 0
    leases = (
        Assignment.objects.filter(pool__study=study, status=Assignment.Status.LEASED, expires_at__gt=now)
        .values("pool_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    for lease in leases:
        rows[lease["pool_id"]].leased_now = lease["n"]
    active = (
        Annotation.objects.filter(study=study)
        .values("pool_id")
        .annotate(n=Count("annotator_id", distinct=True))
        .order_by()
    )
    for a in active:
        rows[a["pool_id"]].annotators_active = a["n"]
    outcomes = (
        Annotator.objects.filter(study=study)
        .exclude(outcome="")
        .values("pool_id", "outcome")
        .annotate(n=Count("id"))
        .order_by()
    )
    for o in outcomes:
        rows[o["pool_id"]].outcomes[o["outcome"]] = o["n"]
    return list(rows.values())

"""The study's home page: per pool progress, sessions, gates, pace and entry links, in a fixed number of queries.

Every figure is a grouped aggregate over the study's rows, so the number of queries does not grow
with the number of pools, items or annotations: the median time per item is taken from a count of
annotations per pool and whole second (a few hundred rows whatever the study's size), the progress
plot (done over time) from counts per pool and hour of the last 48 hours (a range scan of
``annotation_pool_submitted``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Least, TruncHour
from django.utils import timezone

from annotation.links import entry_link, panel_shared_link
from annotation.models import Annotation, Annotator, Assignment, Session
from studies.models import CountryPool, ItemQuota, PoolPanel, Study, panel_of

from .plots.charts import Point, progress_line

RATE_WINDOW = timedelta(hours=1)
MEDIAN_CAP_SECONDS = 3600  # times per item counted to the second, an hour or more as one bucket
# The progress plot's span: a range scan of (pool, submitted_at), whatever the study's age.
PLOT_WINDOW = timedelta(hours=48)


@dataclass
class PoolProgress:
    pool: CountryPool
    entry_link: str  # Prolific's (its placeholders), a URL panel's one shared link, or "" (signed links only)
    panel: PoolPanel | None = None  # a URL panel's settings; None: Prolific
    items: int = 0
    wanted: int = 0
    done: int = 0
    leased_now: int = 0
    active_now: int = 0
    annotators_active: int = 0
    sessions_started: int = 0
    sessions_completed: int = 0
    sessions_released: int = 0
    blocked: int = 0
    annotations: int = 0
    last_hour: int = 0
    median_seconds: int | None = None
    outcomes: dict[str, int] = field(default_factory=dict)
    hourly: list[tuple[datetime, int]] = field(default_factory=list)  # annotations per hour, the last 48 hours
    now: datetime | None = None

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.done / self.wanted)) if self.wanted else 0

    @property
    def remaining(self) -> int:
        return max(0, self.wanted - self.done)

    @property
    def finish_eta(self) -> datetime | None:
        """When the pool would be full at the rate of the last hour (None at a standstill or when full)."""
        if not self.remaining or not self.last_hour or self.now is None:
            return None
        return self.now + RATE_WINDOW * (self.remaining / self.last_hour)

    @property
    def plot(self) -> str:
        return progress_plot(self)

    @property
    def not_eligible(self) -> int:
        return self.outcomes.get(Annotator.Outcome.NOT_ELIGIBLE, 0)

    @property
    def failed_mock(self) -> int:
        return self.outcomes.get(Annotator.Outcome.FAILED_MOCK, 0)

    @property
    def no_consent(self) -> int:
        return self.outcomes.get(Annotator.Outcome.NO_CONSENT, 0)


def _progress(pool: CountryPool, now: datetime) -> PoolProgress:
    """A pool's row before its counts: the link its annotators arrive by (a URL panel's signed links
    are made per participant on its panel page, so it has no one link)."""
    panel = panel_of(pool)
    if panel is None:
        return PoolProgress(pool=pool, entry_link=entry_link(pool), now=now)
    signed = panel.verification == PoolPanel.Verification.SIGNED
    return PoolProgress(pool=pool, entry_link="" if signed else panel_shared_link(pool, panel), panel=panel, now=now)


def dashboard_pools(*, study: Study, now: datetime | None = None, hourly: bool = True) -> list[PoolProgress]:
    """Per pool progress in grouped queries: their number does not grow with the items or the annotations."""
    now = now or timezone.now()
    rows = {p.pk: _progress(p, now) for p in study.pools.select_related("panel").order_by("country")}
    if not rows:
        return []
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
        .annotate(n=Count("id"), people=Count("annotator_id", distinct=True))
        .order_by()
    )
    for lease in leases:
        rows[lease["pool_id"]].leased_now = lease["n"]
        rows[lease["pool_id"]].active_now = lease["people"]
    counted = Annotation.objects.filling_quota().filter(study=study)
    annotations = (
        counted.values("pool_id")
        .annotate(
            total=Count("id"),
            people=Count("annotator_id", distinct=True),
            last_hour=Count("id", filter=Q(submitted_at__gt=now - RATE_WINDOW)),
        )
        .order_by()
    )
    for a in annotations:
        row = rows[a["pool_id"]]
        row.annotations, row.annotators_active, row.last_hour = a["total"], a["people"], a["last_hour"]
    annotators = (
        Annotator.objects.filter(study=study)
        .values("pool_id", "outcome")
        .annotate(n=Count("id"), blocked=Count("id", filter=Q(blocked_at__isnull=False)))
        .order_by()
    )
    for o in annotators:
        if o["outcome"]:
            rows[o["pool_id"]].outcomes[o["outcome"]] = o["n"]
        rows[o["pool_id"]].blocked += o["blocked"]
    sessions = (
        Session.objects.filter(annotator__study=study)
        .values("annotator__pool_id")
        .annotate(
            started=Count("id"),
            completed=Count("id", filter=Q(completed_at__isnull=False)),
            released=Count("id", filter=Q(released_at__isnull=False, completed_at__isnull=True)),
        )
        .order_by()
    )
    for s in sessions:
        row = rows[s["annotator__pool_id"]]
        row.sessions_started, row.sessions_completed = s["started"], s["completed"]
        row.sessions_released = s["released"]
    seconds = (
        counted.annotate(second=Least(F("time_spent_ms") / 1000, Value(MEDIAN_CAP_SECONDS)))
        .values("pool_id", "second")
        .annotate(n=Count("id"))
        .order_by()
    )
    by_pool: dict[int, dict[int, int]] = {}
    for t in seconds:
        by_pool.setdefault(t["pool_id"], {})[t["second"]] = t["n"]
    for pool_id, counts in by_pool.items():
        rows[pool_id].median_seconds = median_of_counts(counts)
    if hourly:
        per_hour = (
            counted.filter(submitted_at__gt=now - PLOT_WINDOW)
            .annotate(hour=TruncHour("submitted_at"))
            .values("pool_id", "hour")
            .annotate(n=Count("id"))
            .order_by("hour")
        )
        for h in per_hour:
            rows[h["pool_id"]].hourly.append((h["hour"], h["n"]))
    return list(rows.values())


def median_of_counts(counts: dict[int, int]) -> int | None:
    """The median of values given as {value: how many} (the lower middle of an even count). Pure."""
    total = sum(counts.values())
    if not total:
        return None
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if 2 * seen >= total:
            return value
    return None  # unreachable: the counts add up to ``total``


def progress_points(row: PoolProgress) -> list[Point]:
    """The pool's annotations done at the end of each of the last 48 hours: the count done now less
    those submitted after that hour (no further query), each hour's own count in its hover. Pure."""
    now = row.now or timezone.now()
    current = now.replace(minute=0, second=0, microsecond=0)
    counts = dict(row.hourly)
    hours = int(PLOT_WINDOW / timedelta(hours=1))
    later, points = 0, []
    for back in range(hours):  # from the current hour backwards
        hour = current - timedelta(hours=back)
        total = max(0, row.done - later)
        n = counts.get(hour, 0)
        label = "now" if back == 0 else f"−{back}h"
        hover = f"{hour:%Y-%m-%d %H}:00 UTC: {total} of {row.wanted} done (+{n} in that hour)"
        points.append(Point(label, total, hover))
        later += n
    return points[::-1]


def progress_plot(row: PoolProgress) -> str:
    """The pool's progress over the last 48 hours toward the annotations wanted (``analysis.plots``);
    "" when nothing is done yet."""
    name = row.pool.country_name
    return progress_line(
        progress_points(row), target=row.wanted, title=f"Progress over time in {name}",
        lead=f"{row.done} of {row.wanted} annotations done in {name}; the count done at each of the last 48 hours.",
        heading=f"{name}: {row.done} / {row.wanted}", x_label="hours ago (UTC)",
    )

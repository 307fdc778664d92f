"""The annotators of one pool as the researcher follows them: sessions, items, time, practice
attempts, outcome, the quality check's flags, and the quality scores of the latest analysis run
(median time, too-fast share, leave-one-out agreement, competence, gold and attention checks),
sorted and filtered by any of them, one page at a time.

A pool's annotators are read whole (one query, correlated subqueries) and the run's scores with
them (one query reading only the result's ``quality`` part), then sorted, filtered and paged here:
scores live in the run's JSON, not in columns the database could sort by. A pool has hundreds to
a few thousand annotators, so this stays small.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django import forms
from django.core.paginator import Page, Paginator
from django.db.models import Count, IntegerField, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from annotation.models import Annotation, Annotator, Review, Session
from studies.models import CountryPool, Study

from .models import AnalysisRun
from .quality import score_rows

PER_PAGE = 50

# Sortable columns: key → (label, what it reads); ``None`` for a score of the run's table.
COLUMNS: dict[str, str] = {
    "joined": "Joined (UTC)",
    "sessions": "Sessions",
    "items": "Items done",
    "time": "Time spent",
    "practice": "Practice attempts",
    "flags": "Flags",
    "median_seconds": "Median time per item",
    "too_fast_share": "Too fast",
    "agreement": "Agreement (leave-one-out)",
    "competence": "Competence (MACE)",
    "gold_accuracy": "Gold accuracy",
    "attention_failed": "Attention checks passed / failed",
}
ATTRIBUTES = {"joined": "created_at", "sessions": "sessions_n", "items": "items_done", "time": "time_spent_ms",
              "practice": "mock_attempts", "flags": "flags"}
SHOW = (("", "Everyone"), ("excluded", "Only excluded"), ("included", "Only not excluded"))


class AnnotatorFilter(forms.Form):
    """The page's query: sort (a column key, "-" before it for descending), the scored field,
    who to show, and thresholds on the scores. Anything unknown falls back to the default."""

    sort = forms.CharField(required=False)
    field = forms.CharField(required=False)
    show = forms.ChoiceField(choices=SHOW, required=False, label="Show")
    agreement_below = forms.FloatField(required=False, label="Agreement below", min_value=-10, max_value=1)
    too_fast_above = forms.FloatField(
        required=False, label="Too fast above (%)", min_value=0, max_value=100,
    )
    competence_below = forms.FloatField(required=False, label="Competence below", min_value=0, max_value=1)

    def query(self) -> dict[str, Any]:
        data = self.cleaned_data if self.is_valid() else {}
        sort = data.get("sort") or "-joined"
        if sort.lstrip("-") not in COLUMNS:
            sort = "-joined"
        return {**{k: data.get(k) for k in ("field", "show", "agreement_below", "too_fast_above",
                                             "competence_below")}, "sort": sort}


@dataclass
class Scores:
    """The latest finished analysis run's quality scores of one pool and field."""

    run_id: int | None = None
    computed_at: datetime | None = None
    fields: list[dict[str, str]] = field(default_factory=list)  # key, label of every scored field
    field_key: str | None = None
    speed_on: bool = False
    by_annotator: dict[int, dict[str, Any]] = field(default_factory=dict)


def pool_of_study(*, study: Study, pk: int) -> CountryPool:
    """One pool of the (already scoped) study, or 404."""
    return get_object_or_404(CountryPool, study=study, pk=pk)


def annotator_of_study(*, study: Study, pk: int) -> Annotator:
    """One annotator of the (already scoped) study, or 404."""
    return get_object_or_404(Annotator.objects.select_related("pool"), study=study, pk=pk)


def pool_scores(*, study: Study, pool: CountryPool, field_key: str | None) -> Scores:
    """The quality scores of the study's latest finished run for ``pool`` and the field
    ``field_key`` (the first scored field when it names none): one query, reading only the
    result's ``quality`` part."""
    row = (
        AnalysisRun.objects.filter(study=study, status=AnalysisRun.Status.DONE)
        .order_by("-finished_at", "-id").values_list("pk", "finished_at", "result__quality").first()
    )
    if row is None:
        return Scores()
    run_id, finished, quality = row
    quality = quality if isinstance(quality, dict) else {}
    fields = [f for f in quality.get("fields", []) if isinstance(f, dict)]
    chosen = next((f for f in fields if f.get("key") == field_key), fields[0] if fields else None)
    rows: dict[int, dict[str, Any]] = {}
    if chosen is not None:
        mine = next((p for p in chosen.get("pools", []) if p.get("pool_id") == pool.pk), {})
        rows = {r["annotator_id"]: r for r in score_rows(mine) if "annotator_id" in r}
    speed = quality.get("speed") or {}
    return Scores(
        run_id=run_id, computed_at=finished,
        fields=[{"key": f["key"], "label": f.get("label") or f["key"]} for f in fields],
        field_key=chosen["key"] if chosen else None,
        speed_on=any(v is not None for v in speed.values()),
        by_annotator=rows,
    )


def _count(queryset, by: str, **aggregate):
    """A correlated subquery counting (or summing) rows per annotator: no join multiplies another."""
    (name, expression), = aggregate.items()
    rows = queryset.filter(**{by: OuterRef("pk")}).order_by().values(by).annotate(**{name: expression}).values(name)
    return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))


def _value(annotator: Annotator, key: str) -> Any:
    if key in ATTRIBUTES:
        return getattr(annotator, ATTRIBUTES[key])
    return annotator.scores.get(key)


def _kept(annotator: Annotator, query: dict[str, Any]) -> bool:
    """Whether the annotator passes the page's filters (a threshold leaves out who has no score)."""
    show = query.get("show")
    if show == "excluded" and annotator.excluded_at is None:
        return False
    if show == "included" and annotator.excluded_at is not None:
        return False
    s = annotator.scores
    checks = (("agreement_below", "agreement", lambda v, t: v < t),
              ("too_fast_above", "too_fast_share", lambda v, t: 100 * v > t),
              ("competence_below", "competence", lambda v, t: v < t))
    for name, column, test in checks:
        threshold = query.get(name)
        if threshold is not None and (s.get(column) is None or not test(s[column], threshold)):
            return False
    return True


def _sorted(annotators: list[Annotator], sort: str) -> list[Annotator]:
    """Sorted by the column ``sort`` ("-" first: descending), those without a value last, ties
    newest first."""
    key, descending = sort.lstrip("-"), sort.startswith("-")
    newest = sorted(annotators, key=lambda a: (a.created_at, a.pk), reverse=True)
    present = [a for a in newest if not _missing(_value(a, key))]
    missing = [a for a in newest if _missing(_value(a, key))]
    return sorted(present, key=lambda a: _value(a, key), reverse=descending) + missing


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def pool_annotators(*, pool: CountryPool, page: int | str | None, query: dict[str, Any], scores: Scores) -> Page:
    """One page of the pool's annotators with their figures and scores (``annotator.scores``, a
    dict, empty without a run), filtered and sorted by ``query`` (``AnnotatorFilter.query``).
    One query."""
    counted = Annotation.objects.filling_quota()
    annotators = list(
        Annotator.objects.filter(pool=pool)
        .annotate(
            sessions_n=_count(Session.objects.all(), "annotator", n=Count("id")),
            completed_n=_count(Session.objects.filter(completed_at__isnull=False), "annotator", n=Count("id")),
            items_done=_count(counted, "annotator", n=Count("id")),
            time_spent_ms=_count(counted, "annotator", n=Sum("time_spent_ms")),
            flags=_count(Review.objects.filter(outcome=Review.Outcome.FLAGGED), "annotation__annotator", n=Count("id")),
        )
    )
    for a in annotators:
        a.scores = scores.by_annotator.get(a.pk, {})
    kept = [a for a in annotators if _kept(a, query)]
    return Paginator(_sorted(kept, query["sort"]), PER_PAGE).get_page(page)

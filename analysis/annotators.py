"""The annotators of one pool as the researcher follows them: sessions, items, time, practice
attempts, outcome and the quality check's flags, one page at a time."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db.models import Count, IntegerField, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from annotation.models import Annotation, Annotator, Review, Session
from studies.models import CountryPool, Study

PER_PAGE = 50


def pool_of_study(*, study: Study, pk: int) -> CountryPool:
    """One pool of the (already scoped) study, or 404."""
    return get_object_or_404(CountryPool, study=study, pk=pk)


def annotator_of_study(*, study: Study, pk: int) -> Annotator:
    """One annotator of the (already scoped) study, or 404."""
    return get_object_or_404(Annotator.objects.select_related("pool"), study=study, pk=pk)


def _count(queryset, by: str, **aggregate):
    """A correlated subquery counting (or summing) rows per annotator: no join multiplies another."""
    (name, expression), = aggregate.items()
    rows = queryset.filter(**{by: OuterRef("pk")}).order_by().values(by).annotate(**{name: expression}).values(name)
    return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))


def pool_annotators(*, pool: CountryPool, page: int | str | None) -> Page:
    """One page of the pool's annotators, newest first, with their figures (two queries: the count
    and the page)."""
    counted = Annotation.objects.filter(surplus=False, withdrawn=False)
    annotators = (
        Annotator.objects.filter(pool=pool)
        .annotate(
            sessions_n=_count(Session.objects.all(), "annotator", n=Count("id")),
            items_done=_count(counted, "annotator", n=Count("id")),
            time_spent_ms=_count(counted, "annotator", n=Sum("time_spent_ms")),
            flags=_count(Review.objects.filter(outcome=Review.Outcome.FLAGGED), "annotation__annotator", n=Count("id")),
        )
        .order_by("-created_at", "-pk")
    )
    return Paginator(annotators, PER_PAGE).get_page(page)

"""Reads of the quality check: the next annotation to review, progress, and the review form."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, QuerySet

from studies.models import CountryPool, Study
from studies.protocol import Bound, ItemContext, Protocol, bind
from studies.selectors import protocol_specs

from ..context import assignment_context, shown_candidates, shown_documents
from ..models import DEFAULT_REVIEW_TARGET_PERCENT, Annotation, Review, ReviewTarget
from . import labels
from .access import ReviewScope, annotations_to_review

DRAWS = random.SystemRandom()  # not seeded: checkers cannot predict the draw


def review_next(scope: ReviewScope, *, draws: random.Random = DRAWS) -> Annotation | None:
    """An annotation of the pool not reviewed yet, drawn uniformly at random, never one the
    reviewer wrote nor a skipped item; None when none is left.

    The draw is an offset into the candidates' ids in id order (a count, an id, then its row), not
    ``ORDER BY RANDOM()``, which sorts every candidate (0.9 s for a pool of 100,000). A candidate
    reviewed between the two queries can shift the offset past the end: then it draws again.
    ``draws`` gives the offsets (``randrange``)."""
    candidates = annotations_to_review(scope).filter(review__isnull=True)
    for _ in range(3):
        n = candidates.count()
        if n == 0:
            return None
        pk = candidates.order_by("pk").values_list("pk", flat=True)[draws.randrange(n):][:1].first()
        if pk is not None:
            return Annotation.objects.select_related("study", "item", "annotator", "assignment").get(pk=pk)
    return candidates.select_related("study", "item", "annotator", "assignment").order_by("pk").first()


@dataclass(frozen=True)
class Progress:
    reviewed: int
    total: int  # the pool's annotations that can be reviewed (skipped items left out)
    target_percent: int

    @property
    def target(self) -> int:
        return math.ceil(self.total * self.target_percent / 100)

    @property
    def left(self) -> int:
        return self.total - self.reviewed

    @property
    def reached(self) -> bool:
        return self.total > 0 and self.reviewed >= self.target

    @property
    def percent(self) -> int:
        """Reviewed, as a share of the target (capped at 100), for a progress bar."""
        return 0 if self.target == 0 else min(100, round(100 * self.reviewed / self.target))


def _target_percent(pool: CountryPool) -> int:
    """The pool's review target (no query when loaded with ``select_related("review_target")``)."""
    try:
        return pool.review_target.percent
    except ReviewTarget.DoesNotExist:
        return DEFAULT_REVIEW_TARGET_PERCENT


def review_progress(pool: CountryPool) -> Progress:
    """How much of the pool is reviewed, against its target (two queries: counts and target)."""
    counts = Annotation.objects.filter(pool=pool, skipped=False).aggregate(
        total=Count("pk"), reviewed=Count("review")
    )
    return Progress(reviewed=counts["reviewed"], total=counts["total"], target_percent=_target_percent(pool))


@dataclass(frozen=True)
class PoolProgress:
    pool: CountryPool
    progress: Progress
    is_checker: bool


def pools_progress(pools: QuerySet[CountryPool], user) -> list[PoolProgress]:
    """Each pool with its review progress, in four queries whatever the number of pools: the
    pools, their annotations counted by pool (an index scan; no join with every review), their
    reviews counted by pool, and the user's checker roles."""
    pools = list(pools.select_related("study", "review_target").order_by("study__name", "study_id", "country_name"))
    ids = [p.pk for p in pools]
    totals = dict(
        Annotation.objects.filter(pool_id__in=ids, skipped=False).order_by().values("pool_id")
        .annotate(n=Count("id")).values_list("pool_id", "n")
    )
    reviewed = dict(
        Review.objects.filter(annotation__pool_id__in=ids, annotation__skipped=False).order_by()
        .values("annotation__pool_id").annotate(n=Count("id")).values_list("annotation__pool_id", "n")
    )
    checks = set(user.checker_roles.filter(pool__in=ids).values_list("pool_id", flat=True))
    return [
        PoolProgress(
            pool=p,
            progress=Progress(
                reviewed=reviewed.get(p.pk, 0), total=totals.get(p.pk, 0), target_percent=_target_percent(p)
            ),
            is_checker=p.pk in checks,
        )
        for p in pools
    ]


def protocol_of(annotation: Annotation, study: Study) -> Protocol:
    """The spec the annotation was given under (the current one when that version is not kept)."""
    version = annotation.protocol_version
    if version == study.protocol_version:
        return study.spec
    return protocol_specs(study=study, versions=[version]).get(version, study.spec)


# --- the review form ------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    token: str
    label: str
    description: str = ""


@dataclass
class Question:
    """One reviewed question: the engine's bound field (name, the checker's values, error) with the
    annotator's answer beside it."""

    bound: Bound
    options: list[Option]
    given: list[str]  # the annotator's answer, as form tokens

    @property
    def multiple(self) -> bool:
        return self.bound.field.kind.multiple

    @property
    def changed(self) -> bool:
        return sorted(self.bound.values) != sorted(self.given)

    @property
    def given_labels(self) -> str:
        by_token = {o.token: o.label for o in self.options}
        return ", ".join(by_token.get(t, t) for t in self.given) or "no answer"


@dataclass
class Block:
    """A top-level question, or a per_document field with its questions per document."""

    bound: Bound
    question: Question | None = None
    documents: list[tuple[Any, list[Question]]] = field(default_factory=list)


@dataclass
class ReviewForm:
    """Everything the review form of one annotation needs, for the page and for the service."""

    protocol: Protocol  # the annotation's own protocol
    reviewed: Protocol  # its reviewed fields the annotator answered
    context: ItemContext
    documents: list  # the item's documents (Document rows) when the protocol uses them
    candidates: list[dict]  # the item's candidates in the annotator's order
    given: dict[labels.Position, str]  # the annotator's labels

    @property
    def names(self) -> dict[labels.Position, str]:
        return labels.form_names(self.reviewed.fields, self.context.documents)

    def initial(self, answers: Mapping[str, Any]) -> dict[str, list[str]]:
        return labels.form_data(self.reviewed.fields, answers, self.context.documents)

    def blocks(self, data: Mapping[str, Sequence[str]], given: Mapping[str, Sequence[str]],
               errors: Mapping[str, str] | None = None) -> list[Block]:
        """The questions with the checker's values ``data``, the annotator's ``given`` and errors."""
        by_id = {d.pk: d for d in self.documents}
        out = []
        for bound in bind(self.reviewed, data, self.context, errors):
            if bound.documents:
                out.append(Block(bound, documents=[
                    (by_id.get(ref.id, ref), [self._question(b, given) for b in subs]) for ref, subs in bound.documents
                ]))
            else:
                out.append(Block(bound, question=self._question(bound, given)))
        return out

    def _question(self, bound: Bound, given: Mapping[str, Sequence[str]]) -> Question:
        f = bound.field
        options = [Option(c.token, c.label, c.description) for c in f.kind.options(f, self.context.candidates)]
        return Question(bound=bound, options=options, given=list(given.get(bound.name, [])))


def review_form_for(annotation: Annotation, study: Study) -> ReviewForm:
    """The review form of ``annotation`` (its assignment and item loaded): a query for the
    documents, the uploads and an older protocol version, each only when there is one to read."""
    protocol = protocol_of(annotation, study)
    assignment = annotation.assignment
    assignment.item = annotation.item  # share the loaded item
    context = assignment_context(assignment, protocol)
    documents, candidates = shown_documents(assignment, protocol), shown_candidates(assignment, protocol)
    reviewed = labels.review_protocol(protocol, annotation.answers)
    return ReviewForm(
        protocol=protocol, reviewed=reviewed, context=context, documents=documents, candidates=candidates,
        given=labels.flat_labels(reviewed.fields, annotation.answers),
    )

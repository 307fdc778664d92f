"""State changes of the quality check: a checker's review of one annotation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import F

from studies.models import ItemQuota
from studies.protocol import text_problem, walk

from ..models import Annotation, Review, ReviewTarget
from . import labels
from .selectors import review_form_for

NOTE_MAX_CHARS = 2000
# Form names of the outcome and the note: protocol keys start with a letter, so these never clash.
OUTCOME = "_outcome"
NOTE = "_note"


@dataclass
class ReviewResult:
    review: Review | None = None
    errors: dict[str, str] = field(default_factory=dict)  # keyed by form name, OUTCOME and NOTE too
    duplicate: bool = False  # the annotation was reviewed already: ``review`` is that review
    changed: list[labels.Position] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def review_submit(
    *, annotation: Annotation, reviewer, outcome: str, data: Mapping[str, Sequence[str]], note: str = ""
) -> ReviewResult:
    """Store a checker's review of ``annotation``, atomically and idempotently.

    ``data`` is the review form as posted: the reviewed questions, pre-set to the annotator's
    answers. "accepted" stores the annotator's labels as the checker's and is refused when the
    checker changed one; "flagged" needs a changed label or a note, stores the checker's labels and
    gives the item's quota in the pool one more annotation wanted, so another annotator of the pool
    re-annotates it (the flagged annotation is kept). One review per annotation: a second submit,
    by anyone, stores nothing and returns the first review with ``duplicate``.
    """
    existing = Review.objects.filter(annotation=annotation).select_related("reviewer").first()
    if existing is not None:
        return ReviewResult(review=existing, duplicate=True)
    form = review_form_for(annotation, annotation.study)
    parsed, _ = walk(form.reviewed, data, form.context)
    errors = dict(parsed.errors)
    checked = labels.flat_labels(form.reviewed.fields, parsed.answers)
    names = form.names
    for position in form.given:
        if position not in checked and names.get(position) not in errors:
            errors[names.get(position, position[0])] = "Give your answer to this question."
    changes = labels.changed(form.given, checked)
    note = note.strip()
    if len(note) > NOTE_MAX_CHARS:
        errors[NOTE] = f"Write at most {NOTE_MAX_CHARS} characters (you wrote {len(note)})."
    elif text_problem(note):
        errors[NOTE] = text_problem(note) or ""
    if outcome not in Review.Outcome.values:
        errors[OUTCOME] = "Choose “Accept” or “Flag for re-annotation”."
    elif outcome == Review.Outcome.ACCEPTED and changes:
        n = len(changes)
        errors[OUTCOME] = (
            f"You changed {n} answer{'s' if n != 1 else ''}, so this is not an acceptance: flag the annotation "
            "for re-annotation, or set the answers marked “changed” back to the annotator's."
        )
    elif outcome == Review.Outcome.FLAGGED and not changes and not note and NOTE not in errors:
        errors[NOTE] = "To flag, change the answers you disagree with, or write a note saying what is wrong."
    if errors:
        return ReviewResult(errors=errors, changed=changes)

    accepted = outcome == Review.Outcome.ACCEPTED
    try:
        with transaction.atomic():
            review = Review.objects.create(
                annotation=annotation,
                reviewer=reviewer,
                outcome=outcome,
                labels=labels.restrict(form.reviewed.fields, annotation.answers) if accepted else parsed.answers,
                note=note,
            )
            if not accepted:
                _reopen_slot(annotation)
    except IntegrityError:  # a concurrent submit stored its review first: that one is kept
        return ReviewResult(review=Review.objects.select_related("reviewer").get(annotation=annotation), duplicate=True)
    return ReviewResult(review=review, changed=changes)


def _reopen_slot(annotation: Annotation) -> None:
    """One more annotation wanted for the flagged annotation's (item, pool).

    A surplus annotation never took a slot (the quota was full without it): flagging it reopens
    none. Raising ``wanted`` keeps ``done + leased <= wanted`` true.
    """
    if annotation.surplus:
        return
    ItemQuota.objects.filter(item_id=annotation.item_id, pool_id=annotation.pool_id).update(
        wanted=F("wanted") + 1, reopened=F("reopened") + 1
    )


class ReviewTargetRefused(ValueError):
    """A review target out of range; the message says which range."""


def review_target_set(*, pool, percent: int) -> ReviewTarget:
    """The share of the pool's annotations its checkers aim to review, from 1 to 100 percent."""
    if not 1 <= percent <= 100:
        raise ReviewTargetRefused("A review target is a whole percentage from 1 to 100.")
    target, _ = ReviewTarget.objects.update_or_create(pool=pool, defaults={"percent": percent})
    return target

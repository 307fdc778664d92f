"""Withdrawal: annotations kept but left out of the quota, the analysis and the export. Two causes
withdraw them, and ``Annotation.withdrawn`` is true while either holds:

- the session's submission was returned and the study does not count returned participants
  (``Session.withdrawn_at``; ``session_annotations_withdraw``, called by recruitment);
- the researcher excluded the annotator (``Annotator.excluded_at``; ``services.exclusion``).

Each cause is a mark (set with the annotator's row locked); ``annotations_settle`` then brings each
annotation to what the marks say and moves the quota the same way for both: withdrawing an
annotation that held a slot gives the slot back; counting it again takes a slot if the quota has
room and marks it surplus otherwise, so a quota is never counted past what it wants.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from studies.models import ItemQuota

from ..models import Annotation, Assignment, Review, Session
from .locks import annotator_lock, assignment_lock
from .submit import quota_count_late

Row = tuple[int, int, int, int, int]  # annotation, assignment, item, pool, annotator


def annotations_settle(*, annotations: Iterable[Row]) -> int:
    """Bring each annotation of ``annotations`` (``Row``s) to what its causes say: withdrawn while
    its annotator is excluded or its session withdrawn, counted otherwise. Returns how many changed;
    a repeat changes nothing.

    Both marks are set with the annotator's row locked, and each annotation here is settled with
    that row locked too, so the causes read are the latest: an exclusion and an inclusion (or a
    session counted again) running at once end as the last mark says, whatever the interleaving.
    A surplus annotation holds no slot, and a flagged one's slot was reopened by its review:
    neither moves the quota. Withdrawing one that held a slot gives it back; counting one again
    takes a slot while the quota has room and keeps it as surplus otherwise. The lock order is the
    annotator's row, the assignment's, then the quota, one short transaction per annotation."""
    changed = 0
    for pk, assignment_id, item_id, pool_id, annotator_id in annotations:
        with transaction.atomic():
            excluded = annotator_lock(annotator_id)
            assignment_lock(Assignment(pk=assignment_id))
            current = (
                Annotation.objects.filter(pk=pk)
                .values_list("withdrawn", "surplus", "review__outcome", "assignment__session__withdrawn_at").first()
            )
            if current is None:
                continue
            withdrawn, surplus, outcome, session_withdrawn = current
            target = excluded is not None or session_withdrawn is not None
            if withdrawn == target or not Annotation.objects.filter(pk=pk, withdrawn=withdrawn).update(
                withdrawn=target
            ):
                continue
            changed += 1
            if surplus or outcome == Review.Outcome.FLAGGED:
                continue
            if target:
                ItemQuota.objects.filter(item_id=item_id, pool_id=pool_id, done__gt=0).update(done=F("done") - 1)
            elif not quota_count_late(item_id=item_id, pool_id=pool_id):
                Annotation.objects.filter(pk=pk).update(surplus=True)
    return changed


def annotation_rows(where: Q, *, withdrawn: bool) -> list[Row]:
    """The ``Row``s of the annotations matching ``where`` whose ``withdrawn`` is as given, in id
    order."""
    rows = Annotation.objects.filter(where, withdrawn=withdrawn).order_by("pk")
    return list(rows.values_list("pk", "assignment_id", "item_id", "pool_id", "annotator_id"))


def session_annotations_withdraw(*, session: Session, withdrawn: bool = True) -> int:
    """Stop counting the session's annotations (``withdrawn``: a participant who returned their
    submission, in a study that does not count them), or count them again. Returns how many
    annotations changed; a repeat changes nothing. The session is marked (``withdrawn_at``) so the
    annotator's exclusion and inclusion leave it as it is; counting again leaves the annotations of
    an excluded annotator withdrawn (they count again when the annotator is included). The
    annotator's row is locked while the mark is set, so an exclusion at the same moment waits."""
    with transaction.atomic():
        annotator_lock(session.annotator_id)
        Session.objects.filter(pk=session.pk).update(withdrawn_at=timezone.now() if withdrawn else None)
    session.withdrawn_at = timezone.now() if withdrawn else None
    return annotations_settle(annotations=annotation_rows(Q(assignment__session=session), withdrawn=not withdrawn))

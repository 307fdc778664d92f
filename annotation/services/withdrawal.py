"""Withdrawal: annotations kept but left out of the quota, the analysis and the export. Two causes
withdraw them, and ``Annotation.withdrawn`` is true while either holds:

- the session's submission was returned and the study does not count returned participants
  (``Session.withdrawn_at``; ``session_annotations_withdraw``, called by recruitment);
- the researcher excluded the annotator (``Annotator.excluded_at``; ``services.exclusion``).

Both move the quota the same way (``annotations_count``): withdrawing an annotation that held a
slot gives the slot back; counting it again takes a slot if the quota has room and marks it surplus
otherwise, so a quota is never counted past what it wants.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from studies.models import ItemQuota

from ..models import Annotation, Annotator, Assignment, Review, Session
from .leases import assignment_lock
from .submit import quota_count_late

Row = tuple[int, int, int, int, int]  # annotation, assignment, item, pool, annotator


def annotations_count(*, annotations: Iterable[Row], withdrawn: bool) -> int:
    """Withdraw (``withdrawn``) or count again each annotation of ``annotations`` (``Row``s);
    returns how many changed, a repeat changing nothing.

    An annotation counts again only while neither cause holds: its annotator not excluded, its
    session not withdrawn, read with the annotator's row locked (both marks are set under that
    lock, so a mark set meanwhile is seen). A surplus annotation holds no slot, and a flagged one's
    slot was reopened by its review: neither moves the quota. The lock order is the annotator's
    row (counting again), the assignment's, then the quota, one short transaction per annotation."""
    changed = 0
    for pk, assignment_id, item_id, pool_id, annotator_id in annotations:
        with transaction.atomic():
            row = Annotation.objects.filter(pk=pk, withdrawn=not withdrawn)
            if not withdrawn:
                free = Annotator.objects.select_for_update().filter(pk=annotator_id, excluded_at__isnull=True)
                if free.values_list("pk", flat=True).first() is None:
                    continue
                row = row.filter(assignment__session__withdrawn_at__isnull=True)
            assignment_lock(Assignment(pk=assignment_id))
            current = row.values_list("surplus", "review__outcome").first()
            if current is None or not Annotation.objects.filter(pk=pk, withdrawn=not withdrawn).update(
                withdrawn=withdrawn
            ):
                continue  # changed meanwhile, or a cause still holds
            changed += 1
            surplus, outcome = current
            if surplus or outcome == Review.Outcome.FLAGGED:
                continue
            if withdrawn:
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
        excluded = (
            Annotator.objects.select_for_update().filter(pk=session.annotator_id)
            .values_list("excluded_at", flat=True).first()
        )
        Session.objects.filter(pk=session.pk).update(withdrawn_at=timezone.now() if withdrawn else None)
    session.withdrawn_at = timezone.now() if withdrawn else None
    if not withdrawn and excluded is not None:
        return 0
    return annotations_count(
        annotations=annotation_rows(Q(assignment__session=session), withdrawn=not withdrawn), withdrawn=withdrawn
    )

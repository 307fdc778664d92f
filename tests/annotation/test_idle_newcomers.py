"""Invented participant ids cannot hold a pool's last slots: the lease of an annotator who has
submitted nothing and not passed the practice test yields, after a grace time, to someone who needs
the slot, whether or not they saved a draft."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Annotation, Annotator, Assignment
from annotation.selectors import NEWCOMER_GRACE
from annotation.services import (
    EntryRefused,
    annotation_submit,
    annotator_enter,
    assignment_next,
    assignment_save_draft,
)
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import valid_answers

pytestmark = pytest.mark.django_db

LATER = NEWCOMER_GRACE + timedelta(seconds=1)


@pytest.fixture
def full(study, pool):
    """One item (three slots), every slot leased by a newcomer who never answers (cleared to
    annotate with no practice test to pass, as in RAVENEA's captions)."""
    (item,) = f.make_items(study, "IN", 1)
    holders = [f.make_session(f.make_annotator(pool)) for _ in range(3)]
    Annotator.objects.filter(sessions__in=holders).update(mock_passed_at=None)
    leases = [assignment_next(session=s) for s in holders]
    assert all(leases) and ItemQuota.objects.get(item=item).leased == 3
    return item, leases


def arrive(pool, pid="REALPERSON000000000001"):
    return annotator_enter(pool=pool, params={"PROLIFIC_PID": pid, "STUDY_ID": "STUDY1", "SESSION_ID": pid})


def test_idle_newcomers_hold_the_slots_only_for_the_grace_time(pool, full):
    item, leases = full
    with pytest.raises(EntryRefused, match="full"):  # within the grace time the slots are theirs
        arrive(pool)
    Assignment.objects.update(leased_at=timezone.now() - LATER)
    session = arrive(pool)  # the real participant gets in
    session.annotator.consented_at = session.annotator.eligible_at = timezone.now()
    session.annotator.instructions_read_at = session.annotator.mock_passed_at = timezone.now()
    session.annotator.save()
    lease = assignment_next(session=session)
    assert lease is not None and lease.item == item
    assert Assignment.objects.filter(status=Assignment.Status.EXPIRED).count() == 1  # one idle lease yielded
    assert ItemQuota.objects.get(item=item).leased == 3  # still never over the quota


def test_newcomers_who_each_saved_a_draft_do_not_keep_the_pool_full(pool, full):
    item, leases = full
    for lease in leases:  # each made-up participant answers one question, then nothing more
        assignment_save_draft(assignment=lease, data={"alignment": ["1"]})
    with pytest.raises(EntryRefused, match="full"):  # within the grace time the slots are theirs
        arrive(pool)
    Assignment.objects.update(leased_at=timezone.now() - LATER)
    session = arrive(pool)  # a draft is not progress: the real participant gets in
    session.annotator.consented_at = session.annotator.eligible_at = timezone.now()
    session.annotator.instructions_read_at = session.annotator.mock_passed_at = timezone.now()
    session.annotator.save()
    lease = assignment_next(session=session)
    assert lease is not None and lease.item == item
    assert ItemQuota.objects.get(item=item).leased == 3


def test_a_newcomer_who_passed_the_practice_test_keeps_the_slot(pool, full):
    item, leases = full
    Annotator.objects.filter(pk__in=[lease.annotator_id for lease in leases]).update(mock_passed_at=timezone.now())
    Assignment.objects.update(leased_at=timezone.now() - LATER)
    assert assignment_next(session=f.make_session(f.make_annotator(pool))) is None
    with pytest.raises(EntryRefused, match="full"):
        arrive(pool)
    assert not Assignment.objects.filter(status=Assignment.Status.EXPIRED).exists()


def test_a_yielded_draft_is_submitted_late_and_kept(pool, full):
    item, leases = full
    assignment_save_draft(assignment=leases[0], data={"alignment": ["1"]})
    Assignment.objects.update(leased_at=timezone.now() - LATER)
    for _ in range(3):  # three real participants take the three slots
        taken = assignment_next(session=f.make_session(f.make_annotator(pool)))
        annotation_submit(assignment=taken, data=valid_answers())
    yielded = Assignment.objects.get(pk=leases[0].pk)
    assert yielded.status == Assignment.Status.EXPIRED and yielded.draft
    result = annotation_submit(assignment=yielded, data=valid_answers())  # the holder finishes after all
    assert result.annotation is not None  # kept, as surplus: the quota was full
    assert Annotation.objects.filter(item=item).count() == 4 and ItemQuota.objects.get(item=item).done == 3


def test_an_annotator_who_submitted_before_keeps_the_slot_however_long_they_think(study, pool):
    first, second = f.make_items(study, "IN", 2)
    ItemQuota.objects.filter(item=first).update(wanted=1)
    ItemQuota.objects.filter(item=second).update(wanted=1)
    worker = f.make_session(f.make_annotator(pool))
    annotation_submit(assignment=assignment_next(session=worker), data=valid_answers())
    held = assignment_next(session=worker)  # the second item, held without typing
    Assignment.objects.filter(pk=held.pk).update(leased_at=timezone.now() - LATER)
    assert assignment_next(session=f.make_session(f.make_annotator(pool))) is None
    assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.LEASED


def test_the_holder_of_a_yielded_lease_loses_no_work(pool, full):
    item, leases = full
    Assignment.objects.update(leased_at=timezone.now() - LATER)
    newcomer = f.make_session(f.make_annotator(pool))
    taken = assignment_next(session=newcomer)
    annotation_submit(assignment=taken, data=valid_answers())
    yielded = Assignment.objects.get(status=Assignment.Status.EXPIRED)
    result = annotation_submit(assignment=yielded, data=valid_answers())  # the holder submits after all
    assert result.annotation is not None and not result.duplicate
    assert Annotation.objects.filter(item=item).count() == 2

"""Releasing a session (a participant who returned, timed out or was rejected on Prolific): its
open lease expires at once and its slot goes back; what it submitted is kept. Withdrawing its
annotations (a returned participant, in a study that does not count them) reopens their slots."""

import pytest

from annotation.models import Annotation, Assignment
from annotation.reviews.services import review_submit
from annotation.services import annotation_submit, assignment_next, session_annotations_withdraw, session_release
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import AS_GIVEN
from tests.helpers import run_in_threads


def quota_of(assignment):
    return ItemQuota.objects.get(item_id=assignment.item_id, pool_id=assignment.pool_id)


def test_it_expires_the_open_lease_and_gives_the_slot_back(session, items):
    submitted = assignment_next(session=session)
    annotation_submit(assignment=submitted, data=f.valid_answers())
    lease = assignment_next(session=session)
    assert quota_of(lease).leased == 1
    assert session_release(session=session) == 1
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED
    assert quota_of(lease).leased == 0
    assert Assignment.objects.get(pk=submitted.pk).status == Assignment.Status.SUBMITTED
    assert Annotation.objects.filter(assignment=submitted, withdrawn=False).exists()  # kept, counted
    assert quota_of(submitted).done == 1


def test_releasing_again_or_with_no_lease_does_nothing(session, items):
    lease = assignment_next(session=session)
    assert session_release(session=session) == 1
    assert session_release(session=session) == 0
    assert quota_of(lease).leased == 0
    idle = f.make_session(f.make_annotator(session.annotator.pool))
    assert session_release(session=idle) == 0


def test_a_late_submit_after_the_release_is_still_kept(session, items):
    lease = assignment_next(session=session)
    session_release(session=session)
    lease.refresh_from_db()
    result = annotation_submit(assignment=lease, data=f.valid_answers())
    assert result.annotation is not None and not result.annotation.surplus
    assert (quota_of(lease).done, quota_of(lease).leased) == (1, 0)


def test_withdrawing_reopens_the_slots_and_counting_again_takes_them(session, items):
    a = annotation_submit(assignment=assignment_next(session=session), data=f.valid_answers()).annotation
    assert session_annotations_withdraw(session=session) == 1
    assert Annotation.objects.get(pk=a.pk).withdrawn and quota_of(a.assignment).done == 0
    assert session_annotations_withdraw(session=session) == 0  # a repeat changes nothing
    assert quota_of(a.assignment).done == 0
    assert session_annotations_withdraw(session=session, withdrawn=False) == 1
    assert quota_of(a.assignment).done == 1 and not Annotation.objects.get(pk=a.pk).surplus


def test_a_surplus_or_flagged_annotation_moves_no_quota(session, items, checker):
    a = annotation_submit(assignment=assignment_next(session=session), data=f.valid_answers()).annotation
    b = annotation_submit(assignment=assignment_next(session=session), data=f.valid_answers()).annotation
    Annotation.objects.filter(pk=a.pk).update(surplus=True)
    ItemQuota.objects.filter(item=a.item, pool=a.pool).update(done=0)
    review_submit(annotation=b, reviewer=checker, outcome="flagged", data=AS_GIVEN, note="Wrong country.")
    before_b = quota_of(b.assignment)
    assert session_annotations_withdraw(session=session) == 2
    assert quota_of(a.assignment).done == 0
    after_b = quota_of(b.assignment)
    assert (after_b.done, after_b.wanted) == (before_b.done, before_b.wanted)


def test_a_withdrawn_annotation_is_not_offered_for_review(session, items, checker, client):
    from annotation.reviews.access import ReviewScope, annotations_to_review

    a = annotation_submit(assignment=assignment_next(session=session), data=f.valid_answers()).annotation
    scope = ReviewScope(study=a.study, pool=a.pool, user=checker, own_pid="")
    assert list(annotations_to_review(scope)) == [a]
    session_annotations_withdraw(session=session)
    assert not annotations_to_review(scope).exists()


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_release_racing_a_submit_settles_the_quota_once(study, pool):
    f.make_items(study, "IN", 1)
    for _ in range(5):
        session = f.make_session(f.make_annotator(pool))
        lease = assignment_next(session=session)
        run_in_threads(
            lambda job, *args: job(*args),
            [(lambda s: session_release(session=s), session),
             (lambda a: annotation_submit(assignment=a, data=f.valid_answers()), lease)],
        )
        q = quota_of(lease)
        status = Assignment.objects.get(pk=lease.pk).status
        assert q.leased == 0 and status == Assignment.Status.SUBMITTED and q.done >= 1
        Annotation.objects.filter(assignment=lease).delete()
        ItemQuota.objects.filter(pk=q.pk).update(done=0)
        Assignment.objects.filter(pk=lease.pk).delete()


def test_a_released_session_is_leased_no_new_item(session, items):
    lease = assignment_next(session=session)
    session_release(session=session)
    session.refresh_from_db()
    assert session.released_at is not None
    assert assignment_next(session=session) is None
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED  # not renewed
    assert quota_of(lease).leased == 0


def test_the_item_page_of_a_released_session_says_it_ended(client, session, items):
    from django.urls import reverse

    from tests.helpers import as_annotator

    as_annotator(client, session)
    assert client.get(reverse("annotation:items")).status_code == 200
    session_release(session=session)
    response = client.get(reverse("annotation:items"))
    assert response.status_code == 410 and "This session has ended" in response.content.decode()

"""The hot path's writes in one statement each on PostgreSQL (``annotation.services.round_trips``),
against the ORM path other databases take: the same rows, the same quotas, the same refusals.
Each test runs both paths where the database has both (on SQLite, the ORM path only)."""

from datetime import timedelta
from unittest.mock import patch

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone

from annotation.models import Annotation, Assignment
from annotation.selectors import lease_candidates
from annotation.services import annotation_submit, assignment_next
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import valid_answers

pytestmark = pytest.mark.django_db

ROW = ("assignment_id", "study_id", "item_id", "pool_id", "annotator_id", "answers", "skipped", "protocol_version",
       "surplus", "withdrawn", "time_spent_ms", "started_at", "submitted_at")


@pytest.fixture(params=["one statement", "orm"])
def path(request):
    if request.param == "one statement" and connection.vendor != "postgresql":
        pytest.skip("one statement per write is PostgreSQL's path: set DATABASE_URL=postgres://… (CI does)")
    with patch("annotation.services.round_trips.one_round_trip", return_value=request.param == "one statement"), \
            patch("annotation.services.submit.one_round_trip", return_value=request.param == "one statement"), \
            patch("annotation.services.leases.one_round_trip", return_value=request.param == "one statement"):
        yield request.param


@pytest.fixture
def leased(study, pool, path):
    f.make_items(study, "IN", 3)
    annotator = f.make_annotator(pool)
    session = f.make_session(annotator)
    return session, assignment_next(session=session)


def quota_of(assignment) -> tuple[int, int]:
    quota = ItemQuota.objects.get(item_id=assignment.item_id, pool_id=assignment.pool_id)
    return quota.done, quota.leased


def test_a_submit_stores_the_annotation_settles_the_quota_and_returns_what_it_stored(leased):
    _, lease = leased
    assert quota_of(lease) == (0, 1)
    now = lease.leased_at + timedelta(seconds=42)
    result = annotation_submit(assignment=lease, data=valid_answers(), now=now)
    assert result.validation.ok and not result.duplicate
    stored = Annotation.objects.get(assignment=lease)
    assert {k: getattr(result.annotation, k) for k in ROW} == {k: getattr(stored, k) for k in ROW}
    assert (stored.surplus, stored.time_spent_ms) == (False, 42_000)
    assert timezone.now() - timedelta(minutes=1) < stored.submitted_at <= timezone.now()  # the clock's, not `now`
    assert stored.answers == result.validation.answers and stored.protocol_version == lease.item.study.protocol_version
    assert quota_of(lease) == (1, 0)
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.SUBMITTED


def test_a_repeated_submit_stores_nothing_more(leased):
    _, lease = leased
    first = annotation_submit(assignment=lease, data=valid_answers())
    again = annotation_submit(assignment=Assignment.objects.select_related("item").get(pk=lease.pk),
                              data=valid_answers(overall="5"))
    assert again.duplicate and again.annotation.pk == first.annotation.pk
    assert Annotation.objects.filter(assignment=lease).count() == 1 and quota_of(lease) == (1, 0)


def test_a_submit_that_lost_the_race_returns_the_winners_annotation(leased):
    _, lease = leased
    stale = Assignment.objects.select_related("item").get(pk=lease.pk)  # read before the other submit landed
    first = annotation_submit(assignment=lease, data=valid_answers())
    second = annotation_submit(assignment=stale, data=valid_answers(overall="5"))
    assert second.duplicate and second.annotation.pk == first.annotation.pk
    assert Annotation.objects.get(assignment=lease).answers == first.annotation.answers
    assert quota_of(lease) == (1, 0)


def test_a_late_submit_takes_a_free_slot(leased):
    _, lease = leased
    Assignment.objects.filter(pk=lease.pk).update(status=Assignment.Status.EXPIRED)
    ItemQuota.objects.filter(item_id=lease.item_id, pool_id=lease.pool_id).update(leased=0)
    result = annotation_submit(assignment=lease, data=valid_answers())
    assert result.annotation.surplus is False and Annotation.objects.get(assignment=lease).surplus is False
    assert quota_of(lease) == (1, 0)


def test_a_late_submit_to_a_full_item_is_kept_as_surplus_and_counts_nothing(leased):
    _, lease = leased
    Assignment.objects.filter(pk=lease.pk).update(status=Assignment.Status.EXPIRED)
    ItemQuota.objects.filter(item_id=lease.item_id, pool_id=lease.pool_id).update(leased=0, done=F("wanted"))
    wanted = ItemQuota.objects.get(item_id=lease.item_id, pool_id=lease.pool_id).wanted
    result = annotation_submit(assignment=lease, data=valid_answers())
    assert result.annotation.surplus is True and Annotation.objects.get(assignment=lease).surplus is True
    assert quota_of(lease) == (wanted, 0)


def test_a_refused_submit_stores_nothing(leased):
    _, lease = leased
    result = annotation_submit(assignment=lease, data=valid_answers(overall="11"))
    assert not result.validation.ok and result.annotation is None
    assert not Annotation.objects.exists() and quota_of(lease) == (0, 1)


def test_a_lease_is_stored_whole_and_a_full_quota_gives_none(study, pool, path):
    items = f.make_items(study, "IN", 2)
    ItemQuota.objects.filter(item=items[0], pool=pool).update(done=F("wanted"))  # full: never leased
    session = f.make_session(f.make_annotator(pool))
    lease = assignment_next(session=session)
    stored = Assignment.objects.get(pk=lease.pk)
    assert lease.item_id == items[1].pk
    fields = ("session_id", "annotator_id", "item_id", "pool_id", "position", "status", "leased_at", "expires_at",
              "draft", "session_total")
    assert {k: getattr(lease, k) for k in fields} == {k: getattr(stored, k) for k in fields}
    assert quota_of(lease) == (0, 1)
    assert ItemQuota.objects.get(item=items[0], pool=pool).leased == 0
    other = f.make_session(f.make_annotator(pool))
    ItemQuota.objects.filter(item=items[1], pool=pool).update(done=F("wanted"), leased=0)
    assert assignment_next(session=other) is None  # nothing open: no lease, no slot taken
    assert not Assignment.objects.filter(session=other).exists()


def test_a_lease_whose_item_another_session_took_meanwhile_is_tried_again_whole(study, pool, path):
    """Another session of the annotator took the first candidate's item between the candidates' read
    and the insert: the unique constraint refuses the insert, the whole transaction is rolled back
    (the slot it took given back with it), and the second try leases another item."""
    items = f.make_items(study, "IN", 2)
    annotator = f.make_annotator(pool)
    taken = assignment_next(session=f.make_session(annotator))  # the other session's lease
    free = next(i for i in items if i.pk != taken.item_id)
    calls = []

    def candidates(*, annotator):
        calls.append(1)
        found = lease_candidates(annotator=annotator)
        if len(calls) == 1:  # as read before the other session's lease: its item still looks open
            return [ItemQuota.objects.select_related("item").get(item_id=taken.item_id, pool=pool)]
        return found

    session = f.make_session(annotator)
    with patch("annotation.services.leases.lease_candidates", side_effect=candidates):
        lease = assignment_next(session=session, now=timezone.now())
    assert len(calls) == 2 and lease.item_id == free.pk
    assert quota_of(taken) == (0, 1)  # the first try's slot was given back with its transaction
    assert quota_of(lease) == (0, 1)
    assert Assignment.objects.filter(annotator=annotator, item_id=taken.item_id).count() == 1


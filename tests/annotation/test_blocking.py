"""Blocking an annotator: their open lease is released at once and its slot given back; the item
page, the submit and the entry link refuse them with a clear page; unblocking lets them back."""

from django.urls import reverse

from annotation.models import Annotation, Assignment
from annotation.services import annotation_submit, annotator_block, annotator_unblock, assignment_next
from studies.models import ItemQuota
from tests import factories as f
from tests.helpers import HX, as_annotator, item_submit

BLOCKED_TITLE = "You can no longer take part in this study"


def quota_of(assignment):
    return ItemQuota.objects.get(item_id=assignment.item_id, pool_id=assignment.pool_id)


def test_it_releases_the_open_lease_and_gives_the_slot_back(session, items):
    submitted = assignment_next(session=session)
    annotation_submit(assignment=submitted, data=f.valid_answers())
    lease = assignment_next(session=session)
    assert quota_of(lease).leased == 1
    assert annotator_block(annotator=session.annotator) == 1
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED
    assert quota_of(lease).leased == 0
    assert session.annotator.blocked_at is not None
    assert Annotation.objects.filter(assignment=submitted).exists()  # what they submitted is kept
    assert quota_of(submitted).done == 1


def test_blocking_again_changes_nothing(session, items):
    assignment_next(session=session)
    assert annotator_block(annotator=session.annotator) == 1
    first = session.annotator.blocked_at
    assert annotator_block(annotator=session.annotator) == 0
    session.annotator.refresh_from_db()
    assert session.annotator.blocked_at == first


def test_the_item_page_shows_the_blocked_page(client, session, items):
    as_annotator(client, session)
    assert client.get(reverse("annotation:items")).status_code == 200
    annotator_block(annotator=session.annotator)
    response = client.get(reverse("annotation:items"))
    assert response.status_code == 403
    assert BLOCKED_TITLE in response.content.decode()


def test_a_submit_is_refused_and_the_page_reloads_to_say_why(client, session, items):
    as_annotator(client, session)
    client.get(reverse("annotation:items"))
    lease = Assignment.objects.get(session=session, status=Assignment.Status.LEASED)
    annotator_block(annotator=session.annotator)
    response = item_submit(client, lease, f.valid_answers())
    assert response.status_code == 403
    assert response["HX-Refresh"] == "true"
    assert BLOCKED_TITLE in response.content.decode()
    assert not Annotation.objects.filter(assignment=lease).exists()


def test_the_entry_link_refuses_a_blocked_annotator(client, pool, items):
    assert client.get(f.entry_url(pool, pid="5f1a2b3c4d5e6f7a8b9c0d1e")).status_code == 302
    annotator = pool.annotators.get(prolific_pid="5f1a2b3c4d5e6f7a8b9c0d1e")
    annotator_block(annotator=annotator)
    response = client.get(f.entry_url(pool, pid="5f1a2b3c4d5e6f7a8b9c0d1e", session_id="SESSION2"))
    assert response.status_code == 403
    assert BLOCKED_TITLE in response.content.decode()
    assert annotator.sessions.count() == 1  # no new session for them


def test_unblocking_lets_them_back_where_they_stopped(client, session, items):
    as_annotator(client, session)
    client.get(reverse("annotation:items"))
    annotator_block(annotator=session.annotator)
    annotator_unblock(annotator=session.annotator)
    response = client.get(reverse("annotation:items"), **HX)
    assert response.status_code == 200
    lease = Assignment.objects.get(session=session, status=Assignment.Status.LEASED)
    assert quota_of(lease).leased == 1
    assert item_submit(client, lease, f.valid_answers()).status_code == 200
    assert Annotation.objects.filter(assignment=lease).exists()
    entry = client.get(f.entry_url(session.annotator.pool, pid=session.annotator.prolific_pid,
                                    session_id=session.prolific_session_id))
    assert entry.status_code == 302

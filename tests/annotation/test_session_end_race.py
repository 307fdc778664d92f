"""Ending a session and leasing its next item are decided under the session's row lock: a double
click's two requests never answer one with the end page and the other with an item."""

import pytest
from django.utils import timezone

from annotation.models import Assignment, Session
from annotation.services import annotation_submit, assignment_next, session_complete
from tests import factories as f
from tests.factories import valid_answers

pytestmark = pytest.mark.django_db


def test_a_session_with_a_lease_taken_meanwhile_is_not_ended_and_shows_that_lease(study, pool, session):
    f.make_items(study, "IN", 2)
    first = assignment_next(session=session)
    annotation_submit(assignment=first, data=valid_answers())
    this_click = Session.objects.get(pk=session.pk)  # found no item (say), about to end the session
    other_click = assignment_next(session=Session.objects.get(pk=session.pk))  # leased one meanwhile
    shown = session_complete(session=this_click)
    assert shown is not None and shown.pk == other_click.pk
    assert Session.objects.get(pk=session.pk).completed_at is None


def test_a_lease_after_the_session_ended_is_refused(study, pool, session):
    f.make_items(study, "IN", 2)
    first = assignment_next(session=session)
    annotation_submit(assignment=first, data=valid_answers())
    stale = Session.objects.get(pk=session.pk)  # read before the other click ended the session
    assert session_complete(session=Session.objects.get(pk=session.pk)) is None
    assert Session.objects.get(pk=session.pk).completed_at is not None
    assert assignment_next(session=stale, now=timezone.now()) is None
    assert not Assignment.objects.filter(session=session, status=Assignment.Status.LEASED).exists()

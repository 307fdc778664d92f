"""The annotators of a pool, for the study's owner: their figures, one page at a time, and
blocking and unblocking them. Another researcher and a checker find nothing (404)."""

import pytest
from django.urls import reverse

from analysis.annotators import PER_PAGE
from annotation.models import Annotator, Assignment
from annotation.services import assignment_next
from studies.models import ItemQuota
from tests import factories as f
from tests.annotations import annotate
from tests.helpers import review


def url(study, pool, page=None):
    path = reverse("analysis:pool-annotators", args=[study.pk, pool.pk])
    return f"{path}?page={page}" if page else path


def block_url(annotator, action="block"):
    return reverse(f"analysis:annotator-{action}", args=[annotator.study_id, annotator.pk])


@pytest.fixture
def cast(pool, other_pool, items, checker):
    """A worker with two sessions, three items (one flagged, one accepted, one surplus not counted),
    a newcomer who failed the practice test twice, an annotator of Japan."""
    worker = f.make_annotator(pool)
    first = annotate(worker, items[0], time_spent_ms=60_000)
    second = annotate(worker, items[1], time_spent_ms=90_000)
    annotate(worker, items[2], time_spent_ms=30_000, surplus=True)
    f.make_session(worker)
    review(first, checker, "flagged", note="answers contradict the image")
    review(second, checker, "accepted")
    newcomer = f.make_annotator(pool, onboarded=False)
    Annotator.objects.filter(pk=newcomer.pk).update(mock_attempts=2, outcome=Annotator.Outcome.FAILED_MOCK)
    annotate(f.make_annotator(other_pool), items[3])
    return worker, newcomer


def test_it_lists_the_pools_annotators_with_their_figures(client, owner, study, pool, cast):
    worker, newcomer = cast
    client.force_login(owner)
    response = client.get(url(study, pool))
    assert response.status_code == 200
    rows = {a.pk: a for a in response.context["page"].object_list}
    assert set(rows) == {worker.pk, newcomer.pk}  # Japan's annotator is not listed
    w = rows[worker.pk]
    assert (w.sessions_n, w.items_done, w.time_spent_ms, w.flags) == (2, 2, 150_000, 1)
    n = rows[newcomer.pk]
    assert (n.sessions_n, n.items_done, n.time_spent_ms, n.flags, n.mock_attempts) == (0, 0, 0, 0, 2)
    html = response.content.decode()
    assert worker.pseudonym in html and "Failed the practice test" in html
    assert "In progress" in html and "Completed" not in html  # the worker's sessions are open
    assert worker.prolific_pid not in html  # the page shows pseudonyms, never Prolific ids


def test_an_annotator_whose_session_completed_is_not_in_progress(client, owner, study, pool, items):
    done = f.make_annotator(pool)
    session = f.make_session(done)
    session.completed_at = session.started_at
    session.save()
    client.force_login(owner)
    row = client.get(url(study, pool)).content.decode().split(f'id="annotator-{done.pk}"')[1].split("</tr>")[0]
    assert "Completed" in row and "In progress" not in row


def test_it_pages_and_keeps_its_queries_fixed(client, owner, study, pool, items, django_assert_num_queries):
    for _ in range(PER_PAGE + 3):
        annotate(f.make_annotator(pool), items[0])
    client.force_login(owner)
    # login's session and user, the study, the pool, the count, the page, the page's effort signals
    with django_assert_num_queries(7):
        first = client.get(url(study, pool))
    assert len(first.context["page"].object_list) == PER_PAGE
    with django_assert_num_queries(7):
        last = client.get(url(study, pool, page=2))
    assert len(last.context["page"].object_list) == 3
    assert "Page 2 of 2" in last.content.decode()


def test_blocking_releases_the_open_lease_and_unblocking_lifts_it(client, owner, study, pool, session, items):
    lease = assignment_next(session=session)
    client.force_login(owner)
    response = client.post(block_url(session.annotator), {"page": "1"})
    assert response.status_code == 302 and response["Location"] == url(study, pool, page=1)
    session.annotator.refresh_from_db()
    assert session.annotator.blocked_at is not None
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED
    assert ItemQuota.objects.get(item_id=lease.item_id, pool=pool).leased == 0
    page = client.get(url(study, pool)).content.decode()
    assert "Blocked" in page and block_url(session.annotator, "unblock") in page
    client.post(block_url(session.annotator, "unblock"))
    session.annotator.refresh_from_db()
    assert session.annotator.blocked_at is None


def test_the_dashboard_links_each_pools_annotators(client, owner, study, pool, other_pool):
    client.force_login(owner)
    html = client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()
    assert url(study, pool) in html and url(study, other_pool) in html


def test_it_refuses_another_researcher_and_a_checker(client, other_researcher, checker, study, pool, annotator):
    for user in (other_researcher, checker):
        client.force_login(user)
        assert client.get(url(study, pool)).status_code == 404
        assert client.post(block_url(annotator)).status_code == 404
        assert client.post(block_url(annotator, "unblock")).status_code == 404
    annotator.refresh_from_db()
    assert annotator.blocked_at is None


def test_it_sends_an_anonymous_visitor_to_login(client, study, pool, annotator):
    for response in (client.get(url(study, pool)), client.post(block_url(annotator))):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_it_refuses_a_pool_or_an_annotator_of_another_study(client, owner, other_researcher, study, pool):
    elsewhere = f.make_study(other_researcher, name="Another study")
    foreign_pool = f.make_pool(elsewhere, "FR", "France")
    foreign = f.make_annotator(foreign_pool)
    client.force_login(owner)
    assert client.get(reverse("analysis:pool-annotators", args=[study.pk, foreign_pool.pk])).status_code == 404
    assert client.post(reverse("analysis:annotator-block", args=[study.pk, foreign.pk])).status_code == 404
    foreign.refresh_from_db()
    assert foreign.blocked_at is None



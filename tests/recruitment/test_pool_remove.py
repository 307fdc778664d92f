"""Removing a country pool (recruitment:pool-remove): a page says what goes with the pool, its button
removes it; a pool with a Prolific study, annotators (their sessions, their leases) or annotations
stays, and the page and the button say why. An editor or the owner removes; a viewer gets 403,
another researcher 404, a visitor the login page."""

import uuid

from django.urls import reverse

from annotation.models import Annotator, Assignment, Checker, ReviewTarget
from annotation.services import assignment_next
from recruitment.models import ProlificStudy
from studies.models import CountryPool, Item, ItemQuota
from tests import factories as f
from tests.helpers import login


def remove_url(study, pool):
    return reverse("recruitment:pool-remove", args=[study.pk, pool.pk])


def on_prolific(pool, **fields):
    return ProlificStudy.objects.create(
        pool=pool, reference=f"ref-{uuid.uuid4()}", places=5, reward=150, estimated_minutes=10, **fields
    )


# --- the page and the happy path ---------------------------------------------------------------


def test_the_pool_list_links_each_pool_to_its_removal_page(client, owner, study, pool):
    login(client, owner)
    page = client.get(reverse("studies:pool-list", args=[study.pk])).content.decode()
    assert f'href="{remove_url(study, pool)}"' in page
    assert f'action="{remove_url(study, pool)}"' not in page  # no one-click removal: a page asks first


def test_the_page_says_what_goes_with_the_pool_and_removes_nothing(client, owner, study, pool, items, checker):
    ReviewTarget.objects.create(pool=pool, percent=20)
    login(client, owner)
    response = client.get(remove_url(study, pool))
    page = response.content.decode()
    assert response.status_code == 200 and response.context["refusal"] is None
    assert "Remove the pool for India?" in page
    assert "3 items routed to it, 9 annotations wanted" in page  # three Indian items, three wanted each
    for _, question in pool.eligibility_questions():
        assert question in page
    assert "checker-in" in page and "20% of its annotations" in page
    assert "No other pool takes the 3 items of India" in page
    assert f'action="{remove_url(study, pool)}"' in page
    assert CountryPool.objects.filter(pk=pool.pk).exists() and ItemQuota.objects.filter(pool=pool).count() == 3


def test_the_owner_removes_a_pool_with_its_quotas_checkers_and_target(client, owner, study, pool, items, checker):
    ReviewTarget.objects.create(pool=pool, percent=20)
    login(client, owner)
    response = client.post(remove_url(study, pool), follow=True)
    assert response.redirect_chain[-1][0] == reverse("studies:pool-list", args=[study.pk])
    assert "The pool for India is removed." in response.content.decode()
    assert not CountryPool.objects.filter(pk=pool.pk).exists()
    assert not ItemQuota.objects.filter(pool_id=pool.pk).exists()
    assert not Checker.objects.filter(pool_id=pool.pk).exists() and not ReviewTarget.objects.exists()
    assert Item.objects.filter(study=study).count() == 5  # the items stay
    assert ItemQuota.objects.filter(pool__country="JP").count() == 2  # the other pool is untouched


def test_an_editor_removes_a_pool(client, study, pool, other_pool):
    login(client, f.make_member(study, "eddie", "editor"))
    assert client.get(remove_url(study, other_pool)).status_code == 200
    client.post(remove_url(study, other_pool))
    assert not CountryPool.objects.filter(pk=other_pool.pk).exists()


# --- what keeps a pool --------------------------------------------------------------------------


def test_it_refuses_a_pool_with_a_prolific_study(client, owner, study, pool, items):
    row = on_prolific(pool)  # not even created on Prolific yet: a launch may be under way
    login(client, owner)
    page = client.get(remove_url(study, pool)).content.decode()
    assert "The pool for India has a study on Prolific (not created on prolific), so it stays" in page
    assert f'action="{remove_url(study, pool)}"' not in page
    response = client.post(remove_url(study, pool), follow=True)
    assert "The pool for India has a study on Prolific" in response.content.decode()
    assert CountryPool.objects.filter(pk=pool.pk).exists() and ProlificStudy.objects.filter(pk=row.pk).exists()
    assert ItemQuota.objects.filter(pool=pool).count() == 3


def test_it_refuses_a_pool_with_an_annotator_who_only_arrived(client, owner, study, pool, items):
    f.make_annotator(pool, onboarded=False)
    login(client, owner)
    page = client.get(remove_url(study, pool)).content.decode()
    assert "The pool for India has 1 annotator (0 sessions), so it stays" in page
    response = client.post(remove_url(study, pool), follow=True)
    assert "has 1 annotator (0 sessions)" in response.content.decode()
    assert CountryPool.objects.filter(pk=pool.pk).exists() and Annotator.objects.filter(pool=pool).count() == 1


def test_it_refuses_a_pool_with_a_session_holding_an_item(client, owner, study, pool, items, session):
    lease = assignment_next(session=session)
    assert lease is not None and lease.status == Assignment.Status.LEASED
    login(client, owner)
    response = client.post(remove_url(study, pool), follow=True)
    assert "has 1 annotator (1 session, 1 holding an item now), so it stays" in response.content.decode()
    assert Assignment.objects.filter(pk=lease.pk, status=Assignment.Status.LEASED).exists()
    assert ItemQuota.objects.filter(pool=pool, leased=1).count() == 1


def test_it_refuses_a_pool_with_annotations(client, owner, study, pool, annotated):
    login(client, owner)
    response = client.post(remove_url(study, pool), follow=True)
    assert "The pool for India has annotations already, so it stays" in response.content.decode()
    assert CountryPool.objects.filter(pk=pool.pk).exists() and ItemQuota.objects.filter(pool=pool).count() == 3


# --- who may ------------------------------------------------------------------------------------


def test_a_viewer_gets_a_read_only_refusal(client, study, pool):
    login(client, f.make_member(study, "vera", "viewer"))
    assert client.get(remove_url(study, pool)).status_code == 403
    response = client.post(remove_url(study, pool))
    assert response.status_code == 403 and "Your role on this study is read-only" in response.content.decode()
    assert CountryPool.objects.filter(pk=pool.pk).exists()


def test_another_researcher_and_a_checker_get_404(client, other_researcher, checker, study, pool):
    for user in (other_researcher, checker):
        login(client, user)
        assert client.get(remove_url(study, pool)).status_code == 404
        assert client.post(remove_url(study, pool)).status_code == 404
    assert CountryPool.objects.filter(pk=pool.pk).exists()


def test_a_pool_is_removed_only_through_its_own_study(client, owner, other_researcher, pool):
    theirs = f.make_study(other_researcher, name="Theirs")
    login(client, owner)
    assert client.post(remove_url(theirs, pool)).status_code == 404
    assert CountryPool.objects.filter(pk=pool.pk).exists()


def test_a_visitor_is_sent_to_log_in(client, study, pool):
    response = client.post(remove_url(study, pool))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert CountryPool.objects.filter(pk=pool.pk).exists()

"""The study's owner designates checkers per pool (and a review target) in the admin; a researcher
sees only their own studies' rows, and reviews are read-only evidence."""

import re

from django.urls import reverse

from annotation.models import Checker, Review, ReviewTarget
from tests import factories as f
from tests.factories import make_checker
from tests.helpers import login


def add_checker(client, pool, username, pid=""):
    return client.post(reverse("admin:annotation_checker_add"), {"pool": pool.pk, "username": username,
                                                                 "prolific_pid": pid})


def test_the_owner_makes_an_account_a_checker_of_their_pool(client, owner, pool, django_user_model):
    account = django_user_model.objects.create_user("meera", password="x")
    response = add_checker(login(client, owner), pool, "meera", pid="5f1a2b3c4d5e6f7a8b9c0d1e")
    assert response.status_code == 302, response.content.decode()[:3000]
    c = Checker.objects.get()
    assert (c.pool, c.user, c.prolific_pid) == (pool, account, "5f1a2b3c4d5e6f7a8b9c0d1e")


def test_it_refuses_an_unknown_username(client, owner, pool):
    response = add_checker(login(client, owner), pool, "nobody")
    assert "No active account is called “nobody”." in response.content.decode()
    assert not Checker.objects.exists()


def test_an_inactive_account_is_refused_with_the_same_words_as_an_unknown_one(client, owner, pool,
                                                                              django_user_model):
    django_user_model.objects.create_user("gone", password="x", is_active=False)
    login(client, owner)

    def error(username):
        page = add_checker(client, pool, username).content.decode()
        return re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)

    assert error("gone") == [e.replace("nobody", "gone") for e in error("nobody")] != []
    assert not Checker.objects.exists()


def test_it_refuses_the_same_checker_twice_on_a_pool(client, owner, pool, checker):
    response = add_checker(login(client, owner), pool, "checker-in")
    assert "checker-in is already a checker of" in response.content.decode()
    assert Checker.objects.count() == 1


def test_it_refuses_another_researchers_pool(client, owner, pool, other_researcher, django_user_model):
    theirs = f.make_pool(f.make_study(other_researcher, name="Theirs"), "FR", "France")
    django_user_model.objects.create_user("meera", password="x")
    response = add_checker(login(client, owner), theirs, "meera")
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not Checker.objects.exists()


def test_a_researcher_sees_only_the_checkers_of_their_own_studies(client, owner, other_researcher, pool, checker):
    theirs = f.make_pool(f.make_study(other_researcher, name="Theirs"), "FR", "France")
    make_checker(theirs, "checker-fr")
    page = login(client, owner).get(reverse("admin:annotation_checker_changelist")).content.decode()
    assert "checker-in" in page and "checker-fr" not in page
    mine = Checker.objects.get(user__username="checker-in")
    login(client, other_researcher)
    assert client.get(reverse("admin:annotation_checker_change", args=[mine.pk])).status_code == 302  # not found


def test_the_owner_sets_a_pools_review_target(client, owner, pool):
    response = login(client, owner).post(reverse("admin:annotation_reviewtarget_add"), {"pool": pool.pk, "percent": 25})
    assert response.status_code == 302
    assert ReviewTarget.objects.get().percent == 25
    response = client.post(reverse("admin:annotation_reviewtarget_add"), {"pool": pool.pk, "percent": 0})
    assert response.status_code == 200 and ReviewTarget.objects.count() == 1


def test_a_checker_without_staff_access_cannot_use_the_admin(client, checker):
    response = login(client, checker).get(reverse("admin:annotation_checker_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response.url


def test_reviews_are_read_only_for_the_owner(client, owner, checker, annotated):
    review = Review.objects.create(annotation=annotated[0], reviewer=checker, outcome="flagged", labels={}, note="x")
    login(client, owner)
    assert "flagged" in client.get(reverse("admin:annotation_review_changelist")).content.decode()
    change = client.post(reverse("admin:annotation_review_change", args=[review.pk]), {"outcome": "accepted"})
    assert change.status_code == 403
    review.refresh_from_db()
    assert review.outcome == "flagged"

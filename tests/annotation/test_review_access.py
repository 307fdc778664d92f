"""Who may review what: the fixed cast of the quality check, and every refusal.

The cast (tests/conftest.py): the study's owner, another researcher, a checker of the India pool,
a checker of the Japan pool, and an annotator of the study (a Prolific participant in the browser,
and an account that is no checker).
"""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Review
from tests import factories as f
from tests.factories import PASSWORD, valid_answers
from tests.helpers import as_annotator, login, review_url, submit_url

# --- the pool's review page and its actions: who gets in ---------------------------------------


def urls_of(annotation) -> list[str]:
    args = [annotation.study_id, annotation.pool_id]
    return [
        reverse("annotation:review-study", args=args[:1]),
        reverse("annotation:review-pool", args=args),
        reverse("annotation:review-image", args=[*args, annotation.pk]),
    ]


@pytest.mark.parametrize("who", ["owner", "checker"])
def test_the_owner_and_the_pools_checker_may_review_it(client, who, request, annotated):
    login(client, request.getfixturevalue(who))
    for url in urls_of(annotated[0]):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("who", ["other_researcher", "other_checker"])
def test_it_refuses_another_researcher_and_another_pools_checker_with_404(client, who, request, annotated):
    login(client, request.getfixturevalue(who))
    for url in urls_of(annotated[0])[1:]:
        assert client.get(url).status_code == 404, url
    response = client.post(submit_url(annotated[0]), {"_outcome": "accepted", **valid_answers()})
    assert response.status_code == 404
    assert not Review.objects.exists()


def test_a_checker_sees_only_their_own_pool(client, checker, annotated, annotated_elsewhere):
    login(client, checker)
    page = client.get(reverse("annotation:review-study", args=[annotated[0].study_id])).content.decode()
    assert "Review India" in page and "Review Japan" not in page
    japan = annotated_elsewhere[0]
    assert client.get(review_url(japan.study, japan.pool)).status_code == 404
    assert client.post(submit_url(japan), {"_outcome": "accepted"}).status_code == 404
    image = reverse("annotation:review-image", args=[japan.study_id, japan.pool_id, japan.pk])
    assert client.get(image).status_code == 404


def test_an_annotation_is_reached_only_through_its_own_pool(client, owner, annotated, annotated_elsewhere):
    """The owner may review both pools, but a Japanese annotation is not in the India pool's URLs."""
    login(client, owner)
    japan, india = annotated_elsewhere[0], annotated[0]
    url = reverse("annotation:review-submit", args=[india.study_id, india.pool_id, japan.pk])
    assert client.post(url, {"_outcome": "accepted"}).status_code == 404


def test_it_refuses_a_study_and_pool_that_do_not_match(client, owner, other_researcher, pool, annotated):
    elsewhere = f.make_study(other_researcher, name="Another study")
    login(client, owner)
    assert client.get(reverse("annotation:review-pool", args=[elsewhere.pk, pool.pk])).status_code == 404


def test_an_annotator_of_the_study_cannot_review(client, session, annotated):
    """A Prolific participant's browser has no account: the review page asks for a login."""
    as_annotator(client, session)
    response = client.get(review_url(annotated[0].study, annotated[0].pool))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    response = client.post(submit_url(annotated[0]), {"_outcome": "accepted"})
    assert response.status_code == 302
    assert not Review.objects.exists()


def test_an_account_that_is_no_checker_gets_404(client, annotated):
    account = get_user_model().objects.create_user(annotated[0].annotator.prolific_pid, password=PASSWORD)
    login(client, account)
    assert client.get(review_url(annotated[0].study, annotated[0].pool)).status_code == 404
    assert client.get(reverse("annotation:review-home")).content.decode().count("Review India") == 0


def test_anonymous_visitors_are_sent_to_the_login(client, annotated):
    response = client.get(review_url(annotated[0].study, annotated[0].pool))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


# --- the lists of pools to review ---------------------------------------------------------------


def test_a_checker_lists_only_the_pools_they_check(client, checker, annotated):
    login(client, checker)
    page = client.get(reverse("annotation:review-home")).content.decode()
    assert "Review India" in page and "Review Japan" not in page
    assert "0 / 1 (10% target)" in page  # six annotations, 10% → one to review
    assert "checker" in page


def test_the_owner_lists_every_pool_of_the_study(client, owner, study, annotated, annotated_elsewhere):
    login(client, owner)
    page = client.get(reverse("annotation:review-study", args=[study.pk])).content.decode()
    assert "Review India" in page and "Review Japan" in page
    assert "owner" in page


def test_the_study_list_is_404_for_someone_who_reviews_nothing_there(client, other_researcher, study, annotated):
    login(client, other_researcher)
    assert client.get(reverse("annotation:review-study", args=[study.pk])).status_code == 404
    assert "You review no country pool" in client.get(reverse("annotation:review-home")).content.decode()


def test_the_list_of_pools_takes_a_fixed_number_of_queries(client, owner, study, annotated, django_assert_num_queries):
    for n in range(5):
        f.make_pool(study, f"C{n}", f"Country {n}")
    login(client, owner)
    # session, user, pools with targets, annotations and reviews by pool, checker roles
    with django_assert_num_queries(6):
        client.get(reverse("annotation:review-home"))

"""/api/v1/studies/{id}/reviews/ and a pool's review-target/: the study's reviews listed with their
filters and read, the target read with its progress and set (the page's service and message); the
fixed cast's refusals; a review or a pool of another study is not found in this study's address."""

import pytest
from rest_framework.test import APIClient

from annotation.models import ReviewTarget
from tests import factories as f
from tests.helpers import review


def reviews(study) -> str:
    return f"/api/v1/studies/{study.pk}/reviews/"


def target(pool) -> str:
    return f"/api/v1/studies/{pool.study_id}/pools/{pool.pk}/review-target/"


@pytest.fixture
def reviewed(annotated, annotated_elsewhere, checker, other_checker, owner):
    """India: an accepted and a flagged annotation (the checker), Japan: one accepted (its checker)."""
    accepted = review(annotated[0], checker, "accepted").review
    flagged = review(annotated[1], checker, "flagged", note="The words do not match.", quality="0").review
    japan = review(annotated_elsewhere[0], other_checker, "accepted").review
    return accepted, flagged, japan


def ids(response) -> list[int]:
    assert response.status_code == 200, response.json()
    return [r["id"] for r in response.json()["results"]]


def test_the_studys_reviews_are_listed_newest_first_for_its_editors(reviewed, study, pool, editor, as_user):
    accepted, flagged, japan = reviewed
    body = as_user(editor).get(reviews(study)).json()
    assert [r["id"] for r in body["results"]] == [japan.pk, flagged.pk, accepted.pk]
    row = body["results"][1]
    assert row["annotation"] == flagged.annotation_id and row["pool"] == pool.pk and row["country"] == "IN"
    assert row["checker"] == "checker-in" and row["outcome"] == "flagged"
    assert row["note"] == "The words do not match." and row["labels"]["quality"] == 0


@pytest.mark.parametrize("query, which", [
    ("outcome=flagged", [1]),
    ("outcome=accepted", [2, 0]),
    ("checker=checker-jp", [2]),
    ("checker=nobody", []),
    ("outcome=accepted&checker=checker-in", [0]),
])
def test_the_reviews_are_filtered(reviewed, study, as_user, query, which):
    assert ids(as_user(study.owner).get(f"{reviews(study)}?{query}")) == [reviewed[i].pk for i in which]


def test_the_reviews_are_filtered_by_pool(reviewed, study, pool, other_pool, as_user):
    client = as_user(study.owner)
    assert ids(client.get(f"{reviews(study)}?pool={pool.pk}")) == [reviewed[1].pk, reviewed[0].pk]
    assert ids(client.get(f"{reviews(study)}?pool={other_pool.pk}")) == [reviewed[2].pk]


@pytest.mark.parametrize("query, field, says", [
    ("outcome=maybe", "outcome", "is not a valid choice"),
    ("pool=India", "pool", "A valid integer is required."),
    ("pool=" + "9" * 30, "pool", "less than or equal to"),
    ("pool=0", "pool", "greater than or equal to 1"),
    ("checker=" + "x" * 151, "checker", "no more than 150 characters"),
])
def test_a_bad_filter_is_a_400_naming_it(reviewed, study, as_user, query, field, says):
    response = as_user(study.owner).get(f"{reviews(study)}?{query}")
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()


def test_a_pool_of_another_study_filters_out_every_review(reviewed, study, other_researcher, as_user):
    theirs = f.make_pool(f.make_study(other_researcher, name="Theirs"), "FR", "France")
    f.make_items(theirs.study, "FR", 1)
    review(f.annotate_pool(theirs)[0], f.make_checker(theirs, "checker-fr"), "accepted")
    assert ids(as_user(study.owner).get(f"{reviews(study)}?pool={theirs.pk}")) == []


def test_the_reviews_come_a_page_at_a_time_in_few_queries(reviewed, study, as_user, django_assert_max_num_queries):
    client = as_user(study.owner)
    with django_assert_max_num_queries(4):
        first = client.get(f"{reviews(study)}?page_size=2").json()
    assert [r["id"] for r in first["results"]] == [reviewed[2].pk, reviewed[1].pk]
    rest = client.get(first["next"]).json()
    assert [r["id"] for r in rest["results"]] == [reviewed[0].pk] and rest["next"] is None


def test_one_review_is_read(reviewed, study, editor, as_user):
    body = as_user(editor).get(f"{reviews(study)}{reviewed[0].pk}/").json()
    assert body["id"] == reviewed[0].pk and body["outcome"] == "accepted" and body["checker"] == "checker-in"


def test_the_reviews_are_refused_to_strangers(reviewed, study, checker, other_researcher, as_user, anonymous):
    assert as_user(other_researcher).get(reviews(study)).status_code == 404
    assert as_user(other_researcher).get(f"{reviews(study)}{reviewed[0].pk}/").status_code == 404
    assert anonymous.get(reviews(study)).status_code == 401
    session = APIClient()
    session.force_login(checker)  # a checker reviews on the pages: the API refuses their account
    assert session.get(reviews(study)).status_code == 403


def test_a_review_of_another_study_is_not_found_in_this_studys_address(reviewed, study, other_researcher, as_user):
    theirs = f.make_study(other_researcher, name="Theirs")
    client = as_user(other_researcher)
    assert client.get(f"{reviews(theirs)}{reviewed[0].pk}/").status_code == 404
    assert client.get(reviews(theirs)).json()["results"] == []


def test_the_review_target_shows_the_pools_progress(reviewed, pool, viewer, as_user):
    body = as_user(viewer).get(target(pool)).json()
    assert body == {
        "pool": pool.pk, "country": "IN", "percent": 10,
        "progress": {"reviewed": 2, "total": 6, "target": 1, "left": 4, "reached": True, "percent": 100},
    }


def test_an_editor_sets_the_review_target(annotated, pool, editor, as_user):
    response = as_user(editor).put(target(pool), {"percent": 50}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["percent"] == 50 and response.json()["progress"]["target"] == 3
    assert ReviewTarget.objects.get(pool=pool).percent == 50


@pytest.mark.parametrize("body, says", [
    ({"percent": 0}, "A review target is a whole percentage from 1 to 100."),
    ({"percent": 101}, "A review target is a whole percentage from 1 to 100."),
    ({"percent": int("9" * 30)}, "A review target is a whole percentage from 1 to 100."),
    ({"percent": "half"}, "A valid integer is required."),
    ({"percent": "30"}, "A valid integer is required."),
    ({"percent": 30.5}, "A valid integer is required."),
    ({"percent": True}, "A valid integer is required."),
    ({}, "This field is required."),
])
def test_a_bad_review_target_is_a_400_naming_percent(pool, owner, as_user, body, says):
    response = as_user(owner).put(target(pool), body, format="json")
    assert response.status_code == 400 and response.json()["percent"] == [says]
    assert not ReviewTarget.objects.exists()


def test_an_unknown_key_is_refused(pool, owner, as_user):
    response = as_user(owner).put(target(pool), {"percent": 20, "pool": 3}, format="json")
    assert response.status_code == 400 and response.json() == {"pool": ["Unknown field."]}


def test_a_viewer_may_not_set_the_target_and_strangers_do_not_find_it(
    pool, viewer, other_researcher, checker, as_user, anonymous
):
    refused = as_user(viewer).put(target(pool), {"percent": 30}, format="json")
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert as_user(other_researcher).put(target(pool), {"percent": 30}, format="json").status_code == 404
    assert as_user(other_researcher).get(target(pool)).status_code == 404
    assert anonymous.put(target(pool), {"percent": 30}, format="json").status_code == 401
    session = APIClient()
    session.force_login(checker)
    assert session.put(target(pool), {"percent": 30}, format="json").status_code == 403
    assert not ReviewTarget.objects.exists()


def test_a_pool_of_another_study_has_no_target_in_this_studys_address(pool, other_researcher, as_user):
    theirs = f.make_study(other_researcher, name="Theirs")
    client = as_user(other_researcher)
    address = f"/api/v1/studies/{theirs.pk}/pools/{pool.pk}/review-target/"
    assert client.get(address).status_code == 404
    assert client.put(address, {"percent": 30}, format="json").status_code == 404
    assert not ReviewTarget.objects.exists()


def test_a_viewer_does_not_read_the_reviews_as_on_the_review_pages(reviewed, study, viewer, as_user):
    client = as_user(viewer)
    listed = client.get(reviews(study))
    one = client.get(f"{reviews(study)}{reviewed[0].pk}/")
    assert listed.status_code == one.status_code == 403
    assert "read-only" in listed.json()["detail"]

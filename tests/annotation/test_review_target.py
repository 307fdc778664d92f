"""The review target of a pool, set on the study's quality-check page by an editor or the owner:
refused out of 1–100 (nothing changes), by a viewer (403), a checker and another researcher (404)."""

from django.urls import reverse

from annotation.models import ReviewTarget
from tests import factories as f
from tests.helpers import login


def target_url(study, pool):
    return reverse("annotation:review-target", args=[study.pk, pool.pk])


def test_the_owner_sets_a_pools_review_target(client, owner, study, pool, other_pool):
    login(client, owner)
    page = client.get(reverse("annotation:review-study", args=[study.pk])).content.decode()
    assert "Review targets" in page and f'id="review-target-{pool.pk}"' in page
    response = client.post(target_url(study, pool), {"percent": "25"}, follow=True)
    assert "the checkers aim to review 25% of its annotations" in response.content.decode()
    assert ReviewTarget.objects.get(pool=pool).percent == 25
    assert not ReviewTarget.objects.filter(pool=other_pool).exists()


def test_an_editor_sets_it_too(client, study, pool):
    login(client, f.make_member(study, "editor", "editor"))
    client.post(target_url(study, pool), {"percent": "40"})
    assert ReviewTarget.objects.get(pool=pool).percent == 40


def test_it_refuses_a_target_out_of_range_and_changes_nothing(client, owner, study, pool):
    login(client, owner)
    for bad in ("0", "101", "ten", "", "12.5"):
        response = client.post(target_url(study, pool), {"percent": bad}, follow=True)
        assert "a review target is a whole percentage from 1 to 100" in response.content.decode()
    assert not ReviewTarget.objects.exists()


def test_a_viewer_a_checker_and_a_stranger_cannot_set_it(client, study, pool, checker, other_researcher):
    login(client, f.make_member(study, "viewer", "viewer"))
    assert client.post(target_url(study, pool), {"percent": "50"}).status_code == 403
    login(client, checker)
    assert client.post(target_url(study, pool), {"percent": "50"}).status_code == 404
    page = client.get(reverse("annotation:review-study", args=[study.pk])).content.decode()
    assert "Review targets" not in page  # the checker reviews; they set nothing
    login(client, other_researcher)
    assert client.post(target_url(study, pool), {"percent": "50"}).status_code == 404
    assert not ReviewTarget.objects.exists()

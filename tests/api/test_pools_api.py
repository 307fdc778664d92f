"""/api/v1/studies/{id}/pools/: the list, a pool added, read and changed, its progress; the fixed
cast's refusals; a pool of another study is not found in this study's address."""

import pytest

from studies.models import CountryPool, ItemQuota
from tests import factories as f


def pools(study) -> str:
    return f"/api/v1/studies/{study.pk}/pools/"


def one(pool) -> str:
    return f"{pools(pool.study)}{pool.pk}/"


def test_the_pools_of_the_study_are_listed_for_its_members(study, pool, other_pool, viewer, other_researcher, as_user):
    rows = as_user(viewer).get(pools(study)).json()["results"]
    assert [(r["id"], r["country"]) for r in rows] == [(pool.pk, "IN"), (other_pool.pk, "JP")]
    assert as_user(other_researcher).get(pools(study)).status_code == 404


def test_an_editor_adds_a_pool_and_its_items_get_quotas(study, items, editor, as_user):
    f.make_items(study, "FR", 2)
    response = as_user(editor).post(pools(study), {"country": "FR", "annotations_per_item": 4}, format="json")
    assert response.status_code == 201, response.json()
    pool = CountryPool.objects.get(study=study, country="FR")
    assert pool.country_name == "France" and pool.annotations_per_item == 4 and pool.require_born
    assert ItemQuota.objects.filter(pool=pool, wanted=4).count() == 2


@pytest.mark.parametrize("body, field, says", [
    ({"country": "IN"}, "country", "has a pool for India already"),
    ({"country": "XX"}, "country", "Select a valid choice"),
    ({}, "country", "required"),
    ({"country": "FR", "annotations_per_item": 0}, "annotations_per_item", "at least one annotation"),
    ({"country": "FR", "require_born": "perhaps"}, "require_born", "valid boolean"),
    ({"country": "FR", "language": "xx"}, "language", "Select a valid choice"),
])
def test_a_bad_pool_is_a_400_naming_the_field_and_nothing_is_added(study, pool, as_user, body, field, says):
    response = as_user(study.owner).post(pools(study), body, format="json")
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()
    assert list(CountryPool.objects.filter(study=study)) == [pool]


def test_a_viewer_may_not_add_a_pool_and_another_researcher_does_not_find_the_study(
    study, viewer, other_researcher, as_user, anonymous
):
    refused = as_user(viewer).post(pools(study), {"country": "FR"}, format="json")
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert as_user(other_researcher).post(pools(study), {"country": "FR"}, format="json").status_code == 404
    assert anonymous.post(pools(study), {"country": "FR"}, format="json").status_code == 401
    assert not CountryPool.objects.filter(country="FR").exists()


def test_a_pool_is_read_and_changed_with_its_quotas_in_step(study, pool, items, editor, as_user):
    assert as_user(editor).get(one(pool)).json()["country_name"] == "India"
    response = as_user(editor).patch(one(pool), {"annotations_per_item": 5, "require_born": False}, format="json")
    assert response.status_code == 200, response.json()
    pool.refresh_from_db()
    assert pool.annotations_per_item == 5 and not pool.require_born and pool.require_resident
    assert set(ItemQuota.objects.filter(pool=pool).values_list("wanted", flat=True)) == {5}


def test_fewer_annotations_than_done_is_refused_as_on_the_page(study, pool, annotated, as_user):
    response = as_user(study.owner).patch(one(pool), {"annotations_per_item": 1}, format="json")
    assert response.status_code == 400
    assert "annotations already: ask for at least 2" in response.json()["annotations_per_item"][0]
    assert CountryPool.objects.get(pk=pool.pk).annotations_per_item == 3


def test_a_pools_country_cannot_change(study, pool, as_user):
    response = as_user(study.owner).patch(one(pool), {"country": "FR"}, format="json")
    assert response.status_code == 400 and "cannot change" in response.json()["country"][0]
    assert CountryPool.objects.get(pk=pool.pk).country == "IN"


def test_a_viewer_may_not_change_a_pool(study, pool, viewer, as_user):
    assert as_user(viewer).patch(one(pool), {"annotations_per_item": 9}, format="json").status_code == 403
    assert CountryPool.objects.get(pk=pool.pk).annotations_per_item == 3


def test_a_pool_of_another_study_is_not_found_in_this_studys_address(study, pool, other_researcher, as_user):
    theirs = f.make_pool(f.make_study(other_researcher, name="Theirs"), "FR", "France")
    client = as_user(study.owner)
    assert client.get(f"{pools(study)}{theirs.pk}/").status_code == 404
    assert client.patch(f"{pools(study)}{theirs.pk}/", {"annotations_per_item": 9}, format="json").status_code == 404
    assert client.get(f"{pools(study)}{theirs.pk}/progress/").status_code == 404
    assert as_user(other_researcher).get(f"{pools(theirs.study)}{pool.pk}/").status_code == 404


def test_progress_is_what_the_dashboard_shows(study, pool, annotated, viewer, other_researcher, as_user):
    body = as_user(viewer).get(f"{one(pool)}progress/").json()
    assert body["pool"] == pool.pk and body["country"] == "IN"
    assert body["annotations"] == len(annotated) == body["done"]
    assert body["items"] == 3 and body["wanted"] == 9 and body["remaining"] == 9 - len(annotated)
    assert body["sessions_started"] == 2 and body["entry_link"].startswith("http")
    assert sum(h["annotations"] for h in body["hourly"]) == len(annotated)
    assert as_user(other_researcher).get(f"{one(pool)}progress/").status_code == 404

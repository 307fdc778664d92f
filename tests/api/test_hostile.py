"""Hostile input to the API never reaches a 500, and a refusal stores nothing (as tests/test_hostile_input.py
for the pages): huge ids, broken cursors, unstorable texts, numbers out of range, bodies of the wrong shape."""

import pytest

from studies.models import CountryPool, Study

HUGE = "9" * 30


@pytest.mark.parametrize("path", [
    f"/api/v1/studies/{HUGE}/", f"/api/v1/studies/{HUGE}/pools/", f"/api/v1/studies/{HUGE}/protocol-versions/",
    "/api/v1/studies/{study}/pools/" + HUGE + "/", "/api/v1/studies/{study}/pools/" + HUGE + "/progress/",
    "/api/v1/studies/?cursor=garbage", "/api/v1/studies/?page_size=-5", "/api/v1/studies/?page_size=" + HUGE,
])
def test_a_hostile_address_is_refused_without_a_500(study, as_user, path):
    response = as_user(study.owner).get(path.format(study=study.pk))
    assert response.status_code in (400, 404), response.content


@pytest.mark.parametrize("body", [
    {"preset": "caire-relevance", "name": "a\x00b"},
    '{"preset": "caire-relevance", "name": "\\ud800"}',  # a lone surrogate, as JSON text
    {"preset": "caire-relevance", "items_per_session": int(HUGE)},
    {"preset": "caire-relevance", "items_per_session": 1e308},
    {"preset": "caire-relevance", "max_skips_per_session": -1},
    {"preset": "caire-relevance", "name": ["a list"]},
    {"preset": {"an": "object"}},
    {"name": "x", "protocol": "not a spec"},
    {"name": "x", "protocol": [1, 2]},
    {"name": "x" * 300, "preset": "caire-relevance"},
])
def test_a_hostile_new_study_is_a_400_and_nothing_is_made(owner, as_user, body):
    client = as_user(owner)
    if isinstance(body, str):
        response = client.post("/api/v1/studies/", body, content_type="application/json")
    else:
        response = client.post("/api/v1/studies/", body, format="json")
    assert response.status_code == 400, response.content
    assert not Study.objects.exists()


@pytest.mark.parametrize("body", [
    {"country": "FR", "annotations_per_item": int(HUGE)},
    {"country": "FR", "min_distinct_annotators": -3},
    {"country": "\x00"},
    {"country": ["FR"]},
])
def test_a_hostile_pool_is_a_400_and_nothing_is_added(study, as_user, body):
    response = as_user(study.owner).post(f"/api/v1/studies/{study.pk}/pools/", body, format="json")
    assert response.status_code == 400, response.content
    assert not CountryPool.objects.exists()

"""Hostile input to the API never reaches a 500, and a refusal stores nothing (as tests/test_hostile_input.py
for the pages): huge ids, broken cursors, unstorable texts, numbers out of range, bodies of the wrong shape."""

from base64 import b64encode

import pytest

from studies.models import CountryPool, Study

HUGE = "9" * 30


def cursor_of(text: str) -> str:
    return b64encode(text.encode()).decode()


CRAFTED_CURSORS = {
    "a position not a number": cursor_of("p=abc"), "a position in floating point": cursor_of("p=1e99"),
    "a position with a NUL": cursor_of("p=1\0"), "a position past any id": cursor_of(f"p={HUGE}"),
    "an empty position": cursor_of("p="), "a negative offset": cursor_of("o=-1"),
    "an offset past the cutoff": cursor_of("o=100000"), "a direction of 2": cursor_of("r=2&p=1"),
    "a key twice": cursor_of("p=1&p=2"), "an unknown key": cursor_of("x=1"), "not base64": "garbage",
    "base64 without its padding": "cD1hYmM", "not ASCII": "cD1hYmM\u00e9", "huge": cursor_of("p=1") * 20_000,
}


def paged_lists(client) -> list[str]:
    """The address of every list the schema says is paged by a cursor."""
    paths = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    return [path for path, operations in paths.items()
            if any(p["name"] == "cursor" for p in operations.get("get", {}).get("parameters", []))]


@pytest.mark.parametrize("cursor", CRAFTED_CURSORS.values(), ids=CRAFTED_CURSORS.keys())
def test_a_crafted_cursor_is_a_400_naming_it_on_every_paged_list(study, as_user, cursor):
    client = as_user(study.owner)
    lists = paged_lists(client)
    assert len(lists) >= 13 and "/api/v1/studies/" in lists
    for path in lists:
        response = client.get(path.format(id=study.pk), {"cursor": cursor})
        assert response.status_code == 400, (path, response.content)
        assert response.json() == {"cursor": [
            "Not a cursor of this list: follow the next and previous links as the API gives them."]}, path


def test_the_cursors_the_api_gives_walk_every_way(owner, as_user):
    for n in range(3):
        as_user(owner).post("/api/v1/studies/", {"preset": "caire-relevance", "name": f"Study {n}"}, format="json")
    client = as_user(owner)
    first = client.get("/api/v1/studies/", {"page_size": 1}).json()
    second = client.get(first["next"]).json()
    third = client.get(second["next"]).json()
    assert client.get(third["previous"]).json()["results"] == second["results"]
    assert third["next"] is None and len({r["id"] for r in [*first["results"], *second["results"],
                                                             *third["results"]]}) == 3
    assert client.get("/api/v1/studies/", {"cursor": cursor_of(f"p={second['results'][0]['id']}")}).status_code == 200


@pytest.mark.parametrize("path", [
    f"/api/v1/studies/{HUGE}/", f"/api/v1/studies/{HUGE}/pools/", f"/api/v1/studies/{HUGE}/protocol-versions/",
    "/api/v1/studies/{study}/pools/" + HUGE + "/", "/api/v1/studies/{study}/pools/" + HUGE + "/progress/",
    "/api/v1/studies/?page_size=-5", "/api/v1/studies/?page_size=" + HUGE,
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

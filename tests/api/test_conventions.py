"""The API's conventions (api/base.py): throttles per token, cursor pages of at most 100, bodies
read within a size and a depth, JSON only; the schema generated without a warning, and the docs page
served from local files only."""

import re

import pytest
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from tests import factories as f

STUDIES = "/api/v1/studies/"


@override_settings(API_THROTTLE_WRITES="2/min", API_THROTTLE_READS="3/min")
def test_each_token_is_throttled_on_its_own_reads_and_writes(owner, as_user):
    first, second = as_user(owner), as_user(owner)
    assert [first.get(STUDIES).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert second.get(STUDIES).status_code == 200  # another token: its own count
    writes = [first.post(STUDIES, {"preset": "nope"}, format="json").status_code for _ in range(3)]
    assert writes == [400, 400, 429]  # writes are counted apart from reads
    throttled = first.post(STUDIES, {"preset": "nope"}, format="json")
    assert throttled.status_code == 429 and "Retry-After" in throttled


def test_lists_are_paged_by_a_cursor_and_never_longer_than_100(owner, as_user, settings):
    settings.API_PAGE_SIZE = 2
    for n in range(5):
        f.make_study(owner, name=f"Study {n}")
    client = as_user(owner)
    page = client.get(STUDIES).json()
    seen = [s["id"] for s in page["results"]]
    assert len(seen) == 2 and page["previous"] is None
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += [s["id"] for s in page["results"]]
    assert seen == sorted(seen, reverse=True) and len(set(seen)) == 5
    assert len(client.get(STUDIES, {"page_size": 100}).json()["results"]) == 5
    for refused in ("1000", "0", "-5", "2.5", "", "two"):
        response = client.get(STUDIES, {"page_size": refused})
        assert response.status_code == 400 and response.json() == {"page_size": ["A whole number from 1 to 100."]}
    from api.base import CursorPage

    assert CursorPage.max_page_size == 100


def test_a_body_larger_than_the_limit_is_a_413(owner, as_user, settings):
    settings.API_MAX_BODY_BYTES = 1000
    response = as_user(owner).post(STUDIES, {"name": "x" * 2000, "preset": "caire-relevance"}, format="json")
    assert response.status_code == 413 and "larger than 1000 bytes" in response.json()["detail"]


def test_json_nested_too_deep_or_broken_is_a_400(owner, as_user):
    client = as_user(owner)
    deep = "[" * 5000 + "]" * 5000
    response = client.post(STUDIES, deep, content_type="application/json")
    assert response.status_code == 400 and "deep" in response.json()["detail"]
    response = client.post(STUDIES, '{"name": ', content_type="application/json")
    assert response.status_code == 400 and "not valid JSON" in response.json()["detail"]
    assert client.post(STUDIES, [1, 2], format="json").json() == {"non_field_errors": ["Send a JSON object."]}


def test_only_json_is_read_and_written(owner, as_user):
    client = as_user(owner)
    assert client.post(STUDIES, {"preset": "caire-relevance"}).status_code == 415  # a form's encoding
    assert client.get(STUDIES, HTTP_ACCEPT="text/html").status_code == 406


def test_the_schema_is_generated_without_a_warning_and_validates(tmp_path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for path in ("/api/v1/studies/", "/api/v1/studies/{id}/", "/api/v1/studies/{id}/protocol-versions/",
                 "/api/v1/studies/{id}/pools/", "/api/v1/studies/{id}/pools/{pool_id}/",
                 "/api/v1/studies/{id}/pools/{pool_id}/progress/", "/api/v1/presets/"):
        assert f"  {path}:" in text
    assert "scheme: bearer" in text


def test_the_schema_is_served_with_the_refusals_each_operation_may_answer(anonymous, db):
    response = anonymous.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    paths = response.json()["paths"]
    assert response.status_code == 200 and "/api/v1/studies/" in paths
    patch = paths["/api/v1/studies/{id}/"]["patch"]["responses"]
    assert {"400", "401", "403", "404", "413", "415", "429"} <= set(patch)
    studies = paths["/api/v1/studies/"]["get"]
    assert {"400", "401", "403", "429"} <= set(studies["responses"]) and "404" not in studies["responses"]
    cursor = next(p for p in studies["parameters"] if p["name"] == "cursor")  # a cursor not given: its 400
    assert "400 naming `cursor`" in cursor["description"] and cursor["schema"]["maxLength"] == 200
    assert "cursor" in studies["responses"]["400"]["description"]
    assert "400" not in paths["/api/v1/presets/"]["get"]["responses"]


@pytest.mark.parametrize("who", ["anonymous", "owner"])
def test_the_docs_page_uses_only_local_files(client, owner, who):
    if who == "owner":
        client.force_login(owner)
    response = client.get("/api/docs/")
    page = response.content.decode()
    assert response.status_code == 200 and "swagger-ui" in page
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert re.findall(r"""(?:src|href)\s*=\s*["']\s*(?:https?:)?//""", page) == []
    addresses = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", page)
    assert addresses and all(a.startswith("/") for a in addresses), addresses  # every file of the site's own
    assert '"validatorUrl": null' in page  # nothing sent to an online validator


@override_settings(API_THROTTLE_READS="2/min")
def test_a_visitor_without_a_login_is_throttled_by_address_whatever_forwarded_for_says(anonymous, db):
    codes = [anonymous.get("/api/schema/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code for n in range(3)]
    assert codes == [200, 200, 429]


def test_the_list_costs_three_queries_for_a_token(study, pool, other_pool, as_user, django_assert_num_queries):
    client = as_user(study.owner)
    client.get(STUDIES)  # the token's first use is written once
    with django_assert_num_queries(3):  # the token with its account, the study scoped, the page of pools
        assert len(client.get(f"{STUDIES}{study.pk}/pools/").json()["results"]) == 2


def test_options_is_not_answered_the_schema_describes_the_api(study, as_user):
    assert as_user(study.owner).options(f"{STUDIES}{study.pk}/").status_code == 405


def test_an_address_under_api_that_names_nothing_is_a_json_404(study, as_user):
    for path in ("/api/v2/studies/", f"/api/v1/studies/{study.pk}", "/api/v1/studies/null,null/"):
        response = as_user(study.owner).get(path)
        assert response.status_code == 404 and response.json() == {"detail": "Not found."}
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(study.owner)
    assert browser.patch("/api/v1/studies/null/", {}, format="json").json() == {"detail": "Not found."}


@pytest.mark.parametrize("address", ["imports", "metrics"])
def test_an_upload_declared_over_its_limit_is_refused_before_anything_reads_it(study, address, monkeypatch):
    """Even on a browser's session, whose CSRF check reads the form: neither parser is reached."""

    def never(*args, **kwargs):
        raise AssertionError("the body was read")

    monkeypatch.setattr("django.http.multipartparser.MultiPartParser.parse", never)
    monkeypatch.setattr("rest_framework.parsers.MultiPartParser.parse", never)
    session = APIClient(enforce_csrf_checks=True)
    session.force_login(study.owner)
    response = session.post(f"/api/v1/studies/{study.pk}/{address}/", b"",
                            content_type="multipart/form-data; boundary=x", CONTENT_LENGTH=str(10**10))
    assert response.status_code == 413 and "larger than the limit" in response.json()["detail"]

"""The pool's panel page, its signed-links page and API, the exports' panel column, and a Prolific launch
beside a URL-panel pool: the owner, an editor, a viewer and a researcher of another study."""

import pytest
from django.urls import reverse

from recruitment.services import LaunchOptions, RecruitmentRefused, prolific_studies_launch, prolific_study_launch
from studies.models import PoolPanel
from studies.panel_services import pool_panel_set
from tests import factories as f
from tests.helpers import login

DONE = "https://connect.example/complete?pid={participant_id}"
FORM = {"kind": "url", "name": "CloudResearch Connect", "participant_param": "pid", "study_param": "",
        "session_param": "", "verification": "signed", "url_completed": DONE, "url_screened_out": "",
        "url_no_consent": "", "url_failed_checks": "", "url_returned": ""}


def panel_url(pool, name="pool-panel"):
    return reverse(f"studies:{name}", args=[pool.study_id, pool.pk])


@pytest.fixture
def on_panel(pool):
    return pool_panel_set(pool=pool, **FORM)


def test_the_owner_sets_a_url_panel(client, owner, pool):
    login(client, owner)
    response = client.post(panel_url(pool), FORM)
    assert response.status_code == 302
    panel = PoolPanel.objects.get(pool=pool)
    assert panel.is_url and panel.name == "CloudResearch Connect" and len(panel.secret) >= 40
    page = client.get(panel_url(pool)).content.decode()
    assert panel.secret in page  # the owner sees the secret
    assert "CloudResearch Connect" in client.get(reverse("studies:pool-list", args=[pool.study_id])).content.decode()


@pytest.mark.parametrize("bad, field", [
    ({"url_completed": "javascript:alert(1)"}, "url_completed"),
    ({"url_completed": ""}, "url_completed"),
    ({"url_screened_out": "https://x.example/{nope}"}, "url_screened_out"),
    ({"name": ""}, "name"),
    ({"participant_param": "bad name"}, "participant_param"),
    ({"participant_param": "token"}, "participant_param"),
])
def test_it_refuses_bad_settings_next_to_the_field(client, owner, pool, bad, field):
    login(client, owner)
    response = client.post(panel_url(pool), FORM | bad)
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert not PoolPanel.objects.exists()


def test_an_editor_may_change_the_panel_but_never_sees_the_secret(client, study, pool, on_panel):
    editor = f.make_member(study, "ed", "editor")
    login(client, editor)
    page = client.get(panel_url(pool)).content.decode()
    assert on_panel.secret not in page
    assert client.post(panel_url(pool, "pool-panel-secret")).status_code == 403
    assert client.post(panel_url(pool), FORM | {"name": "Besample"}).status_code == 302


def test_a_viewer_reads_but_cannot_change_or_make_links(client, study, pool, on_panel):
    viewer = f.make_member(study, "vi", "viewer")
    login(client, viewer)
    page = client.get(panel_url(pool))
    assert page.status_code == 200 and on_panel.secret not in page.content.decode()
    assert client.post(panel_url(pool), FORM | {"name": "X"}).status_code == 403
    assert client.post(panel_url(pool, "pool-panel-links"), {"ids": "a"}).status_code == 403


def test_a_researcher_of_another_study_sees_nothing(client, other_researcher, pool, on_panel):
    login(client, other_researcher)
    assert client.get(panel_url(pool)).status_code == 404
    assert client.post(panel_url(pool, "pool-panel-links"), {"ids": "a", "as": "csv"}).status_code == 404
    assert client.post(panel_url(pool, "pool-panel-secret")).status_code == 404
    response = client.post(f"/api/v1/studies/{pool.study_id}/pools/{pool.pk}/panel/links/", {"ids": ["a"]},
                           content_type="application/json")
    assert response.status_code == 404


def test_the_owner_downloads_signed_links_as_csv(client, owner, pool, on_panel):
    login(client, owner)
    response = client.post(panel_url(pool, "pool-panel-links"), {"ids": "a-1\nb-2", "as": "csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    lines = response.content.decode().splitlines()
    assert lines[0] == "participant_id,link" and len(lines) == 3 and "token=" in lines[1]
    assert on_panel.secret not in response.content.decode()


def test_the_links_page_refuses_a_bad_id(client, owner, pool, on_panel):
    login(client, owner)
    response = client.post(panel_url(pool, "pool-panel-links"), {"ids": "ok-1\nnot ok<"})
    assert response.status_code == 400 and "Not an id" in response.content.decode()


def test_renewing_the_secret_breaks_old_links(client, owner, pool, on_panel):
    login(client, owner)
    old = on_panel.secret
    assert client.post(panel_url(pool, "pool-panel-secret")).status_code == 302
    assert PoolPanel.objects.get(pool=pool).secret != old


def test_the_api_names_the_panel_and_makes_links(client, owner, pool, other_pool, on_panel):
    login(client, owner)
    pools = client.get(f"/api/v1/studies/{pool.study_id}/pools/").json()["results"]
    assert {p["country"]: p["panel"] for p in pools} == {"IN": "CloudResearch Connect", "JP": "Prolific"}
    response = client.post(f"/api/v1/studies/{pool.study_id}/pools/{pool.pk}/panel/links/", {"ids": ["a-1"]},
                           content_type="application/json")
    assert response.status_code == 200 and response.json()[0]["participant_id"] == "a-1"
    assert "secret" not in response.content.decode()
    response = client.post(f"/api/v1/studies/{pool.study_id}/pools/{other_pool.pk}/panel/links/",
                           {"ids": ["a-1"]}, content_type="application/json")
    assert response.status_code == 400


def test_a_prolific_launch_leaves_a_url_pool_out(fake_prolific, owner, study, pool, other_pool, items, on_panel):
    options = LaunchOptions(reward=150, estimated_minutes=10)
    results = prolific_studies_launch(study=study, user=owner, options=options)
    assert [r.prolific_study.pool for r in results] == [other_pool]
    with pytest.raises(RecruitmentRefused, match="CloudResearch Connect"):
        prolific_study_launch(pool=pool, user=owner, options=options)
    (named,) = prolific_studies_launch(study=study, user=owner, options=options, pools=[pool])
    assert not named.ok and "not Prolific" in named.error


def test_exports_record_each_pools_panel(owner, study, pool, other_pool, items, on_panel):
    from exports.rows import export_rows

    f.annotate_pool(pool, annotators=1)
    f.annotate_pool(other_pool, annotators=1)
    rows = [row for chunk in export_rows(study=study, max_id=10**9, chunk_size=100) for row in chunk]
    assert {(r.pool_country, r.panel) for r in rows} == {("IN", "CloudResearch Connect"), ("JP", "Prolific")}


def test_a_pool_on_prolific_stays_there(client, owner, pool):
    from recruitment.models import ProlificStudy

    ProlificStudy.objects.create(pool=pool, reference="ref-in", prolific_id="abc123", places=5, reward=100,
                                 currency="GBP", estimated_minutes=10)
    login(client, owner)
    response = client.post(panel_url(pool), FORM)
    assert response.status_code == 400 and "kind" in response.context["form"].errors
    assert not PoolPanel.objects.filter(kind="url").exists()


def api_panel(pool):
    return f"/api/v1/studies/{pool.study_id}/pools/{pool.pk}/panel/"


def test_the_api_sets_and_reads_a_pools_panel_never_its_secret(client, owner, pool):
    login(client, owner)
    assert client.get(api_panel(pool)).json()["kind"] == "prolific"  # never set: on Prolific
    response = client.put(api_panel(pool), {k: v for k, v in FORM.items() if v}, content_type="application/json")
    assert response.status_code == 200, response.content
    panel = PoolPanel.objects.get(pool=pool)
    assert response.json()["name"] == "CloudResearch Connect" and panel.is_url
    assert panel.secret not in response.content.decode() and "secret" not in response.json()
    response = client.put(api_panel(pool), {"verification": "none"}, content_type="application/json")
    assert response.status_code == 200 and response.json()["name"] == "CloudResearch Connect"  # the rest kept
    assert PoolPanel.objects.get(pool=pool).verification == "none"


@pytest.mark.parametrize("bad, field", [
    ({"url_completed": "javascript:alert(1)"}, "url_completed"),
    ({"participant_param": "bad name"}, "participant_param"),
    ({"kind": "carrier-pigeon"}, "kind"),
    ({"secret": "mine"}, "secret"),
])
def test_the_api_refuses_bad_settings_naming_the_field_and_changes_nothing(client, owner, pool, bad, field):
    login(client, owner)
    response = client.put(api_panel(pool), FORM | bad, content_type="application/json")
    assert response.status_code == 400 and field in response.json(), response.content
    assert not PoolPanel.objects.exists()


def test_the_api_keeps_a_pool_on_prolific_and_refuses_others(client, owner, other_researcher, study, pool):
    from recruitment.models import ProlificStudy

    viewer = f.make_member(study, "vi", "viewer")
    login(client, viewer)
    assert client.get(api_panel(pool)).status_code == 200
    assert client.put(api_panel(pool), FORM, content_type="application/json").status_code == 403
    login(client, other_researcher)
    assert client.get(api_panel(pool)).status_code == 404
    ProlificStudy.objects.create(pool=pool, reference="ref-in", prolific_id="abc123", places=5, reward=100,
                                 currency="GBP", estimated_minutes=10)
    login(client, owner)
    response = client.put(api_panel(pool), FORM, content_type="application/json")
    assert response.status_code == 400 and "stays on Prolific" in response.json()["kind"][0]
    assert not PoolPanel.objects.exists()

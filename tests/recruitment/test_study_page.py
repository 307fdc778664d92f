"""A study's pools on Prolific (/prolific/studies/<pk>/): the owner launches, previews and moves
them; another researcher and a visitor reach nothing, and nothing is sent to Prolific for them."""

import re

import pytest
from django.test import Client

from recruitment.models import ProlificStudy
from recruitment.services import LaunchOptions, prolific_study_launch

from .. import factories as f

LAUNCH = {"reward": "1.50", "minutes": "10", "devices": ["desktop"], "filters": "Nationality"}


def page(study):
    return f"/prolific/studies/{study.pk}/"


def logged_in(user) -> Client:
    client = Client()
    client.login(username=user.username, password=f.PASSWORD)
    return client


@pytest.fixture
def drafts(fake_prolific, owner, pool, other_pool, items):
    options = LaunchOptions(reward=150, estimated_minutes=10)
    return [prolific_study_launch(pool=p, user=owner, options=options).prolific_study for p in (pool, other_pool)]


def test_the_owner_sees_every_pool(fake_prolific, owner, study, pool, other_pool, items, django_assert_max_num_queries):
    client = logged_in(owner)
    with django_assert_max_num_queries(14):  # 12, and the launch form's round choices: groups, earlier studies
        response = client.get(page(study))
    assert response.status_code == 200
    body = response.content.decode()
    assert "India" in body and "Japan" in body and body.count("Not created") == 2
    assert "Create the drafts on Prolific" in body and "No Prolific token" not in body
    assert fake_prolific.requests == []  # the page itself asks Prolific nothing


def test_a_visitor_is_sent_to_log_in(fake_prolific, study, pool):
    for response in (Client().get(page(study)), Client().post(f"{page(study)}launch/", LAUNCH)):
        assert response.status_code == 302 and response.url.startswith("/login/")


def test_another_researcher_reaches_nothing(fake_prolific, other_researcher, study, drafts):
    client = logged_in(other_researcher)
    pool = drafts[0].pool
    calls_before = len(fake_prolific.requests)
    assert client.get(page(study)).status_code == 404
    assert client.post(f"{page(study)}launch/", LAUNCH).status_code == 404
    assert client.post(f"{page(study)}publish/", {"pool": pool.pk}).status_code == 404
    assert client.get(f"{page(study)}pools/{pool.pk}/preview/").status_code == 404
    assert len(fake_prolific.requests) == calls_before
    assert {s["status"] for s in fake_prolific.studies.values()} == {"UNPUBLISHED"}


def test_a_pool_of_another_study_is_not_found(fake_prolific, owner, other_researcher, study, drafts):
    elsewhere = f.make_pool(f.make_study(owner, name="Another"), "KE", "Kenya")
    client = logged_in(owner)
    assert client.post(f"{page(study)}publish/", {"pool": elsewhere.pk}).status_code == 404
    assert client.get(f"{page(study)}pools/{elsewhere.pk}/preview/").status_code == 404


def test_launch_creates_the_drafts(fake_prolific, owner, study, pool, other_pool, items):
    response = logged_in(owner).post(f"{page(study)}launch/", LAUNCH, follow=True)
    assert b"Created as Prolific drafts: India, Japan" in response.content
    rows = ProlificStudy.objects.order_by("pool__country")
    assert [(r.pool.country, r.status, r.reward) for r in rows] == [
        ("IN", "UNPUBLISHED", 150), ("JP", "UNPUBLISHED", 150)
    ]
    assert fake_prolific.calls("POST", "studies/")[0].body["filters"][1] == {
        "filter_id": "nationality-2023", "selected_values": ["40"]
    }


def test_a_form_with_mistakes_is_shown_again(fake_prolific, owner, study, pool, items):
    response = logged_in(owner).post(f"{page(study)}launch/", {**LAUNCH, "reward": "", "filters": "=Hindi"})
    assert response.status_code == 400
    assert b"This field is required" in response.content and b"names no filter" in response.content
    assert fake_prolific.requests == []


def test_a_refused_launch_says_why(fake_prolific, owner, study, pool, items):
    response = logged_in(owner).post(f"{page(study)}launch/", {**LAUNCH, "reward": "0.10"})
    assert response.status_code == 400 and b"under Prolific&#x27;s minimum of \xc2\xa36.00 per hour" in response.content
    assert not ProlificStudy.objects.exists()


def test_prolific_refusing_a_body_is_shown_with_its_pool(fake_prolific, owner, study, pool, items):
    fake_prolific.fail_next("POST", "studies/", 400)
    response = logged_in(owner).post(f"{page(study)}launch/", LAUNCH, follow=True)
    assert b"Not launched: India: Prolific refused POST studies/ (400)" in response.content
    assert b"Created as Prolific drafts: Japan" in response.content  # the next pool launched all the same


def test_without_a_token_the_page_says_so(fake_prolific, no_deployment_token, owner, study, pool, items):
    client = logged_in(owner)
    text = client.get(page(study)).content.decode()
    assert "No Prolific token" in text
    # every launch button is off, the pool's own too
    assert re.search(r'name="pool" value="\d+" class="primary" disabled>Launch IN', text)
    response = client.post(f"{page(study)}launch/", LAUNCH)
    assert response.status_code == 400 and b"No Prolific token: add yours" in response.content
    assert fake_prolific.requests == []


def test_a_plain_http_site_turns_launching_off(fake_prolific, settings, owner, study, pool, items):
    settings.PROLIFIC_API_URL = "https://api.prolific.com/api/v1/"
    settings.SITE_URL = "http://tessera.example.org"
    body = logged_in(owner).get(page(study)).content.decode()
    assert "Launching is off: SITE_URL is http://tessera.example.org" in body and "disabled" in body


def test_publish_one_pool_then_every_pool(fake_prolific, owner, study, drafts):
    client = logged_in(owner)
    india, japan = drafts
    response = client.post(f"{page(study)}publish/", {"pool": india.pool.pk}, follow=True)
    assert b"India: Active" in response.content
    assert fake_prolific.studies[india.prolific_id]["status"] == "ACTIVE"
    assert fake_prolific.studies[japan.prolific_id]["status"] == "UNPUBLISHED"
    response = client.post(f"{page(study)}pause/", follow=True)  # every pool: Japan is a draft, refused
    assert b"India: Paused" in response.content and b"Japan: Prolific refused" in response.content
    assert client.post(f"{page(study)}delete/").status_code == 404


def test_the_preview_fragment(fake_prolific, owner, study, drafts):
    url = f"{page(study)}pools/{drafts[0].pool.pk}/preview/"
    response = logged_in(owner).get(url)
    assert b"6000 eligible participants" in response.content and b"\xc2\xa34.00" in response.content
    fake_prolific.fail_next("POST", "eligibility-count/", 401)
    response = logged_in(owner).get(url)
    assert b"6000 eligible participants" in response.content  # the count is cached: Prolific not asked again
    assert len(fake_prolific.calls("POST", "eligibility-count/")) == 1


def test_a_failed_count_leaves_the_cost_shown_and_a_failed_cost_the_count(fake_prolific, owner, study, drafts):
    from django.core.cache import cache

    url = f"{page(study)}pools/{drafts[0].pool.pk}/preview/"
    fake_prolific.fail_next("POST", "eligibility-count/", 400, {"filters": ["Unknown filter_id."]})
    text = logged_in(owner).get(url).content.decode()
    assert "Eligible participants: Prolific could not be asked" in text
    assert "Rewards £3.00; with Prolific's fees £4.00" in text  # the cost, all the same
    cache.clear()
    fake_prolific.fail_next("GET", r"studies/[0-9a-f]{24}/", 503, times=2)
    text = logged_in(owner).get(url).content.decode()
    assert "6000 eligible participants" in text
    assert "with Prolific's fees £4.00" in text and "this is the last it gave" in text

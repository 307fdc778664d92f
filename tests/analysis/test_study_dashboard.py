"""The study dashboard: progress per pool, entry links, scoped to the study's owner."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotator, Assignment
from studies.models import ItemQuota
from tests import factories as f
from tests.annotations import annotate, annotators


def url(study):
    return reverse("analysis:study-dashboard", args=[study.pk])


def lease(annotator, item, *, minutes_left):
    now = timezone.now()
    session = f.make_session(annotator)
    return Assignment.objects.create(
        session=session, annotator=annotator, item=item, pool=annotator.pool, position=1,
        leased_at=now - timedelta(minutes=5), expires_at=now + timedelta(minutes=minutes_left),
    )  # fmt: skip


@pytest.fixture
def busy(study, pool, other_pool, items):
    a, b = annotators(pool, 2)
    annotate(a, items[0])
    annotate(b, items[0])
    annotate(a, items[1])
    ItemQuota.objects.filter(item=items[0], pool=pool).update(done=2)
    ItemQuota.objects.filter(item=items[1], pool=pool).update(done=1)
    lease(f.make_annotator(pool), items[2], minutes_left=10)
    lease(f.make_annotator(pool), items[1], minutes_left=-1)  # expired, not yet swept: not leased now
    for outcome in ("not_eligible", "not_eligible", "failed_mock", "no_consent"):
        Annotator.objects.filter(pk=f.make_annotator(pool, onboarded=False).pk).update(outcome=outcome)
    Annotator.objects.filter(pk=f.make_annotator(other_pool, onboarded=False).pk).update(outcome="failed_mock")
    pool.min_distinct_annotators = 20
    pool.save()
    return study


def test_it_shows_progress_per_pool(client, owner, busy, pool, other_pool):
    client.force_login(owner)
    response = client.get(url(busy))
    assert response.status_code == 200
    rows = {row.pool.country: row for row in response.context["pools"]}
    india, japan = rows["IN"], rows["JP"]
    assert (india.items, india.wanted, india.done, india.percent) == (3, 9, 3, 33)
    assert india.leased_now == 1
    assert india.annotators_active == 2
    assert (india.not_eligible, india.failed_mock, india.no_consent) == (2, 1, 1)
    assert (japan.items, japan.wanted, japan.done, japan.annotators_active, japan.failed_mock) == (2, 6, 0, 0, 1)
    html = response.content.decode()
    assert busy.name in html and "Open" in html
    assert "3 / 9 (33%)" in html
    assert "(≥ 20)" in html
    assert reverse("analysis:analysis", args=[busy.pk]) in html
    assert reverse("studies:study-settings", args=[busy.pk]) in html
    assert reverse("studies:pool-list", args=[busy.pk]) in html


def test_it_gives_the_prolific_entry_link_of_each_pool(client, owner, study, pool, other_pool, settings):
    settings.SITE_URL = "https://tessera.example.org"
    client.force_login(owner)
    html = client.get(url(study)).content.decode()
    for p in (pool, other_pool):
        link = (
            f"https://tessera.example.org/join/{p.entry_key}/"
            "?PROLIFIC_PID={{%PROLIFIC_PID%}}&amp;STUDY_ID={{%STUDY_ID%}}&amp;SESSION_ID={{%SESSION_ID%}}"
        )
        assert link in html


def test_it_keeps_a_fixed_number_of_queries(client, owner, busy, django_assert_max_num_queries):
    client.force_login(owner)
    with django_assert_max_num_queries(9):
        assert client.get(url(busy)).status_code == 200
    for country in ("FR", "DE", "BR", "KE"):
        extra = f.make_pool(busy, country, country)
        raters = annotators(extra, 2)
        for item in f.make_items(busy, country, 3):
            annotate(raters[0], item)
    with django_assert_max_num_queries(9):
        response = client.get(url(busy))
    assert len(response.context["pools"]) == 6


def test_it_says_when_there_is_no_pool(client, owner, study):
    client.force_login(owner)
    assert "no country pool yet" in client.get(url(study)).content.decode()


def test_it_refuses_another_researchers_study(client, other_researcher, study):
    client.force_login(other_researcher)
    assert client.get(url(study)).status_code == 404


def test_it_sends_an_anonymous_visitor_to_login(client, study):
    response = client.get(url(study))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_dashboard_leads_to_the_studys_prolific_page(client, owner, study, pool):
    client.force_login(owner)
    html = client.get(url(study)).content.decode()
    assert f'href="{reverse("recruitment:study-prolific", args=[study.pk])}"' in html
    assert f'href="{reverse("recruitment:token-settings")}"' in html  # the account menu's Prolific settings

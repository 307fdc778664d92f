"""The study dashboard: progress per pool, entry links, scoped to the study's owner."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from analysis.dashboard import PoolProgress, median_of_counts, progress_plot, progress_points
from annotation.models import Annotation, Annotator, Assignment, Session
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


def test_a_url_panels_pool_gets_its_own_link_never_prolifics(client, owner, study, pool, other_pool, settings):
    """A signed panel has no one link (its page makes one per participant); an unsigned one has its
    shared link with the panel's parameters; the Prolific pool beside them is unchanged."""
    from studies.panel_services import pool_panel_set

    settings.SITE_URL = "https://tessera.example.org"
    common = {"kind": "url", "participant_param": "pid", "study_param": "", "session_param": "",
              "url_completed": "https://panel.example/done?c={code}"}
    pool_panel_set(pool=pool, name="SONA", verification="signed", **common)
    client.force_login(owner)
    html = client.get(url(study)).content.decode()
    assert f"/join/{pool.entry_key}/?PROLIFIC_PID" not in html
    assert reverse("studies:pool-panel-links", args=[study.pk, pool.pk]) in html and "SONA: signed links" in html
    assert f"/join/{other_pool.entry_key}/?PROLIFIC_PID=" in html  # the Prolific pool
    pool_panel_set(pool=pool, name="SONA", verification="none", **common)
    html = client.get(url(study)).content.decode()
    assert f"https://tessera.example.org/join/{pool.entry_key}/?pid=PARTICIPANT_ID" in html
    assert "PROLIFIC_PID" not in html.split(f"/join/{pool.entry_key}/")[1].split('"')[0]


# The login's session and user, the study, its pools, quotas, leases, annotations, annotators,
# sessions, times per second, annotations per hour, the latest run.
DASHBOARD_QUERIES = 12


def test_it_keeps_a_fixed_number_of_queries(client, owner, busy, django_assert_num_queries):
    client.force_login(owner)
    with django_assert_num_queries(DASHBOARD_QUERIES):
        assert client.get(url(busy)).status_code == 200
    for country in ("FR", "DE", "BR", "KE"):
        extra = f.make_pool(busy, country, country)
        raters = annotators(extra, 2)
        for item in f.make_items(busy, country, 3):
            annotate(raters[0], item)
    with django_assert_num_queries(DASHBOARD_QUERIES):
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


def progress_url(study):
    return reverse("analysis:study-progress", args=[study.pk])


@pytest.fixture
def paced(study, pool, other_pool, items):
    """India: three annotations in the last hour (30, 60 and 90 s), one two hours ago (600 s), one
    surplus (not counted); a completed session, a returned one, a blocked annotator."""
    a, b, c = annotators(pool, 3)
    now = timezone.now()
    for annotator, item, seconds in ((a, items[0], 30), (b, items[0], 60), (a, items[1], 90), (c, items[2], 600)):
        annotate(annotator, item, time_spent_ms=seconds * 1000)
    Annotation.objects.filter(annotator=c).update(submitted_at=now - timedelta(hours=2))
    annotate(c, items[1], time_spent_ms=5_000, surplus=True)
    ItemQuota.objects.filter(item=items[0], pool=pool).update(done=2)
    ItemQuota.objects.filter(item__in=items[1:3], pool=pool).update(done=1)
    Session.objects.filter(annotator=a).update(completed_at=now)
    Session.objects.filter(annotator=b).update(released_at=now)
    Annotator.objects.filter(pk=c.pk).update(blocked_at=now)
    return study


def test_it_shows_the_pace_sessions_and_gates_of_each_pool(client, owner, paced, pool, other_pool):
    client.force_login(owner)
    response = client.get(progress_url(paced))
    assert response.status_code == 200
    rows = {row.pool.country: row for row in response.context["pools"]}
    india, japan = rows["IN"], rows["JP"]
    assert (india.done, india.wanted, india.remaining) == (4, 9, 5)
    assert (india.sessions_started, india.sessions_completed, india.sessions_released) == (3, 1, 1)
    assert india.blocked == 1
    assert india.last_hour == 3
    assert india.median_seconds == 60  # of 30, 60, 90 and 600 s: the surplus annotation is left out
    # 5 left at 3 an hour: 100 minutes from now
    assert abs((india.finish_eta - india.now) - timedelta(minutes=100)) < timedelta(seconds=1)
    assert sum(n for _, n in india.hourly) == 4
    assert (japan.done, japan.last_hour, japan.median_seconds, japan.finish_eta) == (0, 0, None, None)
    html = response.content.decode()
    assert 'hx-trigger="every 10s' in html and "4 / 9 (44%)" in html
    assert "<svg" in html and "Progress over time in India" in html
    assert "Japan: nothing done yet." in html


def test_the_progress_plot_runs_up_to_what_is_done_now(pool):
    now = timezone.now().replace(minute=30)
    hour = now.replace(minute=0, second=0, microsecond=0)
    row = PoolProgress(pool=pool, entry_link="", wanted=20, done=10, now=now,
                       hourly=[(hour - timedelta(hours=5), 2), (hour - timedelta(hours=1), 3), (hour, 1)])
    points = progress_points(row)
    assert len(points) == 48 and [p.label for p in points[-2:]] == ["−1h", "now"]
    values = {p.label: p.value for p in points}
    # 10 done now; 1 of them this hour, 3 the hour before, 2 five hours ago: 4 were done before that
    shown = [values[label] for label in ("now", "−1h", "−2h", "−4h", "−5h", "−6h")]
    assert shown == [10, 9, 6, 6, 6, 4]
    assert values["−47h"] == 4
    assert points[-2].hover.endswith("9 of 20 done (+3 in that hour)")
    assert "Progress over time in India" in progress_plot(row)
    assert progress_plot(PoolProgress(pool=pool, entry_link="", wanted=20, done=0, now=now)) == ""


def test_a_pool_that_is_full_says_done(client, owner, study, pool, items):
    ItemQuota.objects.filter(pool=pool).update(done=3)
    client.force_login(owner)
    row = client.get(progress_url(study)).context["pools"][0]
    assert row.remaining == 0 and row.finish_eta is None


def test_the_median_of_counts_is_the_lower_middle():
    assert median_of_counts({}) is None
    assert median_of_counts({30: 1, 60: 1, 90: 1}) == 60
    assert median_of_counts({30: 1, 60: 1, 90: 1, 600: 1}) == 60
    assert median_of_counts({5: 10, 100: 1}) == 5


def test_the_fragment_keeps_a_fixed_number_of_queries(client, owner, paced, django_assert_num_queries):
    client.force_login(owner)
    # the dashboard's queries but the latest run
    with django_assert_num_queries(DASHBOARD_QUERIES - 1):
        assert client.get(progress_url(paced)).status_code == 200
    for country in ("FR", "DE", "BR"):
        extra = f.make_pool(paced, country, country)
        for item in f.make_items(paced, country, 4):
            for rater in annotators(extra, 2):
                annotate(rater, item, time_spent_ms=20_000)
    with django_assert_num_queries(DASHBOARD_QUERIES - 1):
        response = client.get(progress_url(paced))
    assert len(response.context["pools"]) == 5


def test_the_fragment_refuses_another_researcher_a_checker_and_an_anonymous_visitor(
    client, other_researcher, checker, study
):
    response = client.get(progress_url(study))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    for user in (other_researcher, checker):
        client.force_login(user)
        assert client.get(progress_url(study)).status_code == 404
        assert client.get(url(study)).status_code == 404

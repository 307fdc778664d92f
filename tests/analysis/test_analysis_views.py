"""The analysis page, its start button and its polled status fragment."""

import re
import xml.etree.ElementTree as ET
from html import escape

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from tests import factories as f
from tests.annotations import annotate, rate_mostly_alike


def page(study):
    return reverse("analysis:analysis", args=[study.pk])


def status(study, run):
    return reverse("analysis:analysis-status", args=[study.pk, run.pk])


@pytest.fixture
def rated(study, pool, other_pool, items):
    """Three annotators of India rate its three items, mostly alike."""
    rate_mostly_alike(pool, items[:3])
    return study


def start(client, study, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(page(study))
    assert response.status_code == 302 and response["Location"] == page(study)
    return AnalysisRun.objects.filter(study=study).latest("id")


def test_it_says_when_nothing_was_analysed(client, owner, rated):
    client.force_login(owner)
    html = client.get(page(rated)).content.decode()
    assert "No analysis has been run yet." in html
    assert "Run the analysis on the current data first." in html
    assert reverse("exports:export-start", args=[rated.pk]) not in html


def test_it_starts_a_run_and_shows_the_results(client, owner, rated, django_capture_on_commit_callbacks):
    client.force_login(owner)
    run = start(client, rated, django_capture_on_commit_callbacks)
    assert run.status == AnalysisRun.Status.DONE, run.error
    html = client.get(page(rated)).content.decode()
    alignment = next(x for x in run.result["fields"] if x["key"] == "alignment")
    assert f"{alignment['overall']['alpha']:.3f}" in html
    assert "All pools" in html and "India" in html and "Japan" in html
    assert "ordinal" in html and "nominal" in html
    assert "no variation" in html  # stereotype: everyone said no
    assert "fewer than 2 units" in html  # Japan has no annotation
    assert 'hx-trigger="every 1s"' not in html
    assert reverse("exports:export-start", args=[rated.pk]) in html  # data is current: export offered
    assert "stale" not in html


def test_it_polls_while_a_run_is_queued_or_running(client, owner, rated):
    client.force_login(owner)
    queued = AnalysisRun.objects.create(study=rated)
    html = client.get(page(rated)).content.decode()
    assert f'hx-get="{status(rated, queued)}" hx-trigger="every 1s"' in html
    assert "waiting for a worker" in html
    AnalysisRun.objects.filter(pk=queued.pk).update(status="running", progress=40)
    fragment = client.get(status(rated, queued)).content.decode()
    assert 'hx-trigger="every 1s"' in fragment
    assert re.search(r'<progress id="analysis-progress-\d+" max="100" value="40">', fragment)
    assert 'role="status"' in fragment
    assert 'id="export-panel"' not in fragment


def test_it_stops_polling_when_the_run_is_done(client, owner, rated):
    client.force_login(owner)
    run = AnalysisRun.objects.create(study=rated)
    analysis_run(run_id=run.pk)
    fragment = client.get(status(rated, run)).content.decode()
    assert "hx-trigger" not in fragment
    assert "All pools" in fragment
    # The export panel is refreshed out of band: the export button appears without a reload.
    assert 'id="export-panel" class="card" aria-labelledby="export-heading" hx-swap-oob="true"' in fragment
    assert reverse("exports:export-start", args=[rated.pk]) in fragment


def test_it_shows_a_failure_in_plain_words(client, owner, rated):
    client.force_login(owner)
    run = AnalysisRun.objects.create(
        study=rated, status="failed", error="The job queue is unreachable: connection refused"
    )
    html = client.get(status(rated, run)).content.decode()
    assert "failed" in html and "The job queue is unreachable: connection refused" in html
    assert "hx-trigger" not in html


def test_it_marks_a_run_stale_after_new_annotations(
    client, owner, rated, pool, items, django_capture_on_commit_callbacks
):
    client.force_login(owner)
    start(client, rated, django_capture_on_commit_callbacks)
    late = f.make_annotator(pool)
    annotate(late, items[0])
    annotate(late, items[1])
    html = client.get(page(rated)).content.decode()
    assert "stale: 2 new annotations since this analysis" in html
    assert reverse("exports:export-start", args=[rated.pk]) not in html
    assert "2 new annotations since the last analysis" in html


def test_it_refuses_another_researchers_study(client, other_researcher, owner, rated):
    run = AnalysisRun.objects.create(study=rated)
    client.force_login(other_researcher)
    assert client.get(page(rated)).status_code == 404
    assert client.post(page(rated)).status_code == 404
    assert client.get(status(rated, run)).status_code == 404
    assert AnalysisRun.objects.count() == 1


def test_it_refuses_a_run_of_another_study(client, owner, other_researcher, rated):
    theirs = f.make_study(other_researcher, name="Theirs")
    their_run = AnalysisRun.objects.create(study=theirs)
    client.force_login(owner)
    assert client.get(status(rated, their_run)).status_code == 404


def test_it_sends_an_anonymous_visitor_to_login(client, rated):
    run = AnalysisRun.objects.create(study=rated)
    for response in (client.get(page(rated)), client.post(page(rated)), client.get(status(rated, run))):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    assert AnalysisRun.objects.count() == 1


# --- plots, and the sections a finished run's poll swaps in -----------------------------------

SVG = re.compile(r"<svg\b.*?</svg>", re.S)
OOB_REPORTS = '<section id="reports" class="card" aria-labelledby="reports-heading" hx-swap-oob="true">'
OOB_METRICS = '<section class="card" id="metrics" aria-labelledby="metrics-heading" hx-swap-oob="true">'


def plot_titles(html: str) -> list[str]:
    """The title of every plot on the page, each plot parsed as XML (so it is well-formed)."""
    titles = []
    for svg in SVG.findall(html):
        root = ET.fromstring(svg)
        assert root.get("role") == "img"
        titles.append(root.find("{http://www.w3.org/2000/svg}title").text)
    return titles


def test_a_finished_run_shows_a_plot_above_each_table(client, owner, rated):
    client.force_login(owner)
    run = analysis_run(run_id=AnalysisRun.objects.create(study=rated).pk)
    html = client.get(page(rated)).content.decode()
    titles = plot_titles(html)
    alignment = "Krippendorff's alpha of Does the image match the prompt? (alignment), ordinal level"
    assert alignment in titles
    assert not any("(stereotype)" in t for t in titles)  # no variation anywhere: the table says so, no plot
    for report in ("Sub-perfect alignment ratings by error type", "Most highlighted words: All countries",
                   "Human scores of IN"):
        assert report in titles
    # The agreement plot sits between the field's title and its table, and shows each pool's alpha.
    plot = html.index(f"<title>{escape(alignment)}</title>")
    title = html.rindex('class="exports-field-title"', 0, plot)
    assert title < plot < html.index('<table class="exports-alpha">', plot)
    alpha = next(x for x in run.result["fields"] if x["key"] == "alignment")["overall"]["alpha"]
    assert f"All pools: α = {alpha:.3f}".replace("-", "−") in html
    # Japan's pool has no annotation: its row is a labelled gap
    assert "<title>Japan: undefined (fewer than 2 units were rated by at least 2 annotators)</title>" in html


def test_the_status_of_a_finished_run_swaps_in_the_reports_and_metrics(
    client, owner, rated, django_assert_num_queries
):
    client.force_login(owner)
    run = AnalysisRun.objects.create(study=rated)
    analysis_run(run_id=run.pk)
    with django_assert_num_queries(8):
        fragment = client.get(status(rated, run)).content.decode()
    assert OOB_REPORTS in fragment and OOB_METRICS in fragment
    reports = fragment[fragment.index(OOB_REPORTS):fragment.index(OOB_METRICS)]
    assert "What the protocol reports" in reports
    assert "Sub-perfect alignment ratings by error type" in plot_titles(reports)
    assert 'id="export-panel" class="card" aria-labelledby="export-heading" hx-swap-oob="true"' in fragment


def test_the_status_of_an_active_run_swaps_in_nothing_else(client, owner, rated):
    client.force_login(owner)
    run = AnalysisRun.objects.create(study=rated)
    html = client.get(page(rated)).content.decode()
    assert '<section id="reports" hidden>' in html  # the target the finished run's poll will fill
    for state in ("queued", "running"):
        AnalysisRun.objects.filter(pk=run.pk).update(status=state)
        fragment = client.get(status(rated, run)).content.decode()
        assert "hx-swap-oob" not in fragment
        assert 'id="reports"' not in fragment and 'id="metrics"' not in fragment and "<svg" not in fragment


def test_a_failed_run_clears_the_reports_out_of_band(client, owner, rated):
    client.force_login(owner)
    run = AnalysisRun.objects.create(study=rated, status="failed", error="boom")
    fragment = client.get(status(rated, run)).content.decode()
    assert '<section id="reports" hidden hx-swap-oob="true">' in fragment and OOB_METRICS in fragment
    assert "What the protocol reports" not in fragment


def test_a_plot_that_cannot_be_drawn_leaves_its_table(caplog):
    field = {"key": "x", "label": "X", "level": "nominal", "type": "choice", "pools": [], "by": {},
             "overall": {"alpha": "not a number", "n_units": 3, "n_ratings": 6}}
    html = render_to_string("analysis/_field_alpha.html", {"f": field})
    assert "<svg" not in html
    assert '<table class="exports-alpha">' in html and '<td class="num">6</td>' in html
    assert "the field_alpha plot could not be drawn" in caplog.text

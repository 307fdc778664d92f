"""The whole result of a run as one JSON document: a download, scoped like the page."""

import json

import pytest
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from tests import factories as f
from tests.annotations import annotate, annotators


@pytest.fixture
def done(study, pool, items, owner):
    for n, item in enumerate(items[:2]):
        for rater in annotators(pool, 2):
            annotate(rater, item, overall=n + 1)
    return analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)


def url(study, run):
    return reverse("analysis:analysis-result", args=[study.pk, run.pk])


def test_the_owner_downloads_the_stored_result_as_json(client, owner, study, done):
    client.force_login(owner)
    response = client.get(url(study, done))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    filename = f'{study.name.lower().replace(" ", "-")}-{study.pk}-analysis-{done.pk}.json'
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert json.loads(response.content) == done.result
    assert done.result["annotations"] == 4


def test_the_page_links_to_it(client, owner, study, done):
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert url(study, done) in html


def test_a_run_still_going_has_no_result_yet(client, owner, study):
    run = AnalysisRun.objects.create(study=study, requested_by=owner)
    client.force_login(owner)
    response = client.get(url(study, run))
    assert response.status_code == 409 and "queued" in response.json()["error"]


def test_another_researcher_gets_404(client, other_researcher, study, done):
    client.force_login(other_researcher)
    assert client.get(url(study, done)).status_code == 404


def test_a_run_of_another_study_gets_404(client, owner, study, done):
    other = f.make_study(owner, name="Another study")
    client.force_login(owner)
    assert client.get(reverse("analysis:analysis-result", args=[other.pk, done.pk])).status_code == 404


def test_anonymous_is_sent_to_log_in(client, study, done):
    response = client.get(url(study, done))
    assert response.status_code == 302 and "/login/" in response["Location"]

"""Queueing jobs: an unreachable broker fails the job with a clear error, never silently."""

from unittest import mock

import pytest
from django.urls import reverse
from kombu.exceptions import OperationalError

from analysis import tasks as analysis_tasks
from analysis.models import AnalysisRun
from analysis.services import analysis_run, analysis_start
from exports import tasks as export_tasks
from exports.models import ExportJob
from exports.services import export_start
from tests.annotations import annotate, annotators

REFUSED = OperationalError("Error 111 connecting to redis:6379. Connection refused.")


@pytest.fixture
def rated(study, pool, items):
    for rater in annotators(pool, 2):
        annotate(rater, items[0])
    return study


def test_it_fails_the_run_when_the_queue_is_unreachable(rated, owner, django_capture_on_commit_callbacks):
    with (
        mock.patch.object(analysis_tasks.analysis_run_task, "delay", side_effect=REFUSED) as delay,
        django_capture_on_commit_callbacks(execute=True),
    ):
        run = analysis_start(study=rated, user=owner)
    delay.assert_called_once_with(run.pk)
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.FAILED
    assert run.error == "The job queue is unreachable: Error 111 connecting to redis:6379. Connection refused."
    assert run.finished_at is not None


def test_it_fails_the_export_when_the_queue_is_unreachable(rated, owner, django_capture_on_commit_callbacks):
    analysis_run(run_id=AnalysisRun.objects.create(study=rated).pk)
    with (
        mock.patch.object(export_tasks.export_build_task, "delay", side_effect=REFUSED),
        django_capture_on_commit_callbacks(execute=True),
    ):
        job = export_start(study=rated, user=owner)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED
    assert job.error.startswith("The job queue is unreachable: ")
    assert not job.file


def test_it_shows_the_unreachable_queue_on_the_page(client, rated, owner, django_capture_on_commit_callbacks):
    client.force_login(owner)
    with (
        mock.patch.object(analysis_tasks.analysis_run_task, "delay", side_effect=REFUSED),
        django_capture_on_commit_callbacks(execute=True),
    ):
        client.post(reverse("analysis:analysis", args=[rated.pk]))
    html = client.get(reverse("analysis:analysis", args=[rated.pk])).content.decode()
    assert "The job queue is unreachable: Error 111" in html


def test_it_publishes_only_after_commit(rated, owner, django_capture_on_commit_callbacks):
    with mock.patch.object(analysis_tasks.analysis_run_task, "delay") as delay:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            analysis_start(study=rated, user=owner)
        delay.assert_not_called()
        assert len(callbacks) == 1


def test_its_tasks_call_the_services(rated):
    run = AnalysisRun.objects.create(study=rated)
    analysis_tasks.analysis_run_task.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE

"""The configuration CI's second stage runs: the suite is on the database DATABASE_URL names, and
a real Celery worker on CELERY_BROKER_URL works on that same test database.

The worker cases run only with CELERY_WORKER_RUNNING=1 (.ci/run starts the worker with
DATABASE_URL pointing at the `test_` database pytest-django creates).
"""

import os
import time

import dj_database_url
import pytest
from django.conf import settings
from django.db import connection

from analysis.models import AnalysisRun
from config.celery import app
from studies.services import preset_load, researcher_create, study_create

needs_worker = pytest.mark.skipif(
    os.environ.get("CELERY_WORKER_RUNNING") != "1",
    reason="needs a real Celery worker on CELERY_BROKER_URL (set CELERY_WORKER_RUNNING=1; CI starts one)",
)


def test_the_suite_runs_on_the_database_that_database_url_names(db):
    url = os.environ.get("DATABASE_URL")
    if not url:
        assert connection.vendor == "sqlite"
        return
    expected = dj_database_url.parse(url)

    assert connection.settings_dict["ENGINE"] == expected["ENGINE"]
    if connection.vendor != "sqlite":
        assert connection.settings_dict["NAME"] == "test_" + expected["NAME"]


@pytest.mark.celery_worker
@needs_worker
def test_a_worker_answers_on_the_broker():
    assert settings.CELERY_BROKER_URL, "CELERY_WORKER_RUNNING=1 needs CELERY_BROKER_URL"

    replies = app.control.ping(timeout=5)

    assert replies, f"no worker answered on {settings.CELERY_BROKER_URL}"


@pytest.mark.celery_worker
@needs_worker
def test_a_worker_runs_a_job_on_the_test_database(transactional_db):
    owner = researcher_create(username="worker-check", password="pass-for-tests-1")
    study = study_create(owner=owner, name="Worker check", protocol=preset_load("culturalframes-rating"))
    run = AnalysisRun.objects.create(study=study, requested_by=owner)

    # By name, as a web process publishes it: the worker runs the task on its own database.
    app.send_task("analysis.tasks.analysis_run_task", args=[run.pk])

    deadline = time.monotonic() + 30
    while run.status in (AnalysisRun.Status.QUEUED, AnalysisRun.Status.RUNNING) and time.monotonic() < deadline:
        time.sleep(0.2)
        run.refresh_from_db()
    # Still queued means the worker never saw the row: it is on another database or not running.
    assert run.status != AnalysisRun.Status.QUEUED, "the worker did not pick up the job within 30 s"
    assert run.status == AnalysisRun.Status.DONE, run.error

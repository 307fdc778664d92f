"""End to end through a real broker and worker (CI starts one against the test database)."""

import os
import time

import pytest

from analysis.models import AnalysisRun
from analysis.services import analysis_start
from tests.annotations import annotate, annotators


@pytest.fixture
def worker_running():
    """Skip before any database work unless CI says a worker is running on CELERY_BROKER_URL."""
    if os.environ.get("CELERY_WORKER_RUNNING") != "1":
        pytest.skip("needs a real Celery worker: set CELERY_BROKER_URL and CELERY_WORKER_RUNNING=1 (CI does)")


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_it_runs_an_analysis_on_a_real_worker(worker_running, study, pool, items, owner):
    raters = annotators(pool, 3)
    for n, item in enumerate(items[:3]):
        for r, rater in enumerate(raters):
            annotate(rater, item, overall=n + 1 + (r == 2), stereotype="no")

    run = analysis_start(study=study, user=owner)  # autocommit: published at once
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if not run.is_active:
            break
        time.sleep(0.5)
    assert run.status == AnalysisRun.Status.DONE, run.error or f"still {run.status} after 60 s"
    assert run.result["annotations"] == 9
    overall = next(f for f in run.result["fields"] if f["key"] == "overall")
    assert overall["overall"]["n_units"] == 3 and overall["overall"]["n_ratings"] == 9
    assert overall["overall"]["alpha"] is not None

"""A test-only job task, loaded only by the workers a test starts (``celery worker -I
tests.workers.slow_job``): it claims an analysis run on the job base and makes slow progress, so a
test can kill its worker mid-job. The job is queued again as what it is, a real analysis."""

import time

from celery import shared_task

from analysis.models import AnalysisRun
from jobs.lifecycle import job_claim, job_finish, job_progress
from jobs.tasks import JOB_TASK


@shared_task(name="tests.workers.slow_analysis", **JOB_TASK)
def slow_analysis_task(run_id: int, seconds: float) -> None:
    if not job_claim(AnalysisRun, run_id):
        return
    steps = max(1, int(seconds * 10))
    for step in range(steps):
        time.sleep(0.1)
        job_progress(AnalysisRun, run_id, 100 * step // steps)
    job_finish(AnalysisRun, run_id, result={"slow": True})

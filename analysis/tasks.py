"""Celery tasks of the analysis: each takes an id and calls the service, which records status in our own row.

The job tasks are ``acks_late`` with ``reject_on_worker_lost``: the message is acknowledged only
once the body returns, and a worker child that dies mid-job (killed, out of memory) gives its
message back at once instead of losing it, so another worker picks the job up. That is safe
because the body claims the row by a conditional UPDATE with an attempt number (``analysis.jobs``):
a finished job is not run again, a live one is left alone, a lost one is taken over at most
``MAX_ATTEMPTS`` times, so a job that kills its worker every time cannot loop forever.
"""

from celery import shared_task

from . import imports, jobs, services

JOB_TASK = {"ignore_result": True, "acks_late": True, "reject_on_worker_lost": True}


@shared_task(**JOB_TASK)
def analysis_run_task(run_id: int) -> None:
    services.analysis_run(run_id=run_id)


@shared_task(**JOB_TASK)
def import_run_task(job_id: int) -> None:
    imports.import_run(job_id=job_id)


@shared_task(ignore_result=True)
def jobs_reap_task() -> None:
    """Run by Celery beat every minute: jobs whose worker is gone queued again or failed. Not
    ``reject_on_worker_lost``: the next beat runs it again anyway."""
    jobs.jobs_reap()

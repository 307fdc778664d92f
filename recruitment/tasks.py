"""Celery tasks of recruitment: each takes an id and calls a service, which records its status in
a row of ours."""

from celery import shared_task

from .services import review


@shared_task(ignore_result=True)
def prolific_job_task(job_id: int) -> None:
    """A review action (approve, reject, request a return, refresh, bonuses); queued again, with
    Prolific's wait, when it was busy on a step that is safe to repeat."""
    wait = review.prolific_job_run(job_id=job_id)
    if wait is not None:
        review.job_enqueue(job_id, countdown=wait)

"""Celery tasks of the exports: each takes an id and calls the service, which records status in our own row."""

from celery import shared_task

from jobs.tasks import JOB_TASK

from . import services


@shared_task(**JOB_TASK)
def export_build_task(job_id: int) -> None:
    """Late acknowledgement, given back when its worker dies: see ``jobs.tasks``."""
    services.export_build(job_id=job_id)

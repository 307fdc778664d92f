"""Celery tasks of the analysis: each takes an id and calls the service, which records status in our own row."""

from celery import shared_task

from . import imports, services


@shared_task(ignore_result=True)
def analysis_run_task(run_id: int) -> None:
    services.analysis_run(run_id=run_id)


@shared_task(ignore_result=True)
def import_run_task(job_id: int) -> None:
    imports.import_run(job_id=job_id)

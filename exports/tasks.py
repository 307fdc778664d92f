"""Celery tasks of the exports: each takes an id and calls the service, which records status in our own row."""

from celery import shared_task

from . import services


@shared_task(ignore_result=True)
def export_build_task(job_id: int) -> None:
    services.export_build(job_id=job_id)

"""Celery tasks of studies: the browser's item import, a job (``ImportJob``) whose task takes its
id and calls the service, which records its status in the row (``jobs.lifecycle``)."""

from celery import shared_task

from jobs.tasks import JOB_TASK

from .importing import job


@shared_task(**JOB_TASK)
def import_run_task(job_id: int) -> None:
    job.import_run(job_id=job_id)


@shared_task(ignore_result=True)
def derivatives_task(study_id: int) -> None:
    """A study's missing image derivatives made (``studies.derivatives``); nothing is lost when it
    fails: the pages show the originals and ``manage.py image_derivatives`` makes them later."""
    from .derivatives import derivatives_make

    derivatives_make(study_id=study_id)

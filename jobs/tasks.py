"""The one periodic task of every job kind: ``jobs_reap`` (Celery beat, every minute).

Each kind's own task (``Job.task``) lives beside its service and takes the row's id; they are
acknowledged late and given back when their worker is lost (``acks_late``,
``reject_on_worker_lost``: ``JOB_TASK``), so a message is not gone with a worker that dies before it
claims the row; running a task twice is safe (the claim, ``jobs.lifecycle``)."""

from celery import shared_task

from . import lifecycle

JOB_TASK = {"ignore_result": True, "acks_late": True, "reject_on_worker_lost": True}


@shared_task(ignore_result=True)
def jobs_reap_task() -> None:
    """Jobs of every kind whose worker is gone queued again or failed; messages lost sent again.
    Not ``reject_on_worker_lost``: the next beat runs it again anyway."""
    lifecycle.jobs_reap()

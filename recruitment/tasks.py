"""Celery tasks of recruitment: each calls a service, which records its status in a row of ours.
A review job's task takes the job's id; the beat tasks (the periodic sync, the recheck of entries
let in unverified) take nothing and find their work.

A review job's task is acknowledged late and given back when its worker is lost (``acks_late``,
``reject_on_worker_lost``), like the analysis jobs (``analysis/tasks.py``): a message acknowledged
on receipt is gone with a worker that dies before it claims the row, and the job would stay queued.
Delivering it again never repeats a call to Prolific blindly, a payment least of all: the body
claims the row by a conditional UPDATE from queued or waiting, so a redelivered message of a job
its dead worker had claimed (running) does nothing, and the reaper decides by kind (a payment goes
to "uncertain", never back to "set up"); a payment is sent only after its bonus moved from "set up"
to "paying" in a committed conditional UPDATE, which a second attempt cannot make again. The beat
tasks are acknowledged late too (the project's default) but not given back: the next beat runs
them again anyway."""

from celery import shared_task

from .services import review, review_reaper
from .services.sync import prolific_entries_recheck, prolific_events_prune, prolific_studies_sync


@shared_task(ignore_result=True, acks_late=True, reject_on_worker_lost=True)
def prolific_job_task(job_id: int) -> None:
    """A review action (approve, reject, request a return, refresh, bonuses); queued again, with
    Prolific's wait, when it was busy on a step that is safe to repeat."""
    wait = review.prolific_job_run(job_id=job_id)
    if wait is not None:
        review.job_enqueue(job_id, countdown=wait)


@shared_task(ignore_result=True)
def prolific_jobs_reap_task() -> None:
    """Run by Celery beat every minute: review jobs whose worker is gone queued again or failed."""
    review_reaper.prolific_jobs_reap()


@shared_task(ignore_result=True)
def prolific_sync_task() -> None:
    """Run by Celery beat: every running Prolific study's submissions, leases, status and places;
    webhook event ids past any retry forgotten."""
    prolific_studies_sync()
    prolific_events_prune()


@shared_task(ignore_result=True)
def prolific_entries_recheck_task() -> None:
    """Run by Celery beat: entries let in unverified (Prolific could not be asked) asked again."""
    prolific_entries_recheck()

"""Celery tasks of recruitment: each calls a service, which records its status in a row of ours.
A payout job's task takes the job's id; the beat tasks (the periodic sync, the recheck of entries
let in unverified) take nothing and find their work. Lost payout jobs are the one reaper's
(``jobs.tasks.jobs_reap_task``).

A payout job's task is acknowledged late and given back when its worker is lost (``JOB_TASK``, as
every job's): a message acknowledged on receipt is gone with a worker that dies before it claims
the row, and the job would stay queued. Delivering it again never repeats a call to Prolific
blindly, a payment least of all: the body claims the row by a conditional UPDATE, which takes a
running job whose worker died only for a kind a repeat leaves harmless (``ProlificJob.repeatable``;
the reaper decides the others: a payment goes to "uncertain", never back to "set up"); a payment is
sent only after its bonus moved from "set up" to "paying" in a committed conditional UPDATE, which a
second attempt cannot make again. The beat tasks are acknowledged late too (the project's default)
but not given back: the next beat runs them again anyway."""

from celery import shared_task

from jobs.tasks import JOB_TASK

from .services import payouts
from .services.sync import prolific_entries_recheck, prolific_events_prune, prolific_studies_sync


@shared_task(**JOB_TASK)
def prolific_job_task(job_id: int) -> None:
    """A payout action (approve, reject, request a return, refresh, bonuses); it waits and runs
    again, with Prolific's wait, when Prolific was busy on a step that is safe to repeat."""
    payouts.prolific_job_run(job_id=job_id)


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

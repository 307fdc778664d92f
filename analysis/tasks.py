"""Celery tasks of the analysis: each takes an id and calls the service, which records status in our own row.

The job tasks are acknowledged late (``acks_late``, also the project's default) and given back when
their worker is lost (``reject_on_worker_lost``). Why: a message acknowledged on receipt is gone
with a worker that dies before it claims the row, and the row then stays "queued" for ever; late
acknowledgement leaves it to the broker to deliver again (at once on RabbitMQ, or when a prefork
child dies under a live parent; after the transport's visibility timeout on Redis). Running a job's
task twice is safe: the body claims the row by a conditional UPDATE with an attempt number
(``jobs.lifecycle``), so a finished job is not run again, one held under a live lease is left alone,
and one whose lease expired is taken over at most ``MAX_ATTEMPTS`` times, so a job that kills its
worker each time (out of memory) cannot loop for ever. What the broker cannot see (a job that was
running when its worker died) is the lease's part: ``jobs.tasks.jobs_reap_task``.

Prefetching one message per process (``worker_prefetch_multiplier = 1``) keeps a long job from holding
others back in its worker's prefetch, where another worker could not take them.
"""

from celery import shared_task

from jobs.tasks import JOB_TASK

from . import services
from .adaptive import adapt_all


@shared_task(**JOB_TASK)
def analysis_run_task(run_id: int) -> None:
    services.analysis_run(run_id=run_id)


@shared_task(ignore_result=True)
def comparisons_adapt_task() -> int:
    """Run by Celery beat every five minutes: every open study's pool with adaptive budget left gets
    its next step of comparison slots where the base design is nearly spent (``analysis.adaptive``).
    Acknowledged late (the project's default) but not given back: the next beat runs it again."""
    return adapt_all()

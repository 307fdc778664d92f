"""The job base: how every background job (an analysis run, an export) is queued, claimed,
followed and failed. A job is a row of ours (a ``models.Job``) that records its status, progress,
result or error; Celery only carries its id.

``*_start`` services create the row and call ``job_enqueue`` once the transaction commits; the task
calls the body, which claims the row with ``job_claim`` (a conditional UPDATE, so a redelivered
task never runs a job twice), reports ``job_progress`` and ends done or ``job_fail``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from django.utils import timezone
from django.utils.module_loading import import_string
from kombu.exceptions import OperationalError as QueueUnreachable

from .models import Job

logger = logging.getLogger(__name__)

Status = Job.Status


def job_enqueue(model: type[Job], pk: int, task: str) -> None:
    """Publish the job's task (its dotted path, so a service need not import its own tasks
    module); an unreachable broker fails the job loudly, never silently."""
    try:
        import_string(task).delay(pk)
    except (QueueUnreachable, ConnectionError) as exc:
        logger.error("could not queue %s %s: %s", model.__name__, pk, exc)
        model.objects.filter(pk=pk, status=Status.QUEUED).update(
            status=Status.FAILED, error=f"The job queue is unreachable: {exc}", finished_at=timezone.now()
        )


def job_claim(model: type[Job], pk: int) -> bool:
    """Move a queued job to running; False when another worker has it or it is finished."""
    return bool(
        model.objects.filter(pk=pk, status=Status.QUEUED).update(
            status=Status.RUNNING, started_at=timezone.now(), progress=0
        )
    )


def job_progress(model: type[Job], pk: int, percent: int) -> None:
    model.objects.filter(pk=pk, status=Status.RUNNING).update(progress=max(0, min(100, percent)))


def job_fail(model: type[Job], pk: int, what: str, exc: Exception) -> None:
    logger.exception("%s %s failed", model.__name__, pk)
    model.objects.filter(pk=pk).update(
        status=Status.FAILED,
        error=f"The {what} stopped because of an unexpected error ({type(exc).__name__}: {exc}). "
        "Nothing was kept; try again, and report the error if it happens again.",
        finished_at=timezone.now(),
    )


def chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """``rows`` in lists of ``size`` (the last one shorter)."""
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk

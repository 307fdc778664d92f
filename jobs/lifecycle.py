"""The one job lifecycle: how every background job (an analysis run, an import, an export, a
Prolific action) is queued, claimed, followed, retried, failed, and taken back from a worker that
died. A job is a row of ours (a ``jobs.models.Job``) that records its status, progress, result or
error; Celery only carries its id. What differs by kind is declared on its model, not here: its task,
how many attempts it may have, which rows a repeat leaves harmless (``Job.repeatable``), and what to
undo when its worker is lost (``Job.when_lost``: a Prolific payment made "uncertain").

``*_start`` services create the row and call ``job_enqueue`` once the transaction commits; the task
calls the body, which claims the row with ``job_claim`` (a conditional UPDATE), reports
``job_progress`` and ends with ``job_finish`` or ``job_fail``.

The lease. A claim gives the row an attempt number (``attempt``, the claimer's token) and a lease
(``lease_expires_at``, ``JOB_LEASE_SECONDS`` ahead); each progress call renews it, at most every
``JOB_HEARTBEAT_SECONDS``, in the same conditional UPDATE as the percent (only while the row is still
running under that attempt). A worker that is killed stops renewing; past the lease its job is
taken for lost. A body must report progress more often than the lease (the bodies here report per
chunk of rows or per field), or a live job is taken for dead.

A redelivered task (``acks_late`` with ``reject_on_worker_lost``, see ``config/settings.py``) claims
like any other: a job done or failed is not run again, a running one with a live lease is left
alone, a running one whose lease expired is taken over (attempt + 1) while attempts remain. The
writes that end a job name the attempt, so a worker that lost its lease cannot overwrite the
attempt that took over.

A job may ask to run again later (``job_wait``: Prolific was busy and named its wait): it waits,
released, and its message is sent with that countdown.

``jobs_reap`` (Celery beat, every minute; the one reaper of every kind) finds running jobs whose
lease expired: a row whose kind says a repeat is harmless (``Job.repeatable``) and that has attempts
left is queued again; any other is failed with the reason ("the worker running it stopped"), its
kind's ``when_lost`` undoing what it must in the same transaction. ``job_expire`` does the same for
one row on the spot, so a new start never waits for a dead run.

A message can be lost before any worker claims its job (a broker restarted without persistence, a
queue purged): the row stays queued, and no lease tells. ``jobs_reap`` also finds jobs still queued
or waiting ``JOB_QUEUED_GRACE_SECONDS`` after they were due (``queued_at``): the message is sent again once,
of any kind (a job never claimed has done nothing; should both messages arrive, the claim runs it
once), then the job is failed with the reason ("no worker took it"). ``job_unclaimed`` does it for
one row. With no broker a job runs in-process as it is queued, so nothing waits there.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.module_loading import import_string
from kombu.exceptions import OperationalError as QueueUnreachable

from .models import Job

logger = logging.getLogger(__name__)

Status = Job.Status
PENDING = (Status.QUEUED, Status.WAITING)  # a message is due to a worker, none has claimed it yet
ACTIVE = (*PENDING, Status.RUNNING)


def lease_seconds() -> int:
    return settings.JOB_LEASE_SECONDS


def job_enqueue(model: type[Job], pk: int, *, countdown: float | None = None) -> None:
    """Publish the job's task (``model.task``, a dotted path, so a service need not import its own
    tasks module), after ``countdown`` seconds if given; an unreachable broker fails the job loudly,
    never silently."""
    try:
        task = import_string(model.task)
        task.delay(pk) if countdown is None else task.apply_async((pk,), countdown=countdown)
    except (QueueUnreachable, ConnectionError) as exc:
        logger.error("could not queue %s %s: %s", model.__name__, pk, exc)
        model.objects.filter(pk=pk, status__in=PENDING).update(
            status=Status.FAILED, error=f"The job queue is unreachable: {exc}", finished_at=timezone.now()
        )


def job_enqueue_on_commit(model: type[Job], pk: int) -> None:
    """Queue the job once the transaction that wrote it commits (a worker must find the row): how
    every ``*_start`` service queues its job."""
    transaction.on_commit(lambda: job_enqueue(model, pk))


@dataclass
class Claim:
    """The attempt this process holds, and when it last renewed the lease (monotonic seconds)."""

    attempt: int
    renewed: float


# The claims this worker process holds, by (model, pk): a worker runs one job at a time per process
# (solo or prefork), so the body's progress calls need not carry the attempt along.
_claims: dict[tuple[type[Job], int], Claim] = {}


def job_claim(model: type[Job], pk: int) -> int | None:
    """Take the job: queued or waiting, or running under a lease that expired (its worker is gone)
    where a repeat is harmless and attempts remain. Returns the attempt number now held, or None
    when it is not ours to run (done, failed, held by a live worker, not to be repeated, or out of
    attempts: ``jobs_reap`` decides)."""
    now = timezone.now()
    takeable = Q(status__in=PENDING) | (
        Q(status=Status.RUNNING, lease_expires_at__lt=now, attempt__lt=model.max_attempts) & model.repeatable()
    )
    with transaction.atomic():
        claimed = model.objects.filter(takeable, pk=pk).update(
            status=Status.RUNNING, started_at=now, progress=0, attempt=F("attempt") + 1,
            lease_expires_at=now + timedelta(seconds=lease_seconds()),
        )
        if not claimed:
            return None
        attempt = model.objects.filter(pk=pk).values_list("attempt", flat=True).get()
    _claims[(model, pk)] = Claim(attempt, time.monotonic())
    return attempt


def _held(model: type[Job], pk: int) -> Q:
    """The row as this process's claim holds it (running, same attempt)."""
    q = Q(pk=pk, status=Status.RUNNING)
    claim = _claims.get((model, pk))
    return q & Q(attempt=claim.attempt) if claim else q


def _lease_due(model: type[Job], pk: int) -> dict[str, Any]:
    """The lease's renewal as fields to write, when this process's claim is due one (at most every
    ``JOB_HEARTBEAT_SECONDS``); else nothing."""
    claim = _claims.get((model, pk))
    if claim is None or time.monotonic() - claim.renewed < settings.JOB_HEARTBEAT_SECONDS:
        return {}
    claim.renewed = time.monotonic()
    return {"lease_expires_at": timezone.now() + timedelta(seconds=lease_seconds())}


def job_progress(model: type[Job], pk: int, percent: int) -> bool:
    """Record the percent done and renew the lease when it is due; False when the row is no longer
    this attempt's (cancelled, deleted, or taken over after the lease expired)."""
    fields = {"progress": max(0, min(100, percent)), **_lease_due(model, pk)}
    return bool(model.objects.filter(_held(model, pk)).update(**fields))


def job_heartbeat(model: type[Job], pk: int) -> None:
    """Renew the lease of a job that reports no percent (a Prolific action, at each call), when it
    is due: no query otherwise."""
    if fields := _lease_due(model, pk):
        model.objects.filter(_held(model, pk)).update(**fields)


def job_finish(model: type[Job], pk: int, **fields: Any) -> bool:
    """End the job done with ``fields``, if this attempt still holds it; False otherwise."""
    fields.setdefault("error", "")
    done = model.objects.filter(_held(model, pk)).update(
        status=Status.DONE, progress=100, finished_at=timezone.now(), lease_expires_at=None, **fields
    )
    _claims.pop((model, pk), None)
    return bool(done)


def job_end(model: type[Job], pk: int, **fields: Any) -> bool:
    """End the job failed with ``fields`` (an ``error``, problems), if this attempt still holds it."""
    ended = model.objects.filter(_held(model, pk)).update(
        status=Status.FAILED, finished_at=timezone.now(), lease_expires_at=None, **fields
    )
    _claims.pop((model, pk), None)
    if not ended:
        logger.warning("%s %s: its lease was lost before it failed; the reaper's outcome stands", model.__name__, pk)
    return bool(ended)


def job_wait(model: type[Job], pk: int, *, seconds: float, error: str) -> bool:
    """Release the job to run again in ``seconds`` (what it waits for is said in ``error``): it
    waits, its message sent with that countdown once the transaction commits. False when this
    attempt no longer holds it (reaped meanwhile: the reaper's word stands, nothing is queued)."""
    waiting = model.objects.filter(_held(model, pk)).update(
        status=Status.WAITING, lease_expires_at=None, message_resent=False, error=error,
        queued_at=timezone.now() + timedelta(seconds=seconds),
    )
    _claims.pop((model, pk), None)
    if waiting:
        transaction.on_commit(lambda: job_enqueue(model, pk, countdown=seconds))
    return bool(waiting)


def job_cancel(model: type[Job], pk: int, *, reason: str) -> bool:
    """Stop a queued or running job from outside its worker: the row fails at once with ``reason``;
    a worker finds it no longer its own at its next progress (or its finish) and stops, keeping
    nothing. False when the job had already ended."""
    return bool(model.objects.filter(pk=pk, status__in=ACTIVE).update(
        status=Status.FAILED, error=reason, finished_at=timezone.now(), lease_expires_at=None
    ))


def job_fail(model: type[Job], pk: int, what: str, exc: Exception) -> None:
    logger.exception("%s %s failed", model.__name__, pk)
    job_end(
        model, pk,
        error=f"The {what} stopped because of an unexpected error ({type(exc).__name__}: {exc}). "
        "Nothing was kept; try again, and report the error if it happens again.",
    )


# --- lost workers ----------------------------------------------------------------------------


def queued_grace() -> timedelta:
    return timedelta(seconds=settings.JOB_QUEUED_GRACE_SECONDS)


def unclaimed_reason() -> str:
    minutes = max(1, round(settings.JOB_QUEUED_GRACE_SECONDS / 60))
    return (f"No worker took it within {minutes} minute{'s' if minutes != 1 else ''} of its queueing (the queue "
            "lost its message, or no worker is running); start it again.")


def lost_at(lease_expired: datetime | None) -> str:
    return timezone.localtime(lease_expired or timezone.now()).strftime("%H:%M")


def lost_reason(lease_expired: datetime | None) -> str:
    return f"The worker running it stopped (lost at {lost_at(lease_expired)}); start it again."


def job_expire(model: type[Job], pk: int, *, requeue: bool) -> str | None:
    """A running job whose lease expired: queued again (``requeue``, the row is ``repeatable`` and
    attempts remain) or failed with the reason, its kind's ``when_lost`` undoing what it must in
    the same transaction. Returns "requeued", "failed", or None when the row changed meanwhile
    (renewed, finished, taken over). Conditional on the attempt seen, so two reapers (or a reaper
    and a redelivered task) never both act on one loss."""
    now = timezone.now()
    # Only what the decision reads (an analysis's result may be tens of MiB); ``when_lost`` loads
    # what else its kind needs.
    job = (
        model.objects.filter(pk=pk, status=Status.RUNNING, lease_expires_at__lt=now)
        .only("pk", "attempt", "lease_expires_at").first()
    )
    if job is None:
        return None
    same = model.objects.filter(
        pk=pk, status=Status.RUNNING, attempt=job.attempt, lease_expires_at=job.lease_expires_at
    )
    lost = lost_at(job.lease_expires_at)
    if requeue and job.attempt < model.max_attempts and same.filter(model.repeatable()).update(
        status=Status.QUEUED, progress=0, lease_expires_at=None, queued_at=now, message_resent=False,
        error=f"The worker running it stopped (lost at {lost}); trying again.",
    ):
        logger.warning("%s %s: its worker was lost; queued again", model.__name__, pk)
        transaction.on_commit(lambda: job_enqueue(model, pk))
        return "requeued"
    with transaction.atomic():
        if not same.update(status=Status.FAILED, error=lost_reason(job.lease_expires_at), finished_at=now,
                           lease_expires_at=None):
            return None
        said = job.when_lost(lost)
        if said:
            model.objects.filter(pk=pk).update(error=said)
    logger.warning("%s %s: its worker was lost; failed", model.__name__, pk)
    return "failed"


def job_unclaimed(model: type[Job], pk: int, *, resend: bool) -> str | None:
    """A job still queued or waiting ``JOB_QUEUED_GRACE_SECONDS`` after it was due (its message
    lost): its message sent again (``resend``, once per queueing), or the job failed with the
    reason. Returns "requeued", "failed", or None when the row changed meanwhile (claimed, ended,
    sent again). Conditional on the queueing seen, so two reapers never both act on one loss. A job
    never claimed has done nothing: sending it again is safe for every kind, payments included."""
    now = timezone.now()
    row = (
        model.objects.filter(pk=pk, status__in=PENDING, queued_at__lt=now - queued_grace())
        .values("status", "queued_at", "message_resent").first()
    )
    if row is None:
        return None
    same = model.objects.filter(pk=pk, status=row["status"], queued_at=row["queued_at"])
    if resend and not row["message_resent"]:
        if same.update(queued_at=now, message_resent=True):
            logger.warning("%s %s: no worker took it; its message sent again", model.__name__, pk)
            transaction.on_commit(lambda: job_enqueue(model, pk))
            return "requeued"
        return None
    if same.update(status=Status.FAILED, error=unclaimed_reason(), finished_at=now):
        logger.warning("%s %s: no worker took it; failed", model.__name__, pk)
        return "failed"
    return None


def job_models() -> list[type[Job]]:
    """Every concrete kind of job (found by the base, so this app imports none above it)."""
    return [m for m in apps.get_models() if issubclass(m, Job)]


def jobs_reap(*, models: Iterable[type[Job]] | None = None) -> dict[str, int]:
    """Run by Celery beat every minute, for every kind of job: every running job whose lease
    expired (its worker is gone) queued again where that is harmless (``Job.repeatable``: an
    analysis and an export only read; an import writes its items in one transaction that rolled back
    with the worker; a Prolific read or approval is idempotent there), else failed with the reason.
    Rows locked by a transaction still open (an import writing its items, whose renewals are not
    visible until it commits) belong to a live worker and are skipped. Then every job still queued
    or waiting past its grace (its message lost): sent again once, else failed (``job_unclaimed``)."""
    counts = {"requeued": 0, "failed": 0}
    now = timezone.now()
    for model in models if models is not None else job_models():
        with transaction.atomic():
            expired = model.objects.filter(status=Status.RUNNING, lease_expires_at__lt=now)
            if connection.features.has_select_for_update_skip_locked:
                expired = expired.select_for_update(skip_locked=True)
            for pk in list(expired.values_list("pk", flat=True)):
                outcome = job_expire(model, pk, requeue=True)
                if outcome:
                    counts[outcome] += 1
        unclaimed = model.objects.filter(status__in=PENDING, queued_at__lt=now - queued_grace())
        for pk in list(unclaimed.values_list("pk", flat=True)):
            outcome = job_unclaimed(model, pk, resend=True)
            if outcome:
                counts[outcome] += 1
    return counts


def chunks(rows: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """``rows`` in lists of ``size`` (the last one shorter)."""
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk

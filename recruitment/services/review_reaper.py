"""Review jobs whose worker or message was lost (``prolific_jobs_reap``, Celery beat, every
minute), by the rules ``review`` states: a kind a repeat leaves harmless is queued again while
attempts remain; a bonus set-up goes back to a draft, a payment to uncertain, and the job fails
with the reason; a message lost before any worker claimed its job is sent again once, then the job
fails."""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..models import ProlificJob
from .review import MAX_ATTEMPTS, BonusState, JobStatus, Kind, _bonus_state, job_enqueue

logger = logging.getLogger(__name__)

REPEATABLE = frozenset({Kind.SUBMISSIONS, Kind.APPROVE, Kind.BULK_APPROVE, Kind.REJECT, Kind.RETURN})
LOST_WHILE_PAYING = (
    "The worker running it stopped (lost at {lost}) while paying. Prolific may or may not have paid: the "
    "platform will not send this payment again. Check the participants' bonuses on Prolific before paying "
    "them by other means."
)


def prolific_jobs_reap() -> dict[str, int]:
    """Run by Celery beat every minute: every running job whose lease expired (its worker is gone).
    A kind a repeat leaves harmless is queued again while attempts remain; a bonus set-up goes back to
    a draft, a payment to uncertain (as after a 5xx), and the job fails with the reason."""
    counts = {"requeued": 0, "failed": 0}
    now = timezone.now()
    for job in ProlificJob.objects.filter(status=JobStatus.RUNNING, lease_expires_at__lt=now).select_related("bonus"):
        same = ProlificJob.objects.filter(
            pk=job.pk, status=JobStatus.RUNNING, attempts=job.attempts, lease_expires_at=job.lease_expires_at
        )
        lost = timezone.localtime(job.lease_expires_at).strftime("%H:%M")
        if job.kind in REPEATABLE and job.attempts < MAX_ATTEMPTS:
            if same.update(status=JobStatus.WAITING, lease_expires_at=None, due_at=now, message_resent=False,
                           error=f"The worker running it stopped (lost at {lost}); trying again."):
                transaction.on_commit(partial(job_enqueue, job.pk))
                counts["requeued"] += 1
            continue
        error = f"The worker running it stopped (lost at {lost}); start it again."
        with transaction.atomic():
            if not same.update(status=JobStatus.FAILED, error=error, finished_at=now, lease_expires_at=None):
                continue
            if job.kind == Kind.BONUS_SETUP and job.bonus:  # unpaid and unrecorded: costs nothing
                _bonus_state(job.bonus, BonusState.SETTING_UP, BonusState.DRAFT)
            if job.kind == Kind.BONUS_PAY and job.bonus:
                if _bonus_state(job.bonus, BonusState.PAYING, BonusState.UNCERTAIN):
                    ProlificJob.objects.filter(pk=job.pk).update(error=LOST_WHILE_PAYING.format(lost=lost))
        counts["failed"] += 1
    _reap_unclaimed(now, counts)
    return counts


def _reap_unclaimed(now, counts: dict[str, int]) -> None:
    """Jobs still queued or waiting ``JOB_QUEUED_GRACE_SECONDS`` after they were due (their message
    lost): the message sent again once, then the job failed with the reason (no bonus moves: a job
    not claimed left its bonus where it was)."""
    grace = settings.JOB_QUEUED_GRACE_SECONDS
    unclaimed = ProlificJob.objects.filter(
        status__in=[JobStatus.QUEUED, JobStatus.WAITING], due_at__lt=now - timedelta(seconds=grace)
    )
    for job in unclaimed.only("pk", "status", "due_at", "message_resent"):
        same = ProlificJob.objects.filter(pk=job.pk, status=job.status, due_at=job.due_at)
        if not job.message_resent:
            if same.update(due_at=now, message_resent=True):
                logger.warning("Prolific job %s: no worker took it; its message sent again", job.pk)
                transaction.on_commit(partial(job_enqueue, job.pk))
                counts["requeued"] += 1
            continue
        minutes = max(1, round(grace / 60))
        error = (f"No worker took it within {minutes} minute{'s' if minutes != 1 else ''} of its queueing (the queue "
                 "lost its message, or no worker is running); start it again.")
        if same.update(status=JobStatus.FAILED, error=error, finished_at=now, lease_expires_at=None):
            logger.warning("Prolific job %s: no worker took it; failed", job.pk)
            counts["failed"] += 1

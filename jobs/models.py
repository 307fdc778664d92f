"""The row every background job extends (an analysis run, an import, an export, a Prolific action):
its status, progress, error, attempt and lease. Abstract, with no study key: each kind adds what it
belongs to. How a row moves from one status to the next is ``jobs.lifecycle``."""

from django.db import models
from django.db.models import Q
from django.utils import timezone


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        WAITING = "waiting", "Waiting to try again"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0, help_text="0–100")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempt = models.PositiveSmallIntegerField(
        default=0, help_text="Claims so far: the running attempt's token (a stale worker's writes are refused)."
    )
    lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="A running job's worker renews this; past it, the worker is taken for gone."
    )
    queued_at = models.DateTimeField(
        default=timezone.now,
        help_text="When its message is due to a worker (queued, or when a wait ends); still queued or waiting "
        "JOB_QUEUED_GRACE_SECONDS later, its message was lost.",
    )
    message_resent = models.BooleanField(
        default=False, help_text="Its message was sent again once, no worker having taken it in time."
    )

    # Per kind: the dotted path of its Celery task (what the lifecycle queues), whether running it
    # again after a lost worker is harmless, and how many claims it may have.
    task: str = ""
    requeue_safe: bool = False
    max_attempts: int = 2

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING, self.Status.WAITING)

    @classmethod
    def repeatable(cls) -> Q:
        """The rows of this kind that a lost worker's repeat leaves harmless, as a filter (so a claim
        and the reaper decide in their conditional UPDATE): all of them or none, unless the kind
        decides per row (a Prolific action, by what it does)."""
        return Q() if cls.requeue_safe else Q(pk__in=[])

    def when_lost(self, lost: str) -> str | None:
        """What to undo when this running job's worker was lost and the job is failed (called in the
        transaction that fails it, ``lost`` the lease's end as HH:MM); a text returned replaces the
        job's error. Nothing by default."""
        return None


class SchedulerLease(models.Model):
    """Who runs the periodic work now (``config.embedded``): one row per scheduler, held by one process
    of one node at a time until ``expires_at``; claimed and renewed by a conditional UPDATE
    (``jobs.scheduler_lease``), so every process and node sharing the database agrees."""

    name = models.CharField(max_length=100, unique=True)
    holder = models.CharField(max_length=200, help_text="host:pid:random of the process holding it.")
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} held by {self.holder} until {self.expires_at:%Y-%m-%d %H:%M:%S}"

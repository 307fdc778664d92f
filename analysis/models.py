"""What is learned from a study: analysis runs, metric uploads, and the job row every background job
extends (exports too)."""

from pathlib import PurePosixPath

from django.conf import settings
from django.db import models
from django.utils import timezone

from studies.models import Study, random_name, study_files_prefix


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0, help_text="0–100")
    error = models.TextField(blank=True)
    data_fingerprint = models.CharField(
        max_length=200, blank=True, help_text="The annotations this job saw; a newer one makes it stale."
    )
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
        help_text="When it was last queued; still queued JOB_QUEUED_GRACE_SECONDS later, its message was lost.",
    )
    message_resent = models.BooleanField(
        default=False, help_text="Its message was sent again once, no worker having taken it in time."
    )

    # The dotted path of the job's Celery task (what ``jobs_reap`` queues again), and whether running
    # it again after a lost worker is harmless (see ``analysis.jobs``).
    task: str = ""
    requeue_safe: bool = False

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


DEFAULT_RESAMPLES = 1000
MAX_RESAMPLES = 10_000
MAX_SEED = 2_147_483_647  # what a PositiveIntegerField holds on every database


class AnalysisRun(Job):
    task = "analysis.tasks.analysis_run_task"
    requeue_safe = True  # a read of the annotations; the result is written only by the attempt that holds the row

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="analysis_runs")
    result = models.JSONField(null=True, blank=True)
    summary = models.JSONField(
        null=True, blank=True, help_text="The result with its long tables cut to their first rows: what the page reads."
    )
    complete_only = models.BooleanField(
        default=False, help_text="Reports and metric correlation restricted to prompts with images from every model."
    )
    resamples = models.PositiveIntegerField(
        default=DEFAULT_RESAMPLES, help_text="Bootstrap resamples of the units behind each alpha's interval (0: none)."
    )
    seed = models.PositiveIntegerField(
        default=0, help_text="Seed of the bootstrap: the same seed gives the same interval."
    )

    class Meta(Job.Meta):
        constraints = [
            models.CheckConstraint(
                condition=models.Q(resamples__lte=MAX_RESAMPLES), name="analysis_resamples_at_most_max"
            ),
        ]

    def __str__(self):
        return f"analysis {self.pk} of {self.study} ({self.status})"


def metric_upload_path(upload: "MetricUpload", filename: str) -> str:
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    stem = filename.rsplit("/", 1)[-1].split(".", 1)[0] or "metrics"  # "metrics" (as uploaded) or "scores" (parsed)
    return random_name(f"{study_files_prefix(upload.study_id, 'exports')}/metrics", f"{stem}-{stamp}", ".csv")


class MetricUpload(models.Model):
    """Automatic metric scores a researcher uploaded; the study's latest one is analysed, older ones
    are kept for history. Only files that parsed against the study's items are stored."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="metric_uploads")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    file = models.FileField(upload_to=metric_upload_path)
    scores_file = models.FileField(
        upload_to=metric_upload_path,
        help_text="The scores as parsed at upload (item id, country, metric, score): what the analysis reads.",
    )
    original_name = models.CharField(max_length=255)
    rows = models.PositiveIntegerField(help_text="Scores kept (lines of unknown items or countries left out).")
    metrics = models.JSONField(default=list, help_text="The metric names, in order of first appearance.")
    summary = models.JSONField(default=dict, help_text="What the parser reported: lines, unknown items and countries.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        get_latest_by = ("created_at", "id")

    def __str__(self):
        return f"metrics {self.original_name} for {self.study}"


def import_upload_path(job: "ImportJob", filename: str) -> str:
    """The upload under its own name and a random part (the job keeps the name as given)."""
    name = PurePosixPath(filename)
    return random_name(study_files_prefix(job.study_id, "imports"), name.stem or "upload", name.suffix)


class ImportJob(Job):
    """Items imported from the browser: the uploaded rows file and images zip, checked and written
    by the same ``items_import`` as ``manage.py import_items``. It lives here, not in studies,
    because it is a job on the job base (this app), and a page combining layers lives in the
    highest app it touches. The uploads are deleted once the job ends."""

    task = "analysis.tasks.import_run_task"
    # The items are written in one transaction: a dead worker's rolled back, and its uploads are kept
    # (deleted only when a run ends). Lost in the instant after the commit, a repeat is refused by
    # the "already in the study" check: never a duplicate item.
    requeue_safe = True

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="import_jobs")
    rows_name = models.CharField(max_length=255)
    rows_file = models.FileField(upload_to=import_upload_path, max_length=500, blank=True)
    images_name = models.CharField(max_length=255, blank=True)
    images_file = models.FileField(upload_to=import_upload_path, max_length=500, blank=True)
    created_items = models.PositiveIntegerField(default=0)
    summary = models.TextField(blank=True)
    problems = models.JSONField(default=list, blank=True, help_text="Every problem of a refused file, with its line.")

    def __str__(self):
        return f"import of {self.rows_name} into {self.study}"

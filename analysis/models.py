"""What is learned from a study: analysis runs and metric uploads."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from jobs.json_text import FastDecoder, FastEncoder
from studies.models import Study, StudyJob, random_name, study_files_prefix

DEFAULT_RESAMPLES = 1000
MAX_RESAMPLES = 10_000
MAX_SEED = 2_147_483_647  # what a PositiveIntegerField holds on every database


class AnalysisRun(StudyJob):
    task = "analysis.tasks.analysis_run_task"
    requeue_safe = True  # a read of the annotations; the result is written only by the attempt that holds the row

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="analysis_runs")
    result = models.JSONField(null=True, blank=True, encoder=FastEncoder, decoder=FastDecoder)
    summary = models.JSONField(
        null=True, blank=True, encoder=FastEncoder, decoder=FastDecoder,
        help_text="The result with its long tables cut to their first rows: what the page reads.",
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

    class Meta(StudyJob.Meta):
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

"""What is shipped: export jobs, each a row that tracks its background job, its file and its manifest;
and the numbered releases they are of (``exports.releases``)."""

from django.db import models

from analysis.models import AnalysisRun
from studies.models import Study, StudyJob


class Release(models.Model):
    """A numbered release of a study's gold data: the data (its fingerprint) as one analysis run
    checked it. The same data checked by the same run is the same release, whatever the format or
    options of its exports; new data, or a new run, the next number. ``facts`` is what the data held
    (``releases.release_facts``), the next release's changelog is read against it; ``changes`` is
    this release's changelog against the one before, fixed when it was made."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="releases")
    number = models.PositiveIntegerField()
    data_fingerprint = models.CharField(max_length=200)
    analysis = models.ForeignKey(
        AnalysisRun,
        on_delete=models.RESTRICT,  # as an export's: the run a release cites stays, unless its study goes
        related_name="releases",
    )
    created = models.DateTimeField(help_text="When it was first made: the date its files and citation carry.")
    facts = models.JSONField(default=dict, blank=True, help_text="What the data held, the next changelog's base.")
    changes = models.JSONField(default=list, blank=True, help_text="What changed since the release before.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "number"], name="release_number_per_study"),
            models.UniqueConstraint(fields=["study", "data_fingerprint", "analysis"], name="release_data_and_run"),
        ]
        ordering = ["study", "number"]

    def __str__(self) -> str:
        return f"release {self.number} of study {self.study_id}"


class ExportJob(StudyJob):
    task = "exports.tasks.export_build_task"
    requeue_safe = True  # a read written to a temporary folder; stored only by the attempt that holds the row

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="export_jobs")
    analysis = models.ForeignKey(
        AnalysisRun,
        on_delete=models.RESTRICT,  # an analysis with exports stays, unless its study is deleted with it
        related_name="exports",
    )
    format = models.CharField(max_length=20, default="csv", help_text="A format of exports/formats/catalog.py.")
    options = models.JSONField(
        default=dict, blank=True, help_text="What the researcher chose beside the format: license, images."
    )
    file = models.FileField(upload_to="exports/", max_length=300, blank=True)
    rows = models.PositiveIntegerField(default=0)
    release = models.ForeignKey(
        Release, null=True, blank=True, on_delete=models.RESTRICT, related_name="exports",  # kept while cited
        help_text="The release it is of, once written (none for exports made before releases).",
    )
    manifest = models.JSONField(
        null=True, blank=True, help_text="manifest.json: study, format, analysis run, files with rows and sha256."
    )

    @property
    def is_zip(self) -> bool:
        """A ZIP of the tables and manifest.json (a protocol with per_document fields), else one file."""
        return self.file.name.endswith(".zip")

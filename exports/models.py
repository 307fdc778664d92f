"""What is shipped: export jobs, each a row that tracks its background job, its file and its manifest."""

from django.db import models

from analysis.models import AnalysisRun
from studies.models import Study, StudyJob


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
    manifest = models.JSONField(
        null=True, blank=True, help_text="manifest.json: study, format, analysis run, files with rows and sha256."
    )

    @property
    def is_zip(self) -> bool:
        """A ZIP of the tables and manifest.json (a protocol with per_document fields), else one file."""
        return self.file.name.endswith(".zip")

"""What is shipped: export jobs, each a row that tracks its background job and its file."""

from django.db import models

from analysis.models import AnalysisRun, Job
from studies.models import Study


class ExportJob(Job):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="export_jobs")
    analysis = models.ForeignKey(
        AnalysisRun,
        on_delete=models.RESTRICT,  # an analysis with exports stays, unless its study is deleted with it
        related_name="exports",
    )
    file = models.FileField(upload_to="exports/", blank=True)
    rows = models.PositiveIntegerField(default=0)

    @property
    def is_zip(self) -> bool:
        """A ZIP of annotations.csv and documents.csv (a protocol with per_document fields), else one CSV."""
        return self.file.name.endswith(".zip")

"""A study's background jobs: the row they extend (``StudyJob``) and the browser's item import."""

from pathlib import PurePosixPath

from django.conf import settings
from django.db import models

from jobs.models import Job

from .items import random_name, study_files_prefix
from .study import Study


class StudyJob(Job):
    """A background job of one study (an analysis run, an import, an export), asked for by a
    researcher. Each kind names its own ``study`` with its related name."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    data_fingerprint = models.CharField(
        max_length=200, blank=True, help_text="The annotations this job saw; a newer one makes it stale."
    )

    class Meta(Job.Meta):
        abstract = True


def import_upload_path(job: "ImportJob", filename: str) -> str:
    """The upload under its own name and a random part (the job keeps the name as given)."""
    name = PurePosixPath(filename)
    return random_name(study_files_prefix(job.study_id, "imports"), name.stem or "upload", name.suffix)


class ImportJob(StudyJob):
    """Items imported from the browser: the uploaded rows file and images zip, checked and written
    by the same ``items_import`` as ``manage.py import_items`` (``studies/importing/job.py``). The
    uploads are deleted once the job ends."""

    task = "studies.tasks.import_run_task"
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

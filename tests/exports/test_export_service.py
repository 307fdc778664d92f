"""The export service: refused without an analysis of the current data; a complete CSV or nothing."""

import csv
import io
import os
from unittest import mock

import pytest
from django.core.files.storage import default_storage
from django.db.models import RestrictedError

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.models import ExportJob
from exports.services import ExportRefused, export_build, export_start
from studies.services import study_delete
from tests.annotations import annotate, annotators


def analyse(study, owner):
    run = AnalysisRun.objects.create(study=study, requested_by=owner)
    return analysis_run(run_id=run.pk)


def build(study, owner):
    job = export_start(study=study, user=owner)
    return export_build(job_id=job.pk)


def read_csv(job):
    with default_storage.open(job.file.name, "rb") as fh:
        return list(csv.DictReader(io.StringIO(fh.read().decode("utf-8"))))


@pytest.fixture
def rated(study, pool, other_pool, items):
    a, b = annotators(pool, 2)
    c = annotators(other_pool, 1)[0]
    annotate(a, items[0], alignment=0.5, error_types=["explicit", "implicit"], words=["0", "2"], overall=2)
    annotate(b, items[0], alignment=1, stereotype="yes", stereotype_description="Everyone wears the same hat.")
    annotate(a, items[1], surplus=True, time_spent_ms=61_250)
    annotate(c, items[3])
    return study


def test_it_refuses_without_an_analysis(rated, owner):
    with pytest.raises(ExportRefused, match="Run the analysis on the current data first"):
        export_start(study=rated, user=owner)
    assert not ExportJob.objects.exists()


def test_it_refuses_when_only_a_failed_analysis_exists(rated, owner):
    AnalysisRun.objects.create(study=rated, status=AnalysisRun.Status.FAILED, error="boom")
    with pytest.raises(ExportRefused):
        export_start(study=rated, user=owner)


def test_it_refuses_after_a_newer_annotation(rated, owner, pool, items):
    analyse(rated, owner)
    annotate(annotators(pool, 1)[0], items[2])
    with pytest.raises(ExportRefused, match="1 new annotation since the last analysis"):
        export_start(study=rated, user=owner)


def test_it_exports_one_row_per_annotation(rated, owner, items):
    analysis = analyse(rated, owner)
    job = build(rated, owner)
    assert job.status == ExportJob.Status.DONE, job.error
    assert job.analysis == analysis and job.rows == 4 and job.progress == 100
    rows = read_csv(job)
    assert len(rows) == 4
    assert list(rows[0]) == [
        "item_id", "prompt", "model", "category", "item_country", "pool_country", "panel", "annotator",
        "alignment", "error_types", "words", "words_indices", "explanation", "stereotype",
        "stereotype_description", "quality", "overall",
        "surplus", "protocol_version", "time_spent_s", "started_at", "submitted_at", "review",
        "pasted_chars", "typed_chars", "focus_losses", "hidden_seconds",
    ]  # fmt: skip
    first = rows[0]
    assert first["item_id"] == items[0].external_id
    assert first["prompt"] == "A family sharing a meal at a festival"
    assert first["panel"] == "Prolific"
    item = (first["model"], first["category"], first["item_country"], first["pool_country"])
    assert item == ("model-a", "festival", "IN", "IN")
    assert first["alignment"] == "0.5"
    assert first["error_types"] == "explicit|implicit"
    assert first["words"] == "A|sharing" and first["words_indices"] == "0|2"
    assert first["overall"] == "2"
    assert first["surplus"] == "false" and first["protocol_version"] == "1"
    assert first["time_spent_s"] == "42.000"
    assert first["submitted_at"].endswith("Z") and "T" in first["submitted_at"]
    second = rows[1]
    assert second["alignment"] == "1" and second["error_types"] == "" and second["words"] == ""
    assert second["stereotype"] == "yes" and second["stereotype_description"] == "Everyone wears the same hat."
    assert rows[2]["surplus"] == "true" and rows[2]["time_spent_s"] == "61.250"
    assert rows[3]["pool_country"] == "JP"


def test_it_writes_pseudonyms_not_prolific_ids(rated, owner):
    analyse(rated, owner)
    rows = read_csv(build(rated, owner))
    annotators_ = {a.pseudonym: a.prolific_pid for a in rated.annotators.all()}
    assert {r["annotator"] for r in rows} == set(annotators_)
    assert rows[0]["annotator"] == rows[2]["annotator"]  # same annotator, same pseudonym
    for row in rows:
        assert annotators_[row["annotator"]] not in row["annotator"]
        assert not any(pid in value for value in row.values() for pid in annotators_.values())


def test_it_exports_exactly_the_analysed_data(rated, owner, pool, items):
    analyse(rated, owner)
    job = export_start(study=rated, user=owner)
    annotate(annotators(pool, 1)[0], items[2])  # arrives while the export waits in the queue
    job = export_build(job_id=job.pk)
    assert job.rows == 4 and len(read_csv(job)) == 4


def test_it_leaves_no_file_when_it_fails(rated, owner, settings):
    analyse(rated, owner)
    with mock.patch("exports.formats.csvfile.csv_layout.answer_cell_columns", side_effect=OSError("disk full")):
        job = build(rated, owner)  # the header is written, then the first chunk fails
    assert job.status == ExportJob.Status.FAILED
    assert "disk full" in job.error
    assert not job.file
    exports_dir = os.path.join(settings.MEDIA_ROOT, "exports")
    assert not os.path.exists(exports_dir) or not any(files for _, _, files in os.walk(exports_dir))


def test_it_queues_the_build_after_commit(rated, owner, django_capture_on_commit_callbacks):
    analyse(rated, owner)
    with django_capture_on_commit_callbacks(execute=True):
        job = export_start(study=rated, user=owner)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE
    assert default_storage.exists(job.file.name)


def test_it_lets_a_study_with_analyses_and_exports_be_deleted_with_its_files(
    rated, owner, django_capture_on_commit_callbacks
):
    analyse(rated, owner)
    job = build(rated, owner)
    image = rated.items.first().image.name
    assert default_storage.exists(job.file.name) and default_storage.exists(image)
    with django_capture_on_commit_callbacks(execute=True):
        study_delete(study=rated)
    assert not ExportJob.objects.exists() and not AnalysisRun.objects.exists()
    assert not default_storage.exists(job.file.name)
    assert not default_storage.exists(image)


def test_it_keeps_an_analysis_that_an_export_refers_to(rated, owner):
    analysis = analyse(rated, owner)
    job = build(rated, owner)
    with pytest.raises(RestrictedError):
        analysis.delete()
    assert ExportJob.objects.get().file.name == job.file.name

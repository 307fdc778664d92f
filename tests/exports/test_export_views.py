"""Starting an export, polling it, and downloading the file: for the study's owner only."""

import hashlib
import json

import pytest
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.models import ExportJob
from exports.services import export_build, export_start
from tests import factories as f
from tests.annotations import annotate


def start_url(study):
    return reverse("exports:export-start", args=[study.pk])


def status_url(study, job):
    return reverse("exports:export-status", args=[study.pk, job.pk])


def download_url(study, job):
    return reverse("exports:export-download", args=[study.pk, job.pk])


@pytest.fixture
def exported(analysed, owner):
    return export_build(job_id=export_start(study=analysed, user=owner).pk)


def test_it_refuses_to_export_without_an_analysis(client, owner, rated):
    client.force_login(owner)
    response = client.post(start_url(rated), follow=True)
    assert response.redirect_chain[-1][0] == reverse("analysis:analysis", args=[rated.pk])
    assert "Run the analysis on the current data first: no analysis has finished yet." in response.content.decode()
    assert not ExportJob.objects.exists()


def test_it_refuses_to_export_stale_data(client, owner, analysed, pool, items):
    annotate(f.make_annotator(pool), items[0])
    client.force_login(owner)
    response = client.post(start_url(analysed), follow=True)
    assert "1 new annotation since the last analysis" in response.content.decode()
    assert not ExportJob.objects.exists()


def test_it_exports_and_offers_the_download(client, owner, analysed, django_capture_on_commit_callbacks):
    client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(start_url(analysed))
    assert response.status_code == 302
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.DONE and job.rows == 6
    html = client.get(reverse("analysis:analysis", args=[analysed.pk])).content.decode()
    assert download_url(analysed, job) in html
    assert "CSV export of 6 annotations ready" in html


def test_it_polls_a_running_export(client, owner, analysed):
    job = export_start(study=analysed, user=owner)  # on_commit never fires here: stays queued
    client.force_login(owner)
    fragment = client.get(status_url(analysed, job)).content.decode()
    assert f'hx-get="{status_url(analysed, job)}" hx-trigger="every 1s"' in fragment
    assert "<progress" in fragment and 'role="status"' in fragment
    export_build(job_id=job.pk)
    fragment = client.get(status_url(analysed, job)).content.decode()
    assert "hx-trigger" not in fragment
    assert download_url(analysed, job) in fragment


def test_it_streams_the_file(client, owner, exported, study):
    client.force_login(owner)
    response = client.get(download_url(study, exported))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv"
    assert response["Content-Disposition"].startswith("attachment;")
    day = exported.finished_at.date().isoformat()
    assert f'filename="culturalframes-rating_csv_{day}.csv"' in response["Content-Disposition"]
    body = b"".join(response.streaming_content).decode()
    lines = body.strip().splitlines()
    assert lines[0].startswith("item_id,prompt,model,category,item_country,pool_country,panel,annotator,alignment")
    assert len(lines) == 7


def test_it_has_nothing_to_download_before_the_export_is_done(client, owner, analysed):
    job = export_start(study=analysed, user=owner)
    client.force_login(owner)
    assert client.get(download_url(analysed, job)).status_code == 404


def test_it_refuses_another_researchers_exports(client, other_researcher, exported, study):
    client.force_login(other_researcher)
    assert client.post(start_url(study)).status_code == 404
    assert client.get(status_url(study, exported)).status_code == 404
    assert client.get(download_url(study, exported)).status_code == 404
    assert ExportJob.objects.count() == 1


def test_it_refuses_an_export_of_another_study_under_ones_own(client, owner, other_researcher, exported, study):
    mine = f.make_study(owner, name="Mine too")
    client.force_login(owner)
    assert client.get(download_url(mine, exported)).status_code == 404
    assert client.get(status_url(mine, exported)).status_code == 404


def test_it_sends_an_anonymous_visitor_to_login(client, exported, study):
    for response in (
        client.post(start_url(study)),
        client.get(status_url(study, exported)),
        client.get(download_url(study, exported)),
    ):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


# --- formats ---------------------------------------------------------------------------------


def manifest_url(study, job):
    return reverse("exports:export-manifest", args=[study.pk, job.pk])


def test_the_panel_offers_every_format_that_fits(client, owner, analysed):
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[analysed.pk])).content.decode()
    for name in ("csv", "jsonl", "parquet"):
        assert f'type="radio" name="format" value="{name}"' in html
    assert 'value="csv" checked' in html


def test_it_exports_the_format_chosen_and_names_the_download(
    client, owner, analysed, django_capture_on_commit_callbacks
):
    client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(start_url(analysed), {"format": "parquet"})
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.DONE and job.format == "parquet"
    response = client.get(download_url(analysed, job))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/vnd.apache.parquet"
    day = job.finished_at.date().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="culturalframes-rating_parquet_{day}.parquet"'
    body = b"".join(response.streaming_content)
    assert body.startswith(b"PAR1") and body.endswith(b"PAR1")
    assert hashlib.sha256(body).hexdigest() == job.manifest["files"][0]["sha256"]


def test_it_offers_the_manifest_beside_a_single_file(client, owner, exported, study):
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert manifest_url(study, exported) in html
    response = client.get(manifest_url(study, exported))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    day = exported.finished_at.date().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="culturalframes-rating_csv_{day}_manifest.json"'
    manifest = json.loads(response.content)
    assert manifest["analysis_run"] == exported.analysis_id and manifest["files"][0]["rows"] == 6


def test_it_refuses_an_unknown_format(client, owner, analysed):
    client.force_login(owner)
    response = client.post(start_url(analysed), {"format": "xlsx"}, follow=True)
    assert "Unknown export format" in response.content.decode()
    assert not ExportJob.objects.exists()


def test_it_refuses_another_researchers_manifest(client, other_researcher, exported, study):
    client.force_login(other_researcher)
    assert client.get(manifest_url(study, exported)).status_code == 404
    mine = f.make_study(other_researcher, name="Theirs")
    assert client.get(manifest_url(mine, exported)).status_code == 404


# --- cancelling ------------------------------------------------------------------------------


def cancel_url(study, job):
    return reverse("exports:export-cancel", args=[study.pk, job.pk])


def _export_files(settings) -> list[str]:
    import os

    folder = os.path.join(settings.MEDIA_ROOT, "exports")
    return [name for _, _, names in os.walk(folder) for name in names]


def test_the_owner_cancels_a_queued_export_and_no_worker_runs_it(client, owner, analysed, settings):
    job = export_start(study=analysed, user=owner)  # queued: the worker has not taken it yet
    client.force_login(owner)
    page = client.get(status_url(analysed, job)).content.decode()
    assert "Cancel the export" in page and cancel_url(analysed, job) in page
    response = client.post(cancel_url(analysed, job), follow=True)
    assert "The export was cancelled; no file of it is kept." in response.content.decode()
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED and job.error == "Cancelled by owner; no file was kept."
    assert export_build(job_id=job.pk).status == ExportJob.Status.FAILED  # a late task does nothing
    assert not _export_files(settings)
    assert "Cancelled by owner" in client.get(status_url(analysed, job)).content.decode()


def test_an_export_cancelled_while_it_runs_stops_and_keeps_nothing(owner, analysed, settings):
    from unittest import mock

    from exports.services import export_cancel
    from jobs import lifecycle as jobs

    job = export_start(study=analysed, user=owner)
    real = jobs.job_progress

    def cancelled_meanwhile(model, pk, percent):  # the researcher presses Cancel during the first chunk
        export_cancel(job=ExportJob.objects.get(pk=pk), user=owner)
        return real(model, pk, percent)

    with mock.patch("exports.services.job_progress", side_effect=cancelled_meanwhile):
        job = export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and job.error.startswith("Cancelled by owner")
    assert not job.file and not _export_files(settings)


def test_a_finished_export_is_not_cancelled(client, owner, exported):
    client.force_login(owner)
    assert "Cancel the export" not in client.get(status_url(exported.study, exported)).content.decode()
    response = client.post(cancel_url(exported.study, exported), follow=True)
    assert "That export had already ended." in response.content.decode()
    exported.refresh_from_db()
    assert exported.status == ExportJob.Status.DONE and exported.file


def test_another_researcher_cannot_cancel_an_export(client, other_researcher, owner, analysed):
    job = export_start(study=analysed, user=owner)
    client.force_login(other_researcher)
    assert client.post(cancel_url(analysed, job)).status_code == 404
    job.refresh_from_db()
    assert job.status == ExportJob.Status.QUEUED


def test_a_viewer_sees_no_cancel_button_and_cannot_cancel(client, other_researcher, owner, analysed):
    from studies.models import StudyMember

    StudyMember.objects.create(study=analysed, user=other_researcher, role="viewer")
    job = export_start(study=analysed, user=owner)
    client.force_login(other_researcher)
    assert "Cancel the export" not in client.get(status_url(analysed, job)).content.decode()
    assert client.post(cancel_url(analysed, job)).status_code == 403
    job.refresh_from_db()
    assert job.status == ExportJob.Status.QUEUED


# --- what the status says, per format ---------------------------------------------------------


@pytest.mark.parametrize(("fmt", "status", "download"), [
    ("gold", "Gold labels export of 5 annotations ready",
     "Download the ZIP (gold tables in CSV and Parquet, and manifest.json)"),
    ("hf", "Hugging Face dataset export of 5 annotations ready",
     "Download the ZIP (a Hugging Face dataset folder with its card, and manifest.json)"),
    ("parquet", "Parquet export of 5 annotations ready", "Download the Parquet file"),
])
def test_a_finished_export_says_what_it_holds_and_counts_the_annotations(client, caire, owner, fmt, status, download):
    study = caire[0]
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    job = export_build(job_id=export_start(study=study, user=owner, format=fmt).pk)
    assert job.rows == 5  # the annotations exported (one flagged is left out), whatever the files' rows
    client.force_login(owner)
    page = client.get(status_url(study, job)).content.decode()
    assert status in page and download in page
    assert "annotations, documents and manifest.json" not in page

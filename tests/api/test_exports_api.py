"""/api/v1/studies/{id}/exports/: the formats offered, an export started as a job (202), polled,
listed, cancelled, its file downloaded (a Parquet file and the gold ZIP read by pandas) and its
manifest; the page's refusals (no analysis, stale data, unknown format or license) and the cast's."""

import io
import zipfile

import pandas as pd
import pytest
from rest_framework.test import APIClient

from exports.formats import formats_for
from exports.models import ExportJob
from exports.services import export_build, export_start
from stats.versions import ProtocolSet
from tests import factories as f
from tests.annotations import annotate


def exports(study) -> str:
    return f"/api/v1/studies/{study.pk}/exports/"


def one(job) -> str:
    return f"{exports(job.study)}{job.pk}/"


@pytest.fixture
def exported(analysed, owner):
    return export_build(job_id=export_start(study=analysed, user=owner, format="parquet").pk)


def logged_in(user) -> APIClient:
    """A browser's session of ``user`` (a checker can hold no token: the API refuses their account)."""
    client = APIClient()
    client.force_login(user)
    return client


def start(client, study, body, capture):
    with capture(execute=True):
        return client.post(exports(study), body, format="json")


def test_the_formats_offered_are_those_that_fit_the_protocol(study, viewer, as_user):
    rows = as_user(viewer).get(f"/api/v1/studies/{study.pk}/export-formats/").json()
    offered = formats_for(ProtocolSet(current=study.spec, current_version=study.protocol_version))
    assert [r["name"] for r in rows] == [fmt.name for fmt in offered]
    parquet = next(r for r in rows if r["name"] == "parquet")
    assert parquet["media_type"] == "application/vnd.apache.parquet" and parquet["extension"] == "parquet"
    assert {"gold", "csv"} <= {r["name"] for r in rows}


def test_the_formats_are_refused_to_strangers(study, other_researcher, checker, as_user, anonymous):
    address = f"/api/v1/studies/{study.pk}/export-formats/"
    assert as_user(other_researcher).get(address).status_code == 404
    assert logged_in(checker).get(address).status_code == 403
    assert anonymous.get(address).status_code == 401


def test_an_export_starts_as_a_job_and_its_parquet_reads_in_pandas(
    analysed, editor, as_user, django_capture_on_commit_callbacks
):
    client = as_user(editor)
    response = start(client, analysed, {"format": "parquet", "options": {"license": "cc-by-4.0"}},
                     django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.json()
    job = ExportJob.objects.get()
    body = response.json()
    assert response["Location"] == body["url"] and body["url"].endswith(one(job))
    assert body["format"] == "parquet" and body["analysis_run"] == job.analysis_id
    assert body["options"] == {"license": "cc-by-4.0", "images": False}
    polled = client.get(one(job))
    assert polled.status_code == 200 and "Retry-After" not in polled
    done = polled.json()
    assert done["status"] == "done" and done["rows"] == 6 and done["manifest"]["format"] == "parquet"
    assert done["download_url"].endswith(f"{one(job)}download/")
    download = client.get(done["download_url"])
    assert download.status_code == 200 and download["Content-Type"] == "application/vnd.apache.parquet"
    assert f'_parquet_{job.finished_at.date().isoformat()}.parquet"' in download["Content-Disposition"]
    frame = pd.read_parquet(io.BytesIO(b"".join(download.streaming_content)))
    rated = sorted(job.study.items.filter(country="IN").values_list("external_id", flat=True))
    assert len(frame) == 6 and sorted(set(frame["item_id"])) == rated
    manifest = client.get(done["manifest_url"])
    assert manifest.status_code == 200 and manifest.json() == ExportJob.objects.get().manifest


def test_the_gold_export_is_a_zip_whose_parquet_tables_read_in_pandas(
    analysed, owner, as_user, django_capture_on_commit_callbacks
):
    client = as_user(owner)
    response = start(client, analysed, {"format": "gold"}, django_capture_on_commit_callbacks)
    job = client.get(response.json()["url"]).json()
    assert job["status"] == "done", job["error"]
    download = client.get(job["download_url"], HTTP_ACCEPT="application/zip")
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as zf:
        assert {"gold_by_item.parquet", "gold_by_country.parquet", "manifest.json"} <= set(zf.namelist())
        gold = pd.read_parquet(io.BytesIO(zf.read("gold_by_item.parquet")))
    assert not gold.empty and {"item", "field", "n"} <= set(gold.columns)


def test_a_viewer_reads_and_downloads_but_may_not_start_or_cancel(exported, viewer, as_user):
    client = as_user(viewer)
    assert client.get(one(exported)).json()["status"] == "done"
    assert client.get(f"{one(exported)}download/").status_code == 200
    refused = client.post(exports(exported.study), {"format": "csv"}, format="json")
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert client.post(f"{one(exported)}cancel/").status_code == 403
    assert ExportJob.objects.count() == 1


def test_it_refuses_to_export_without_an_analysis_as_a_409(rated, owner, as_user):
    response = as_user(owner).post(exports(rated), {"format": "csv"}, format="json")
    assert response.status_code == 409
    assert response.json()["detail"] == "Run the analysis on the current data first: no analysis has finished yet."
    assert not ExportJob.objects.exists()


def test_it_refuses_to_export_stale_data_as_a_409(analysed, owner, pool, items, as_user):
    annotate(f.make_annotator(pool), items[0])
    response = as_user(owner).post(exports(analysed), {}, format="json")
    assert response.status_code == 409 and "1 new annotation since the last analysis" in response.json()["detail"]
    assert not ExportJob.objects.exists()


@pytest.mark.parametrize("body, field, says", [
    ({"format": "xlsx"}, "format", "Unknown export format 'xlsx': choose one of csv"),
    ({"format": ["csv"]}, "format", "Not a valid string."),
    ({"format": "csv", "options": {"license": "mine"}}, "options.license", "Unknown license: license must be"),
    ({"format": "csv", "options": {"images": "perhaps"}}, "options.images", "Must be a valid boolean."),
    ({"format": "csv", "options": {"images": 1}}, "options.images", "Must be a valid boolean."),
    ({"format": "csv", "options": {"colour": "red"}}, "options.colour", "Unknown field."),
    ({"format": "csv", "options": "all"}, "options", "Invalid data. Expected a dictionary"),
    ({"format": "csv", "rows": 5}, "rows", "Unknown field."),
])
def test_a_bad_export_is_a_400_naming_the_field(analysed, owner, as_user, body, field, says):
    response = as_user(owner).post(exports(analysed), body, format="json")
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()
    assert not ExportJob.objects.exists()


def test_a_format_that_does_not_fit_the_protocol_is_a_409(analysed, owner, as_user):
    response = as_user(owner).post(exports(analysed), {"format": "coco"}, format="json")
    assert response.status_code == 409
    assert response.json()["detail"] == "The COCO boxes format does not fit this study's protocol."
    assert not ExportJob.objects.exists()


def test_a_running_export_says_when_to_poll_and_has_no_file_yet(analysed, owner, as_user):
    job = export_start(study=analysed, user=owner)  # on_commit never fires here: stays queued
    client = as_user(owner)
    polled = client.get(one(job))
    assert polled["Retry-After"] == "2" and polled.json()["download_url"] is None and polled.json()["manifest"] is None
    for what in ("download/", "manifest/"):
        response = client.get(f"{one(job)}{what}")
        assert response.status_code == 409 and "it is queued" in response.json()["detail"]


def test_an_editor_cancels_a_queued_export_and_a_second_cancel_is_a_409(analysed, owner, editor, as_user):
    job = export_start(study=analysed, user=owner)
    client = as_user(editor)
    response = client.post(f"{one(job)}cancel/")
    assert response.status_code == 200 and response.json()["status"] == "failed"
    assert "Cancelled by editor" in response.json()["error"]
    again = client.post(f"{one(job)}cancel/")
    assert again.status_code == 409 and again.json()["detail"] == "That export had already ended."


def test_exports_are_listed_newest_first_a_page_at_a_time(analysed, owner, viewer, as_user,
                                                          django_assert_max_num_queries):
    jobs = [export_start(study=analysed, user=owner, format=name) for name in ("csv", "jsonl", "parquet")]
    client = as_user(viewer)
    with django_assert_max_num_queries(4):
        first = client.get(f"{exports(analysed)}?page_size=2").json()
    assert [r["id"] for r in first["results"]] == [jobs[2].pk, jobs[1].pk]
    assert first["results"][0]["url"].endswith(one(jobs[2]))
    rest = client.get(first["next"]).json()
    assert [r["id"] for r in rest["results"]] == [jobs[0].pk] and rest["next"] is None


def test_the_list_is_not_found_by_another_researcher(analysed, other_researcher, as_user, anonymous):
    assert as_user(other_researcher).get(exports(analysed)).status_code == 404
    assert as_user(other_researcher).post(exports(analysed), {"format": "csv"}, format="json").status_code == 404
    assert anonymous.get(exports(analysed)).status_code == 401
    assert not ExportJob.objects.exists()


def test_an_export_of_another_study_is_not_found_in_this_studys_address(
    exported, study, other_researcher, as_user
):
    theirs = f.make_study(other_researcher, name="Theirs")
    client = as_user(other_researcher)
    for what in ("", "download/", "manifest/"):
        assert client.get(f"{exports(theirs)}{exported.pk}/{what}").status_code == 404
        assert client.get(f"{one(exported)}{what}").status_code == 404
    assert client.post(f"{exports(theirs)}{exported.pk}/cancel/").status_code == 404
    assert as_user(study.owner).get(f"{exports(study)}{exported.pk + 1000}/").status_code == 404


def test_a_checker_has_no_api(exported, checker):
    client = logged_in(checker)
    assert client.get(one(exported)).status_code == 403
    assert client.get(f"{one(exported)}download/").status_code == 403
    assert client.post(f"{one(exported)}cancel/").status_code == 403


HUGE = "9" * 30


@pytest.mark.parametrize("address", [
    "/api/v1/studies/{study}/exports/" + HUGE + "/", "/api/v1/studies/{study}/exports/" + HUGE + "/download/",
    "/api/v1/studies/{study}/exports/" + HUGE + "/manifest/", "/api/v1/studies/" + HUGE + "/export-formats/",
    "/api/v1/studies/{study}/reviews/" + HUGE + "/", "/api/v1/studies/{study}/pools/" + HUGE + "/review-target/",
])
def test_a_hostile_address_is_a_404_never_a_500(study, as_user, address):
    response = as_user(study.owner).get(address.format(study=study.pk))
    assert response.status_code == 404, response.content
    assert response.json()["detail"] == "Not found."


def test_an_export_shows_the_release_it_is_of_once_written(exported, analysed, owner, as_user):
    client = as_user(owner)
    body = client.get(one(exported)).json()
    assert body["release"] == {"number": 1, "version": "1.0.0", "changes": exported.release.changes}
    assert body["release"]["changes"][0].startswith("First release: 6 annotations")
    queued = export_start(study=analysed, user=owner, format="csv")
    listed = {row["id"]: row["release"] for row in client.get(exports(analysed)).json()["results"]}
    assert listed[queued.pk] is None and listed[exported.pk]["number"] == 1  # the queued one: not written yet

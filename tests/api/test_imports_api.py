"""/api/v1/studies/{id}/imports/: items imported from a rows file and an images zip as the import page
takes them (the same ``import_start``, its refusals under their field, the page's limits, a 413
before the body is read), answered 202 with the job to poll; the list of imports, one polled; the
fixed cast's refusals. Jobs run in process (the queue is eager in tests): run on the commit."""


import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from studies.models import ImportJob, Item
from tests import factories as f
from tests.helpers import csv_bytes, zip_bytes


def imports_url(study) -> str:
    return f"/api/v1/studies/{study.pk}/imports/"


def row(n: int) -> dict:
    return {"id": f"p{n}", "prompt": f"Prompt {n}", "image": f"{n}.png", "country": "IN"}


def png(n: int) -> bytes:
    return f.png_bytes(color=(n * 40 % 256, n * 70 % 256, 90))


def good_upload() -> dict:
    return {
        "rows": SimpleUploadedFile("items.csv", csv_bytes([row(1), row(2)])),
        "images": SimpleUploadedFile("images.zip", zip_bytes({"1.png": png(1), "2.png": png(2)})),
    }


def post(client, study, data, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # the job runs as the eager queue would
        return client.post(imports_url(study), data, format="multipart")


def test_an_editor_imports_items_and_polls_the_job_until_done(
    study, pool, editor, as_user, django_capture_on_commit_callbacks
):
    client = as_user(editor)
    response = post(client, study, good_upload(), django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.json()
    job = ImportJob.objects.get(study=study)
    started = response.json()
    assert started["id"] == job.pk and started["status"] == "queued" and response["Retry-After"] == "2"
    assert started["rows_name"] == "items.csv" and started["images_name"] == "images.zip"
    assert response["Location"] == started["url"] == f"http://testserver{imports_url(study)}{job.pk}/"
    polled = client.get(started["url"])
    body = polled.json()
    assert polled.status_code == 200 and "Retry-After" not in polled
    assert body["status"] == "done" and body["created_items"] == 2 and body["problems"] == []
    assert body["summary"] and body["finished_at"]
    assert sorted(Item.objects.filter(study=study).values_list("external_id", flat=True)) == ["p1", "p2"]


def test_a_refused_file_fails_the_job_with_each_problem_and_imports_nothing(
    study, pool, as_user, django_capture_on_commit_callbacks
):
    rows = csv_bytes([row(1), {**row(2), "country": ""}, {**row(3), "image": "missing.png"}])
    data = {"rows": SimpleUploadedFile("items.csv", rows),
            "images": SimpleUploadedFile("images.zip", zip_bytes({"1.png": png(1)}))}
    client = as_user(study.owner)
    started = post(client, study, data, django_capture_on_commit_callbacks).json()
    body = client.get(started["url"]).json()
    assert body["status"] == "failed" and "Nothing was imported from items.csv" in body["error"]
    assert body["problems_count"] == len(body["problems"]) >= 2
    assert any("line 3" in p for p in body["problems"]), body["problems"]
    assert not Item.objects.filter(study=study).exists()


@pytest.mark.parametrize("data, field, says", [
    ({}, "rows", "This field is required"),
    ({"rows": SimpleUploadedFile("items.txt", b"id\n1\n")}, "rows", "use a .csv or .jsonl file"),
    ({"rows": SimpleUploadedFile("items.csv", b"")}, "rows", "The submitted file is empty"),
    ({"rows": "not a file"}, "rows", "This field is required"),  # a text, not a file
    ({"rows": SimpleUploadedFile("items.csv", b"id\n"), "images": SimpleUploadedFile("images.tar", b"x")},
     "images", "must be one .zip file"),
    ({"rows": SimpleUploadedFile("items.csv", b"id\n"), "extra": "1"}, "extra", "Unknown field"),
])
def test_a_bad_upload_is_a_400_naming_the_field_and_no_job_starts(
    study, pool, as_user, django_capture_on_commit_callbacks, data, field, says
):
    response = post(as_user(study.owner), study, data, django_capture_on_commit_callbacks)
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()
    assert not ImportJob.objects.exists()


def test_a_file_past_its_limit_is_a_400_naming_it(study, pool, as_user, settings, django_capture_on_commit_callbacks):
    settings.IMPORT_ROWS_MAX_BYTES = 10
    data = {"rows": SimpleUploadedFile("items.csv", csv_bytes([row(1)]))}
    response = post(as_user(study.owner), study, data, django_capture_on_commit_callbacks)
    assert response.status_code == 400 and "more than the limit of 10 bytes" in response.json()["rows"][0]
    assert not ImportJob.objects.exists()


def test_a_body_past_the_pages_limit_is_a_413_before_it_is_read(study, pool, as_user, settings):
    settings.IMPORT_ROWS_MAX_BYTES = settings.IMPORT_ZIP_MAX_BYTES = 10
    big = SimpleUploadedFile("items.csv", b"id\n" + b"1\n" * (600 * 1024))  # past the limits and the form's 1 MiB
    response = as_user(study.owner).post(imports_url(study), {"rows": big}, format="multipart")
    assert response.status_code == 413 and "larger than the limit" in response.json()["detail"]
    assert not ImportJob.objects.exists()


def test_json_is_no_upload(study, as_user):
    response = as_user(study.owner).post(imports_url(study), {"rows": "a"}, format="json")
    assert response.status_code == 415 and not ImportJob.objects.exists()


def test_the_imports_are_listed_newest_first_and_one_is_polled(study, viewer, as_user):
    first = ImportJob.objects.create(study=study, rows_name="a.csv")
    second = ImportJob.objects.create(study=study, rows_name="b.csv", status="failed", problems=["line 2: x"] * 150)
    client = as_user(viewer)
    rows = client.get(imports_url(study)).json()["results"]
    assert [r["id"] for r in rows] == [second.pk, first.pk]
    assert rows[0]["problems_count"] == 150 and len(rows[0]["problems"]) == 100
    assert rows[1]["url"] == f"http://testserver{imports_url(study)}{first.pk}/"
    polled = client.get(f"{imports_url(study)}{first.pk}/")
    assert polled.status_code == 200 and polled.json()["status"] == "queued" and polled["Retry-After"] == "2"


def test_the_list_of_imports_costs_three_queries(study, as_user, django_assert_num_queries):
    for n in range(4):
        ImportJob.objects.create(study=study, rows_name=f"{n}.csv")
    client = as_user(study.owner)
    client.get(imports_url(study))  # the token's first use is written once
    with django_assert_num_queries(3):  # the token with its account, the study scoped, the page
        assert len(client.get(imports_url(study)).json()["results"]) == 4


def test_the_cast_is_refused_and_nothing_is_imported(
    study, pool, viewer, other_researcher, checker, as_user, anonymous, django_capture_on_commit_callbacks
):
    refused = post(as_user(viewer), study, good_upload(), django_capture_on_commit_callbacks)
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert post(as_user(other_researcher), study, good_upload(), django_capture_on_commit_callbacks).status_code == 404
    assert post(anonymous, study, good_upload(), django_capture_on_commit_callbacks).status_code == 401
    session = APIClient()
    session.force_login(checker)
    assert post(session, study, good_upload(), django_capture_on_commit_callbacks).status_code == 403
    assert session.get(imports_url(study)).status_code == 403
    assert as_user(other_researcher).get(imports_url(study)).status_code == 404
    assert anonymous.get(imports_url(study)).status_code == 401
    assert not ImportJob.objects.exists() and not Item.objects.exists()


def test_an_import_of_another_study_is_not_found_in_this_studys_address(study, other_researcher, as_user):
    theirs = ImportJob.objects.create(study=f.make_study(other_researcher, name="Theirs"), rows_name="t.csv")
    mine = ImportJob.objects.create(study=study, rows_name="m.csv")
    assert as_user(study.owner).get(f"{imports_url(study)}{theirs.pk}/").status_code == 404
    assert as_user(other_researcher).get(f"{imports_url(theirs.study)}{mine.pk}/").status_code == 404
    assert as_user(other_researcher).get(f"{imports_url(study)}{mine.pk}/").status_code == 404

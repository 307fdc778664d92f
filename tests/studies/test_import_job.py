"""Importing items from the browser: the upload page, the job on the job base, its progress and
its problems; the same ``items_import`` as ``manage.py import_items``. For the study's owner only."""

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import TestCase
from django.urls import reverse

from studies.importing.job import import_run, import_start
from studies.models import ImportJob, Item, ItemQuota
from tests import factories as f
from tests.helpers import csv_bytes, zip_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def pools(pool, other_pool):
    return pool, other_pool


def page_url(study):
    return reverse("analysis:import-items", args=[study.pk])


def status_url(study, job):
    return reverse("analysis:import-status", args=[study.pk, job.pk])


def png(n: int) -> bytes:
    return f.png_bytes(color=(n * 40 % 256, n * 70 % 256, 90))


def row(n: int, country="IN", **extra) -> dict:
    return {"id": f"p{n}", "prompt": f"Prompt {n}", "image": f"{n}.png", "country": country, **extra}


def upload(client, study, rows: bytes, images: bytes | None, rows_name="items.csv", images_name="images.zip"):
    data = {"rows": SimpleUploadedFile(rows_name, rows)}
    if images is not None:
        data["images"] = SimpleUploadedFile(images_name, images)
    with TestCase.captureOnCommitCallbacks(execute=True):  # the job runs as the eager queue would
        return client.post(page_url(study), data)


def images_errors(response) -> str:
    """The errors the page shows right after the images field."""
    page = response.content.decode()
    after = page.split('id="import-images"', 1)[1]
    return after.split('id="import-images-errors">', 1)[1].split("</ul>", 1)[0]


def imported(study) -> set[str]:
    return set(Item.objects.filter(study=study).values_list("external_id", flat=True))


def stored_files(media) -> list[Path]:
    return [p for p in Path(media).rglob("*") if p.is_file()]


# --- happy paths ------------------------------------------------------------------------------


def test_it_imports_a_csv_and_a_zip_and_shows_the_summary(client, owner, study, pools, media):
    client.force_login(owner)
    images = zip_bytes({"1.png": png(1), "2.png": png(2), "3.png": png(3)})
    response = upload(client, study, csv_bytes([row(1), row(2), row(3, "JP")]), images)

    assert response.status_code == 302
    job = ImportJob.objects.get(study=study)
    assert (job.status, job.progress, job.created_items) == ("done", 100, 3)
    assert imported(study) == {"p1", "p2", "p3"}
    assert Item.objects.get(study=study, external_id="p2").image.read() == png(2)
    assert ItemQuota.objects.filter(item__study=study).count() == 3
    assert not job.rows_file and not job.images_file, "the uploads are deleted once the job ends"
    assert all("imports" not in p.parts for p in stored_files(media))
    page = client.get(page_url(study)).content.decode()
    assert "Imported 3 items (IN: 2, JP: 1) from items.csv and images.zip" in page


def test_it_imports_jsonl_with_a_zip(client, owner, study, pools):
    client.force_login(owner)
    lines = [row(1, is_example=True), row(2, "JP", lang="hi")]
    rows = "\n".join(json.dumps(line) for line in lines).encode()
    upload(client, study, rows, zip_bytes({"1.png": png(1), "2.png": png(2)}), rows_name="items.jsonl")

    job = ImportJob.objects.get(study=study)
    assert job.status == "done"
    assert job.summary == "Imported 2 items (IN: 1, JP: 1), 1 of them practice-test examples"
    assert Item.objects.get(study=study, external_id="p2").metadata == {"lang": "hi"}


def test_it_reports_progress_while_checking_and_writing(study, pools, owner, monkeypatch):
    seen: list[int] = []
    import studies.importing.service as service

    monkeypatch.setattr(service, "PROGRESS_EVERY", 1)
    monkeypatch.setattr(service, "BATCH", 2)
    original = service._write

    def watching_write(**kwargs):
        seen.append(ImportJob.objects.get(study=study).progress)
        return original(**kwargs)

    monkeypatch.setattr(service, "_write", watching_write)
    rows = [row(n) for n in range(1, 6)]
    images = zip_bytes({f"{n}.png": png(n) for n in range(1, 6)})
    job = import_start(
        study=study, user=owner, rows=SimpleUploadedFile("items.csv", csv_bytes(rows)),
        images=SimpleUploadedFile("images.zip", images),
    )
    job = import_run(job_id=job.pk)

    assert 0 < seen[0] <= 50, "checking the rows is the first half of the bar"
    assert (job.status, job.progress) == ("done", 100)


def test_the_status_fragment_polls_while_the_job_runs(client, owner, study):
    job = ImportJob.objects.create(
        study=study, requested_by=owner, rows_name="items.csv", status="running", progress=40
    )
    client.force_login(owner)
    html = client.get(status_url(study, job)).content.decode()
    assert 'hx-trigger="every 1s"' in html
    assert "Importing items.csv: 40%" in html
    assert 'value="40"' in html


# --- refusals: nothing imported, every problem with its line -----------------------------------


def test_a_file_with_one_bad_row_imports_nothing_and_names_the_line(client, owner, study, pools, media):
    client.force_login(owner)
    rows = [row(1), row(2, country="FR"), row(3)]
    upload(client, study, csv_bytes(rows), zip_bytes({"1.png": png(1), "2.png": png(2), "3.png": png(3)}))

    job = ImportJob.objects.get(study=study)
    assert job.status == "failed"
    assert job.problems == ["line 3: country 'FR' has no pool in this study (pools: IN, JP)"]
    assert not imported(study)
    assert not stored_files(media), "a refused file leaves no image and no upload behind"
    page = client.get(page_url(study)).content.decode()
    assert "Nothing was imported from items.csv: 1 problem." in page
    assert "line 3: country &#x27;FR&#x27; has no pool in this study" in page


def test_a_missing_image_is_reported_with_its_line(client, owner, study, pools):
    client.force_login(owner)
    upload(client, study, csv_bytes([row(1), row(2)]), zip_bytes({"1.png": png(1)}))
    job = ImportJob.objects.get(study=study)
    assert job.problems == ["line 3: image file '2.png' not found in the zip"]
    assert not imported(study)


def test_a_broken_zip_is_a_clear_message_not_an_error_page(client, owner, study, pools):
    client.force_login(owner)
    response = upload(client, study, csv_bytes([row(1)]), b"PK\x03\x04 this is not really a zip")
    assert response.status_code == 302
    job = ImportJob.objects.get(study=study)
    assert job.status == "failed"
    assert job.problems == ["images.zip is not a readable .zip file (damaged or another format)"]
    assert "images.zip is not a readable .zip file" in client.get(page_url(study)).content.decode()
    assert not imported(study)


def test_a_truncated_zip_is_a_clear_message(client, owner, study, pools):
    client.force_login(owner)
    whole = zip_bytes({"1.png": png(1)})
    upload(client, study, csv_bytes([row(1)]), whole[: len(whole) - 10])
    job = ImportJob.objects.get(study=study)
    assert job.status == "failed"
    assert job.problems and "images.zip is not a readable .zip file" in job.problems[0]


def test_a_csv_that_is_not_text_is_a_clear_message(client, owner, study, pools):
    client.force_login(owner)
    upload(client, study, b"\xff\xfe\x00binary\x00\x9c", zip_bytes({"1.png": png(1)}))
    job = ImportJob.objects.get(study=study)
    assert job.status == "failed"
    assert job.problems == ["items.csv is not UTF-8 text"]


def test_it_refuses_an_oversize_upload_before_storing_it(client, owner, study, pools, settings, media):
    settings.IMPORT_ZIP_MAX_BYTES = 100
    client.force_login(owner)
    response = upload(client, study, csv_bytes([row(1)]), zip_bytes({"1.png": png(1)}))
    assert response.status_code == 400
    form = response.context["form"]
    assert "more than the limit of 100 bytes" in form.errors["images"][0] and not form.non_field_errors()
    assert "more than the limit of 100 bytes" in images_errors(response)
    assert not ImportJob.objects.exists()
    assert not stored_files(media)


def test_it_refuses_an_oversize_rows_file_next_to_its_field(client, owner, study, pools, settings, media):
    settings.IMPORT_ROWS_MAX_BYTES = 10
    client.force_login(owner)
    response = upload(client, study, csv_bytes([row(1)]), None)
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert "items.csv is" in errors["rows"][0] and "images" not in errors
    assert not ImportJob.objects.exists()


def test_it_refuses_images_that_are_not_one_zip_next_to_their_field(client, owner, study, pools, media):
    client.force_login(owner)
    response = upload(client, study, csv_bytes([row(1)]), b"not a zip", images_name="images.tar")
    assert response.status_code == 400
    assert response.context["form"].errors["images"] == ["images.tar: the images must be one .zip file."]
    assert "images.tar: the images must be one .zip file." in images_errors(response)
    assert 'aria-describedby="import-images-errors"' in response.content.decode()
    assert not ImportJob.objects.exists() and not stored_files(media)


def test_it_refuses_a_request_past_both_limits_before_reading_it(client, owner, study, settings, media):
    settings.IMPORT_ROWS_MAX_BYTES = settings.IMPORT_ZIP_MAX_BYTES = 10
    client.force_login(owner)
    response = client.post(page_url(study), {"rows": SimpleUploadedFile("items.csv", b"x" * (2 << 20))})
    assert response.status_code == 413
    assert "The upload is larger than the limit of 1,048,596 bytes." in response.content.decode()
    assert not ImportJob.objects.exists()
    assert not stored_files(media)


def test_it_refuses_a_rows_file_of_another_kind(client, owner, study, pools):
    client.force_login(owner)
    response = upload(client, study, b"id\n1\n", None, rows_name="items.xlsx")
    assert response.status_code == 400
    assert response.context["form"].errors["rows"] == ["items.xlsx: use a .csv or .jsonl file."]
    assert 'id="import-rows-errors"><li>items.xlsx: use a .csv or .jsonl file.</li>' in response.content.decode()
    assert not ImportJob.objects.exists()


# --- one code path ------------------------------------------------------------------------------


def test_the_command_and_the_job_give_the_same_result(client, owner, study, pools, tmp_path):
    other_study = f.make_study(owner)
    f.make_pool(other_study, "IN", "India")
    f.make_pool(other_study, "JP", "Japan")
    rows = csv_bytes([row(1), row(2, "JP"), row(3)])
    images = zip_bytes({"1.png": png(1), "2.png": png(2), "3.png": png(3)})
    (tmp_path / "items.csv").write_bytes(rows)
    (tmp_path / "images.zip").write_bytes(images)

    out = io.StringIO()
    call_command("import_items", str(study.pk), str(tmp_path / "items.csv"), images=str(tmp_path / "images.zip"),
                 stdout=out)
    client.force_login(owner)
    upload(client, other_study, rows, images)

    def shape(s):
        return sorted(Item.objects.filter(study=s).values_list("external_id", "country", "prompt", "sha256", "width"))

    assert shape(study) == shape(other_study)
    assert ImportJob.objects.get(study=other_study).summary in out.getvalue()


def test_the_command_and_the_job_refuse_a_file_with_the_same_problems(client, owner, study, pools, tmp_path):
    rows = csv_bytes([row(1), row(1), row(2)])
    images = zip_bytes({"1.png": png(1)})
    (tmp_path / "items.csv").write_bytes(rows)
    (tmp_path / "images.zip").write_bytes(images)
    with pytest.raises(Exception) as info:
        call_command("import_items", str(study.pk), str(tmp_path / "items.csv"), images=str(tmp_path / "images.zip"))
    client.force_login(owner)
    upload(client, study, rows, images)

    problems = ImportJob.objects.get(study=study).problems
    assert problems == [
        "line 3: duplicate id 'p1' (already on line 2)",
        "line 3: image '1.png' is the same image as on line 2",
        "line 4: image file '2.png' not found in the zip",
    ]
    assert all(problem in str(info.value) for problem in problems)


# --- access -------------------------------------------------------------------------------------


def test_the_owner_sees_the_page_and_the_dashboard_links_it(client, owner, study):
    client.force_login(owner)
    assert client.get(page_url(study)).status_code == 200
    assert page_url(study) in client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()


def test_another_researcher_gets_404(client, other_researcher, study, pools, owner):
    job = ImportJob.objects.create(study=study, requested_by=owner, rows_name="items.csv")
    client.force_login(other_researcher)
    assert client.get(page_url(study)).status_code == 404
    assert client.get(status_url(study, job)).status_code == 404
    assert upload(client, study, csv_bytes([row(1)]), zip_bytes({"1.png": png(1)})).status_code == 404
    assert ImportJob.objects.count() == 1


def test_a_checker_gets_404(client, checker, study):
    client.force_login(checker)
    assert client.get(page_url(study)).status_code == 404


def test_an_anonymous_visitor_is_sent_to_log_in(client, study):
    response = client.get(page_url(study))
    assert response.status_code == 302
    assert "login" in response["Location"]

"""Stored files are read only through views that check access, in every mode, and their names
carry a random part: no URL serves MEDIA_ROOT, DEBUG=1 (the demo) included."""

import importlib
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import clear_url_caches, reverse

import config.urls
from analysis.metrics import metric_upload_create
from analysis.models import AnalysisRun
from analysis.services import analysis_run
from annotation.models import Upload
from exports.services import export_build, export_start
from studies.importing.job import import_start
from studies.models import item_image_path
from tests import factories as f
from tests.annotations import annotate, annotators
from tests.helpers import login, on_items

RANDOM = r"-[0-9a-f]{32}\."


@pytest.fixture
def debug_urls(settings):
    """The site's URLs as DEBUG=1 builds them."""
    settings.DEBUG = True
    importlib.reload(config.urls)
    clear_url_caches()
    yield
    settings.DEBUG = False
    importlib.reload(config.urls)
    clear_url_caches()


def test_a_stored_file_is_not_served_by_its_media_url_in_debug(client, debug_urls, owner, study, items):
    name = items[0].image.name

    view = reverse("studies:item-image", args=[study.pk, items[0].pk])

    assert client.get(f"/media/{name}").status_code == 404
    assert client.get(view).status_code == 302  # to the login page
    login(client, owner)
    assert client.get(f"/media/{name}").status_code == 404, "not even to its owner: only through the view"
    assert client.get(view).status_code == 200


def test_exports_are_not_served_by_their_media_url_in_debug(client, debug_urls, settings, study):
    folder = Path(settings.MEDIA_ROOT) / "exports" / str(study.pk)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "export-1-20260101T000000Z.csv").write_text("secret,answers\n")

    assert client.get(f"/media/exports/{study.pk}/export-1-20260101T000000Z.csv").status_code == 404


def test_an_item_image_name_has_a_random_part(study, items):
    item = items[0]

    assert re.search(RANDOM, item.image.name), item.image.name
    assert item_image_path(item, "a.png") != item_image_path(item, "a.png")
    assert item.sha256 in item.image.name  # still found by its content when an operator looks


def test_an_annotators_upload_name_has_a_random_part(client, db):
    client, assignment, _ = on_items(client, "globalrg-grounding", prompt="Kathakali")
    file = SimpleUploadedFile("photo.png", f.png_bytes(size=(120, 90)), content_type="image/png")
    client.post(reverse("annotation:item-upload", args=[assignment.pk]), {"file": file})

    name = Upload.objects.get().file.name
    assert name.startswith(f"uploads/{assignment.pool.study_id}/") and re.search(RANDOM, name), name


def test_the_admins_item_page_links_the_image_through_the_scoped_view(client, owner, study, items):
    page = login(client, owner).get(reverse("admin:studies_item_change", args=[items[0].pk])).content.decode()

    assert reverse("studies:item-image", args=[study.pk, items[0].pk]) in page
    assert items[0].image.name not in page and "/media/" not in page


def test_an_export_file_name_has_a_random_part_and_downloads_by_a_readable_name(client, owner, study, items, pool):
    for rater in annotators(pool, 2):
        for item in items[:3]:
            annotate(rater, item)
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    first, second = (export_build(job_id=export_start(study=study, user=owner).pk) for _ in range(2))

    for job in (first, second):
        assert job.file.name.startswith(f"exports/{study.pk}/") and re.search(RANDOM, job.file.name), job.file.name
    response = login(client, owner).get(reverse("exports:export-download", args=[study.pk, first.pk]))
    day = first.finished_at.date().isoformat()
    assert f'filename="culturalframes-rating_csv_{day}.csv"' in response["Content-Disposition"]


def test_a_metric_upload_name_has_a_random_part(owner, study, items):
    text = "item,country,metric,score\n" + "".join(f"{i.external_id},{i.country},clip,0.5\n" for i in items)

    upload = metric_upload_create(study=study, user=owner, name="my scores.csv", data=text.encode())

    for name in (upload.file.name, upload.scores_file.name):
        assert name.startswith(f"exports/{study.pk}/metrics/") and re.search(RANDOM, name), name
    assert upload.original_name == "my scores.csv"


def test_an_import_upload_name_has_a_random_part(owner, study, pool, django_capture_on_commit_callbacks):
    rows = SimpleUploadedFile("items.csv", b"id,prompt,image,country\np1,A prompt,1.png,IN\n")
    images = SimpleUploadedFile("images.zip", b"PK\x05\x06" + b"\0" * 18)
    with django_capture_on_commit_callbacks(execute=False):  # kept queued: its files are still stored
        job = import_start(study=study, user=owner, rows=rows, images=images)

    for name in (job.rows_file.name, job.images_file.name):
        assert name.startswith(f"imports/{study.pk}/") and re.search(RANDOM, name), name
    assert (job.rows_name, job.images_name) == ("items.csv", "images.zip")

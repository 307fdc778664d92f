"""Stored files are read only through views that check access, in every mode, and their names
carry a random part: no URL serves MEDIA_ROOT, DEBUG=1 (the demo) included."""

import importlib
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import clear_url_caches, reverse

import config.urls
from annotation.models import Upload
from studies.models import item_image_path
from tests import factories as f
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

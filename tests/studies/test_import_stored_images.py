"""Rows that name images already on the site's storage instead of in the zip: a storage path or a URL
under the storage's public base, read from the study's own import folder and checked by Pillow
exactly like a zip's images; a missing file, another host, another bucket or another study's folder
is refused with the row's line, and nothing is ever fetched from the internet.

The storage here is the filesystem one (``MEDIA_ROOT`` in a temporary folder): the test suite has no
S3 fake (no moto or MinIO fixture), so the S3 forms (``s3://bucket/key``, the bucket's URL) are
tested on the pure locator only, with a stand-in storage."""

import csv
import io
import socket
import zipfile
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import TestCase
from django.urls import reverse

from studies.importing import RowProblem
from studies.importing.stored import StoredImages
from studies.models import ImportJob, Item
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: a URL only ever names a stored key."""

    def refuse(*args, **kwargs):
        raise AssertionError("the import tried to reach the network")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture
def pools(pool, other_pool):
    return pool, other_pool


def png(n: int, size=(64, 48)) -> bytes:
    return f.png_bytes(color=(n * 40 % 256, n * 70 % 256, 90), size=size)


def put(study, name: str, data: bytes) -> str:
    """A file on the site's storage in the study's import folder; its storage key."""
    return default_storage.save(f"imports/{study.pk}/{name}", ContentFile(data))


def csv_file(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "items.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "prompt", "image", "country"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def row(n: int, image: str, country="IN") -> dict:
    return {"id": f"p{n}", "prompt": f"Prompt {n}", "image": image, "country": country}


def run(study, rows_file: Path, images: Path | None = None) -> str:
    out = io.StringIO()
    options = {"images": str(images)} if images else {}
    call_command("import_items", str(study.pk), str(rows_file), stdout=out, **options)
    return out.getvalue()


def refused(study, rows_file: Path, images: Path | None = None) -> str:
    with pytest.raises(CommandError) as info:
        run(study, rows_file, images)
    assert not Item.objects.filter(study=study).exists()
    assert not list(Path(django_settings.MEDIA_ROOT).glob("items/**/*.*")), "a refused file stores no image"
    return str(info.value)


# --- accepted ---------------------------------------------------------------------------------


def test_a_storage_path_is_read_checked_and_copied_to_the_item(study, pools, tmp_path):
    key = put(study, "a.png", png(1, size=(30, 20)))
    out = run(study, csv_file(tmp_path, [row(1, key)]))
    assert "Imported 1 items (IN: 1)" in out
    item = Item.objects.get(study=study, external_id="p1")
    assert (item.width, item.height) == (30, 20) and item.image.read() == png(1, size=(30, 20))
    assert item.image.name.startswith(f"items/{study.pk}/") and item.image.name != key
    assert default_storage.exists(key), "the researcher's stored file is left where it was"


def test_a_url_under_media_url_is_read_as_its_key(study, pools, tmp_path, settings):
    settings.SITE_URL = "https://tessera.example.org"
    keys = [put(study, f"{n}.png", png(n)) for n in (1, 2)]
    path_url = default_storage.url(keys[0])  # /media/imports/<pk>/1.png
    assert path_url.startswith("/media/")
    full_url = "https://tessera.example.org" + default_storage.url(keys[1])
    out = run(study, csv_file(tmp_path, [row(1, path_url), row(2, full_url, "JP")]))
    assert "Imported 2 items (IN: 1, JP: 1)" in out
    assert Item.objects.get(study=study, external_id="p2").image.read() == png(2)


def test_zip_members_and_stored_images_mix_in_one_file(study, pools, tmp_path):
    archive = tmp_path / "images.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("1.png", png(1))
    key = put(study, "sub/2.png", png(2))
    out = run(study, csv_file(tmp_path, [row(1, "1.png"), row(2, key)]), archive)
    assert "Imported 2 items" in out
    assert Item.objects.get(study=study, external_id="p1").image.read() == png(1)
    assert Item.objects.get(study=study, external_id="p2").image.read() == png(2)


def test_the_browser_imports_a_data_file_without_a_zip(client, owner, study, pools):
    key = put(study, "a.png", png(1))
    out = io.StringIO()
    csv.DictWriter(out, fieldnames=["id", "prompt", "image", "country"]).writeheader()
    csv.DictWriter(out, fieldnames=["id", "prompt", "image", "country"]).writerow(row(1, key))
    client.force_login(owner)
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.post(reverse("analysis:import-items", args=[study.pk]),
                               {"rows": SimpleUploadedFile("items.csv", out.getvalue().encode())})
    assert response.status_code == 302
    job = ImportJob.objects.get(study=study)
    assert (job.status, job.created_items) == ("done", 1), job.problems
    assert Item.objects.get(study=study, external_id="p1").image.read() == png(1)


# --- refused, with the row's line -------------------------------------------------------------


def test_a_missing_stored_file_is_refused_with_its_line(study, pools, tmp_path):
    put(study, "a.png", png(1))
    message = refused(study, csv_file(tmp_path, [row(1, f"imports/{study.pk}/a.png"),
                                                 row(2, f"imports/{study.pk}/gone.png")]))
    assert f"line 3: image 'imports/{study.pk}/gone.png' not found on the site's storage" in message


@pytest.mark.parametrize("image, expected", [
    ("https://evil.example.com/media/imports/{pk}/a.png", "is on evil.example.com, not on this site's storage"),
    ("http://169.254.169.254/latest/meta-data/", "is on 169.254.169.254, not on this site's storage"),
    ("//evil.example.com/media/imports/{pk}/a.png", "is on evil.example.com, not on this site's storage"),
    ("file:///etc/passwd", "a web address must start with https://"),
    ("s3://someone-elses-bucket/imports/{pk}/a.png", "is in the bucket 'someone-elses-bucket', not on this site"),
    ("imports/{other}/a.png", "is not in this study's import folder on the site's storage (imports/{pk}/)"),
    ("/media/items/{pk}/a.png", "is not in this study's import folder"),
    ("/media/imports/{pk}/../../secret.png", "must not leave the images folder"),
])
def test_an_image_elsewhere_is_refused_with_its_line(study, pools, tmp_path, image, expected):
    put(study, "a.png", png(1))
    names = {"pk": study.pk, "other": study.pk + 1}
    message = refused(study, csv_file(tmp_path, [row(1, image.format(**names))]))
    assert "line 2: " in message and expected.format(**names) in message


def test_a_stored_file_that_is_not_an_image_is_refused_like_a_zip_member(study, pools, tmp_path):
    key = put(study, "notes.png", b"just some text\n")
    message = refused(study, csv_file(tmp_path, [row(1, key)]))
    assert f"line 2: '{key}' is not an image in an allowed format (JPEG, PNG, WebP, GIF)" in message


def test_a_stored_image_past_the_size_limit_is_refused(study, pools, tmp_path, settings):
    settings.IMAGE_MAX_BYTES = 100
    key = put(study, "big.png", png(1))
    message = refused(study, csv_file(tmp_path, [row(1, key)]))
    assert f"line 2: image '{key}' is {len(png(1)):,} bytes, more than the limit of 100 bytes" in message


def test_a_stored_image_already_in_the_study_is_refused(study, pools, tmp_path):
    key = put(study, "a.png", png(1))
    run(study, csv_file(tmp_path, [row(1, key)]))
    with pytest.raises(CommandError, match="line 2: image .* is already in this study"):
        run(study, csv_file(tmp_path, [row(2, key)]))


# --- the S3 forms, on the pure locator ----------------------------------------------------------


class Keys:
    """A stand-in storage: only its keys (no S3 here, see the module's docstring)."""

    def __init__(self, files):
        self.files = files

    def exists(self, name):
        return name in self.files

    def size(self, name):
        return len(self.files[name])

    def open(self, name, mode="rb"):
        return io.BytesIO(self.files[name])


def bucket_storage() -> StoredImages:
    return StoredImages(
        storage=Keys({"imports/3/a b.png": png(1)}),
        folder="imports/3",
        bases=["https://tessera-media.s3.eu-west-1.amazonaws.com/"],
        bucket="tessera-media",
    )


def test_an_s3_uri_and_the_buckets_url_name_a_key_of_the_bucket():
    stored = bucket_storage()
    assert stored.key("s3://tessera-media/imports/3/a b.png") == "imports/3/a b.png"
    signed = "https://tessera-media.s3.eu-west-1.amazonaws.com/imports/3/a%20b.png?X-Amz-Signature=x"
    assert stored.key(signed) == "imports/3/a b.png"
    assert stored.read(stored.key(signed), signed, 10**6) == png(1)
    assert stored.key("a.png") is None  # a member of the zip


@pytest.mark.parametrize("name", [
    "s3://other-bucket/imports/3/a.png",
    "https://other-bucket.s3.eu-west-1.amazonaws.com/imports/3/a.png",
    "https://tessera-media.s3.eu-west-1.amazonaws.com.evil.org/imports/3/a.png",
    "s3://tessera-media/imports/4/a.png",
])
def test_another_bucket_host_or_folder_is_refused(name):
    with pytest.raises(RowProblem):
        bucket_storage().key(name)

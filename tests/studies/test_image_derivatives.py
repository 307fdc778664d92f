"""Image derivatives: lighter WebP copies made after an import commits, at the widths narrower than
the original only, once per stored image, recorded on the rows; the command makes what is missing."""

import io
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from PIL import Image

from studies.derivatives import WIDTHS, derivative_name, derivative_widths, derivatives_make, webp_copies
from studies.models import Item, ItemImage
from tests import factories as f
from tests.studies.test_import_items import csv_file, folder, png, refused, row, run

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def photo(size=(1500, 1000), fmt="JPEG", exif=None) -> bytes:
    buf = io.BytesIO()
    im = Image.linear_gradient("L").resize(size).convert("RGB")
    im.save(buf, format=fmt, **({"exif": exif} if exif is not None else {}))
    return buf.getvalue()


def stored_size(name: str) -> tuple[str, tuple[int, int]]:
    with default_storage.open(name, "rb") as fh, Image.open(fh) as im:
        return im.format, im.size


def test_only_narrower_widths_are_made():
    assert derivative_widths(3000) == list(WIDTHS)
    assert derivative_widths(1500) == [640, 1280]
    assert derivative_widths(640) == []  # never the same width, never wider
    assert derivative_widths(None) == []
    copies = webp_copies(photo((1000, 500)), [640, 1280])
    assert list(copies) == [640]  # asked for more than the image has: not made
    with Image.open(io.BytesIO(copies[640])) as im:
        assert (im.format, im.size) == ("WEBP", (640, 320))


def test_the_exif_orientation_is_applied():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90°: shown 1000 wide and 1500 high
    copies = webp_copies(photo((1500, 1000), exif=exif), [640])
    with Image.open(io.BytesIO(copies[640])) as im:
        assert im.size == (640, 960)


def test_an_import_derives_its_images_once_committed(study, pool, tmp_path, django_capture_on_commit_callbacks):
    images = folder(tmp_path, {"1.png": photo((1500, 1000), "PNG"), "2.png": png(2)})
    with django_capture_on_commit_callbacks(execute=True):
        run(study, csv_file(tmp_path, [row(1), row(2)]), images)
    big, small = Item.objects.get(external_id="p1"), Item.objects.get(external_id="p2")
    assert big.derived_widths == [640, 1280]
    assert small.derived_widths == []  # 64 px wide: nothing lighter to make
    assert stored_size(derivative_name(big.image.name, 640)) == ("WEBP", (640, 427))
    assert stored_size(derivative_name(big.image.name, 1280)) == ("WEBP", (1280, 853))
    assert stored_size(big.image.name) == ("PNG", (1500, 1000))  # the original is kept as it was
    assert derivative_name(big.image.name, 640).startswith(big.image.name.rsplit(".", 1)[0])


def test_an_image_in_several_items_is_derived_once(study, pool, tmp_path, django_capture_on_commit_callbacks):
    images = folder(tmp_path, {"1.png": png(1), "2.png": photo((800, 600), "PNG"), "3.png": png(3), "4.png": png(4)})
    rows = [row(1, image_1="2.png", image_2="3.png"), row(4, image_1="2.png", image_2="4.png")]
    with django_capture_on_commit_callbacks(execute=True):
        run(study, csv_file(tmp_path, rows), images)
    shared = ItemImage.objects.filter(item__study=study, width=800)
    assert [i.derived_widths for i in shared] == [[640], [640]]
    name = shared.first().image.name
    folder_files = default_storage.listdir(name.rsplit("/", 1)[0])[1]
    assert [n for n in folder_files if n.endswith(".webp")] == [derivative_name(name, 640).rsplit("/", 1)[1]]


def test_a_damaged_image_is_still_refused_at_import(study, pool, tmp_path, media):
    images = folder(tmp_path, {"1.png": photo((1500, 1000), "PNG")[:2000]})
    assert "damaged or truncated" in refused(study, csv_file(tmp_path, [row(1)]), images, media)


def test_the_command_derives_what_is_missing_and_nothing_twice(study, pool):
    item = f.make_item(study, size=(1400, 900))
    small = f.make_item(study)
    assert item.derived_widths is None
    out = io.StringIO()
    call_command("image_derivatives", study=study.pk, stdout=out)
    assert "Derived 2 image file(s)." in out.getvalue()
    item.refresh_from_db(), small.refresh_from_db()
    assert (item.derived_widths, small.derived_widths) == ([640, 1280], [])
    call_command("image_derivatives", stdout=(again := io.StringIO()))
    assert "Derived 0 image file(s)." in again.getvalue()
    assert default_storage.exists(derivative_name(item.image.name, 1280))


def test_a_file_deleted_since_is_recorded_without_derivatives(study, pool):
    item = f.make_item(study, size=(1400, 900))
    default_storage.delete(item.image.name)
    assert derivatives_make(study_id=study.pk) == 1
    item.refresh_from_db()
    assert item.derived_widths == []


def test_the_command_refuses_an_unknown_study(db):
    with pytest.raises(CommandError, match="no study with id 999"):
        call_command("image_derivatives", study=999)


def test_a_stored_derivative_is_not_made_again(study, pool, monkeypatch):
    item = f.make_item(study, size=(1400, 900))
    derivatives_make(study_id=study.pk)
    Item.objects.filter(pk=item.pk).update(derived_widths=None)  # recorded lost, files kept
    monkeypatch.setattr("studies.derivatives.webp_copies", lambda *a: pytest.fail("made again"))
    assert derivatives_make(study_id=study.pk) == 1
    item.refresh_from_db()
    assert item.derived_widths == [640, 1280]
    assert Path(default_storage.path(derivative_name(item.image.name, 640))).is_file()

"""A comparison's several images per item, imported by the same file + images: numbered columns
(image_n, model_n, params_n) or an 'images' JSON list; each refusal names its line and reason."""

import json
from pathlib import Path

import pytest

from studies.importing.columns import columns_for
from studies.importing.rows import item_needs, parse_row
from studies.models import Item, ItemImage
from tests.studies.test_import_items import csv_file, folder, png, refused, row, run

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def images(tmp_path):
    return folder(tmp_path, {f"{n}.png": png(n) for n in range(1, 10)})


def test_numbered_columns_give_each_image_its_model_and_parameters(study, pool, tmp_path, images):
    rows = [row(1, image_1="2.png", model_1="sdxl", params_1='{"seed": 7}', image_2="3.png", model_2="flux"),
            row(4, image_1="2.png", model_1="sdxl", image_2="5.png", model_2="dalle-3")]
    run(study, csv_file(tmp_path, rows), images)
    first = Item.objects.get(study=study, external_id="p1")
    assert [(i.position, i.model_name, i.params, (i.width, i.height)) for i in first.images.all()] == [
        (1, "sdxl", {"seed": 7}, (64, 48)), (2, "flux", {}, (64, 48))]
    assert "image_1" not in first.metadata and "model_2" not in first.metadata
    shared = ItemImage.objects.filter(item__study=study, sha256=first.images.get(position=1).sha256)
    assert shared.count() == 2 and len({i.image.name for i in shared}) == 1  # one image in two pairs: stored once
    with shared.first().image.open("rb") as fh:
        assert fh.read() == png(2)


def test_a_jsonl_images_list_keeps_every_other_key_as_a_parameter(study, pool, tmp_path, images):
    path = tmp_path / "items.jsonl"
    listed = [{"image": "2.png", "model": "sdxl", "seed": 1, "steps": 30}, {"image": "3.png", "model": "flux"},
              {"image": "4.png", "model": "kandinsky", "params": {"seed": 9}}]
    path.write_text(json.dumps({**row(1), "images": listed}) + "\n")
    run(study, path, images)
    item = Item.objects.get(study=study, external_id="p1")
    assert [(i.model_name, i.params) for i in item.images.all()] == [
        ("sdxl", {"seed": 1, "steps": 30}), ("flux", {}), ("kandinsky", {"seed": 9})]


@pytest.mark.parametrize(("extra", "message"), [
    ({"image_1": "2.png"}, "1 image(s): a comparison has 2 to 8"),
    ({"image_1": "2.png", "image_3": "3.png"}, "numbered from 1 without a gap (got image_1, image_3)"),
    ({"image_1": "2.png", "image_2": "2.png"}, "image 2 is the same image as image 1"),
    ({"image_1": "2.png", "image_2": "missing.png"}, "image 2: image file 'missing.png' not found"),
    ({"image_1": "2.png", "image_2": "3.png", "params_2": "[1]"}, "image 2: its parameters must be a JSON object"),
    ({"image_1": "2.png", "image_2": "3.png", "params_1": "{oops"}, "image 1: its parameters are not valid JSON"),
    ({"image_1": "2.png", "image_2": "3.png", "images": '[{"image": "4.png"}]'}, "not both"),
    ({"model_1": "sdxl", "image_2": "3.png"}, "image 1: its file"),
])
def test_a_row_with_bad_images_is_refused_with_its_line(study, pool, tmp_path, images, media, extra, message):
    said = refused(study, csv_file(tmp_path, [row(1), row(4, **extra)]), images, media)
    assert "line 3:" in said and message in said


def test_more_than_eight_images_are_refused():
    listed = [{"image": f"{n}.png"} for n in range(1, 10)]
    _, problems = parse_row(2, {**row(1), "images": listed})
    assert problems == ["9 image(s): a comparison has 2 to 8"]


def test_a_study_without_a_comparison_needs_no_images(study):
    assert item_needs(study.spec).images is False
    assert "images" not in {c.name for c in columns_for(study.spec) if c.required}
    _, problems = parse_row(2, {**row(1)}, needs=item_needs(study.spec))
    assert problems == []


def test_the_import_page_explains_the_images_column(study):
    (images,) = [c for c in columns_for(study.spec) if c.name == "images"]
    assert "image_1" in images.meaning and json.loads(images.example)[0]["model"] == "sdxl"


def test_images_on_an_ordinary_row_are_refused_when_the_file_is_missing(study, pool, tmp_path, media):
    empty = folder(tmp_path, {"1.png": png(1), "4.png": png(4)})
    said = refused(study, csv_file(tmp_path, [row(1, image_1="7.png", image_2="8.png")]), empty, media)
    assert "line 2: image 1:" in said and "line 2: image 2:" in said
    assert Path(media).exists() is False or not list(Path(media).rglob("*.png"))


def test_a_comparison_study_needs_images_on_every_item_but_its_practice_examples(owner):
    from studies.services import study_create_from_preset

    study = study_create_from_preset(owner=owner, preset="culturalframes-pairwise", name="Pairs", status="open")
    needs = item_needs(study.spec)
    assert needs.images and not needs.image
    assert "images" in {c.name for c in columns_for(study.spec) if c.required}
    _, problems = parse_row(2, {"id": "p1", "country": "IN"}, needs=needs)
    assert problems == ["no images: this study's protocol compares 2 to 8 images per item "
                        "(give image_1, image_2, … or an 'images' list)"]
    _, problems = parse_row(3, {"id": "ex-1", "country": "IN", "image": "ex.png", "is_example": "true"}, needs=needs)
    assert problems == []
    _, problems = parse_row(4, {"id": "p2", "country": "IN", "image_1": "a.png", "image_2": "b.png"}, needs=needs)
    assert problems == []

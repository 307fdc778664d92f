"""The ``coco`` export loaded by ``pycocotools.coco.COCO``: one annotation per annotator box and one
fused box per (image, country), bbox in pixels, the image sizes, an annotator flagged by a checker
left out; offered only to protocols with a field that draws boxes."""

import json

import pytest
from django.core.files.storage import default_storage
from pycocotools.coco import COCO

from annotation.models import Review, pseudonym_for
from exports.formats import FORMATS, formats_for
from stats.versions import ProtocolSet
from studies.protocol import UploadRef, parse_spec
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study, submitted
from tests.exports.conftest import CAIRE
from tests.exports.test_gold_export import exported
from tests.specs import GLOBALRG, YES_NO

ON_IMAGE = {
    "title": "Boxes on the item's image",
    "fields": [
        {"key": "box", "type": "bbox", "over": "image", "min": 1, "max": 2, "label": "Draw the dish"},
        {"key": "prevalent", "type": "choice", "level": "nominal", "label": "Prevalent?", "choices": YES_NO},
    ],
}


def loaded(job, tmp_path) -> COCO:
    path = tmp_path / "coco.json"
    with default_storage.open(job.file.name, "rb") as fh:
        path.write_bytes(fh.read())
    return COCO(str(path))


def test_coco_fits_only_protocols_that_draw_boxes():
    def names(spec):
        return [x.name for x in formats_for(ProtocolSet(current=parse_spec(spec), current_version=1))]

    assert "coco" in names(GLOBALRG) and "coco" in names(ON_IMAGE)
    assert "coco" not in names(CAIRE) and "hf" in names(CAIRE) and "gold" in names(CAIRE)


@pytest.fixture
def boxes(owner):
    study = inline_study(owner, ON_IMAGE, name="Boxes")
    kenya, ghana = f.make_pool(study, "KE", "Kenya"), f.make_pool(study, "GH", "Ghana")
    item = f.make_items(study, "KE", 1)[0]
    a, b, c = annotators(kenya, 3)
    (d,) = annotators(ghana, 1)
    for who, box in ((a, [10, 10, 20, 10]), (b, [12, 8, 20, 14]), (d, [0, 0, 10, 10])):
        annotate(who, item, submitted(item, {"box": json.dumps([box]), "prevalent": "yes"}))
    flagged = annotate(c, item, submitted(item, {"box": json.dumps([[40, 30, 20, 15]]), "prevalent": "no"}))
    Review.objects.create(annotation=flagged, reviewer=owner, outcome=Review.Outcome.FLAGGED)
    return study, item, (a, b, c, d)


def test_each_annotator_box_and_each_fused_box_is_a_coco_annotation(boxes, owner, tmp_path):
    study, item, (a, b, c, d) = boxes
    job = exported(study, owner, "coco")
    assert not job.is_zip and job.file.name.endswith(".json") and job.manifest["format"] == "coco"
    coco = loaded(job, tmp_path)
    (image,) = coco.loadImgs(coco.getImgIds())
    assert (image["width"], image["height"], image["item_id"]) == (64, 48, item.external_id)
    assert image["file_name"] == item.image.name.rsplit("/", 1)[-1]
    (category,) = coco.loadCats(coco.getCatIds())
    assert category["name"] == "box"
    anns = coco.loadAnns(coco.getAnnIds(imgIds=[image["id"]]))
    drawn = [x for x in anns if not x["attributes"]["fused"]]
    fused = {x["attributes"]["country"]: x for x in anns if x["attributes"]["fused"]}
    assert sorted(x["attributes"]["annotator"] for x in drawn) == sorted(pseudonym_for(x.public_id) for x in (a, b, d))
    assert pseudonym_for(c.public_id) not in {x["attributes"]["annotator"] for x in drawn}  # flagged: left out
    first = next(x for x in drawn if x["attributes"]["annotator"] == pseudonym_for(a.public_id))
    assert first["bbox"] == [10, 10, 20, 10] and first["area"] == 200 and first["iscrowd"] == 0
    assert first["attributes"]["country"] == "KE"
    # Kenya's fused box: the median of each edge: left 11, top 9, right 31, bottom 21
    assert fused["KE"]["bbox"] == [11, 9, 20, 12] and fused["KE"]["area"] == 240
    assert fused["KE"]["attributes"]["annotators"] == 2 and fused["KE"]["attributes"]["annotator"] is None
    assert fused["GH"]["bbox"] == [0, 0, 10, 10] and fused["GH"]["attributes"]["iou_mean"] == 1.0


def test_boxes_over_an_uploaded_photo_name_the_upload(owner, tmp_path):
    study = inline_study(owner, GLOBALRG, name="GlobalRG")
    pool = f.make_pool(study, "KE", "Kenya")
    item = f.make_items(study, "KE", 1, prompt="ugali")[0]
    a, b = annotators(pool, 2)
    upload = UploadRef("3f1c", 800, 600, "c0" * 32, "ugali.jpg")
    annotate(a, item, submitted(item, {"photo": "3f1c", "box": json.dumps([[100, 50, 200, 150]]), "prevalent": "yes"},
                                uploads=[upload]))
    annotate(b, item, submitted(item, {"_skip": "No image can be found"}))
    coco = loaded(exported(study, owner, "coco"), tmp_path)
    (image,) = coco.dataset["images"]
    assert (image["file_name"], image["width"], image["height"], image["sha256"]) == (
        f"uploads/{'c0' * 32}.jpg", 800, 600, "c0" * 32)  # as the hf export ships it under images/
    assert image["original_name"] == "ugali.jpg"
    assert [x["bbox"] for x in coco.dataset["annotations"]] == [[100, 50, 200, 150], [100, 50, 200, 150]]
    assert len(coco.getAnnIds(imgIds=[image["id"]], areaRng=[29_999, 30_001])) == 2


def test_the_catalog_offers_every_format():
    assert list(FORMATS) == ["csv", "jsonl", "parquet", "gold", "coco", "hf", "croissant"]


def test_two_annotators_photos_of_the_same_file_name_are_two_coco_images(photos, owner, tmp_path):
    study, item, photos = photos
    coco = loaded(exported(study, owner, "coco"), tmp_path)
    images = coco.dataset["images"]
    assert sorted(i["file_name"] for i in images) == sorted(f"uploads/{sha}.png" for sha, _ in photos)
    assert {i["original_name"] for i in images} == {"photo.jpg"}


def test_the_coco_info_names_its_analysis_run_and_data(boxes, owner, tmp_path):
    study, _, _ = boxes
    job = exported(study, owner, "coco")
    info = loaded(job, tmp_path).dataset["info"]
    assert (info["analysis_run"], info["data_fingerprint"], info["study"]) == (
        job.analysis_id, job.data_fingerprint, study.pk)
    assert info["date_created"].endswith("Z") and info["description"]

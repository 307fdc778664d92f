"""The export of every field type: boxes, uploads, URL lists, pick-one, skips, and documents in a
second table (annotations.csv and documents.csv in one ZIP)."""

import csv
import io
import json
import zipfile

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.models import ExportJob
from exports.services import export_build, export_start
from studies.protocol import UploadRef
from tests import factories as f
from tests.annotations import add_documents, annotate, annotators, inline_study, submitted
from tests.specs import CANDIDATES, CAPTION_CHOICE, GLOBALRG, RAVENEA_DOCS, ravenea_form


def exported(study, owner) -> ExportJob:
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    job = export_build(job_id=export_start(study=study, user=owner).pk)
    assert job.status == ExportJob.Status.DONE, job.error
    return job


def table(data: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def read_zip(job) -> tuple[list[dict], list[dict]]:
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        assert zf.namelist() == ["annotations.csv", "documents.csv", "manifest.json"]
        return table(zf.read("annotations.csv")), table(zf.read("documents.csv"))


def read_csv(job) -> list[dict]:
    with default_storage.open(job.file.name, "rb") as fh:
        return table(fh.read())


# --- RAVENEA: documents ---------------------------------------------------------------------


@pytest.fixture
def ravenea(owner):
    study = inline_study(owner, RAVENEA_DOCS, name="RAVENEA")
    pool = f.make_pool(study, "ID", "Indonesia")
    items = f.make_items(study, "ID", 2)
    docs = {item.pk: add_documents(item, 2) for item in items}
    a, b = annotators(pool, 2)
    answers = [
        (a, items[0], [("yes", "yes", "yes"), ("cannot_determine", "no", "yes")]),
        (b, items[0], [("no", "no", "no"), ("yes", "yes", "no")]),
        (a, items[1], [("yes", "no", "no"), ("no", "no", "no")]),
    ]
    for annotator, item, per_doc in answers:
        missing = [("Rendang", "https://en.wikipedia.org/wiki/Rendang")] if annotator == a and item == items[0] else []
        annotate(annotator, item, submitted(item, ravenea_form(per_doc, missing=missing), documents=docs[item.pk]))
    annotate(b, items[1], submitted(items[1], {"_skip": "The image does not load"}))
    return study, items, docs, (a, b)


def test_it_exports_documents_as_a_second_table_in_one_zip(ravenea, owner):
    study, items, docs, (a, _) = ravenea
    job = exported(study, owner)
    assert job.is_zip and job.file.name.endswith(".zip") and job.rows == 4
    annotations, documents = read_zip(job)
    assert len(annotations) == 4
    first = annotations[0]
    assert first["caption_ok"] == "yes" and first["docs_documents"] == "2"
    assert json.loads(first["missing"]) == [{"title": "Rendang", "url": "https://en.wikipedia.org/wiki/Rendang"}]
    assert "docs" not in first and "country" not in first  # not flattened into the annotation row
    assert annotations[1]["missing"] == ""  # none given: an optional field left empty is not stored
    assert len(documents) == 6  # (annotation, document) pairs; the skip has none
    assert list(documents[0]) == [
        "item_id", "pool_country", "annotator", "field", "document_id", "document_position", "document_title",
        "document_url", "country", "topic", "visual", "note", "combined_score", "protocol_version",
    ]  # fmt: skip
    row = documents[1]
    doc = docs[items[0].pk][1]
    assert (row["item_id"], row["annotator"], row["pool_country"]) == (items[0].external_id, a.pseudonym, "ID")
    assert (row["field"], row["document_id"], row["document_position"]) == ("docs", str(doc.pk), "1")
    assert (row["document_title"], row["document_url"]) == (doc.title, doc.url)
    assert (row["country"], row["topic"], row["visual"]) == ("cannot_determine", "no", "yes")
    assert [r["combined_score"] for r in documents] == ["3", "0", "-3", "1", "-1", "-3"]
    # The documents table joins the annotations table on (item_id, annotator).
    keys = {(r["item_id"], r["annotator"]) for r in annotations}
    assert {(r["item_id"], r["annotator"]) for r in documents} <= keys


def test_a_skip_has_its_reason_and_no_answers(ravenea, owner):
    annotations, _ = read_zip(exported(ravenea[0], owner))
    skip = annotations[3]
    assert skip["skipped"] == "The image does not load"
    assert skip["caption_ok"] == skip["docs_documents"] == skip["missing"] == ""
    assert all(r["skipped"] == "" for r in annotations[:3])


def test_it_downloads_the_zip_for_the_owner_only(client, ravenea, owner, other_researcher):
    study = ravenea[0]
    job = exported(study, owner)
    url = reverse("exports:export-download", args=[study.pk, job.pk])
    client.force_login(other_researcher)
    assert client.get(url).status_code == 404
    client.force_login(owner)
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert f'filename="ravenea_csv_{job.finished_at.date().isoformat()}.zip"' in response["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
        assert zf.namelist() == ["annotations.csv", "documents.csv", "manifest.json"]
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "Download the ZIP (annotations, documents and manifest.json)" in html
    assert "documents.csv" in html


# --- GlobalRG: upload and box ---------------------------------------------------------------


def test_it_exports_uploads_and_boxes_in_pixels(owner):
    study = inline_study(owner, GLOBALRG, name="GlobalRG")
    pool = f.make_pool(study, "KE", "Kenya")
    item = f.make_items(study, "KE", 1, prompt="ugali")[0]
    a, b = annotators(pool, 2)
    upload = UploadRef("3f1c", 800, 600, "c0" * 32, "ugali.jpg")
    form = {"photo": "3f1c", "box": json.dumps([[100, 50, 200, 150]]), "prevalent": "yes"}
    annotate(a, item, submitted(item, form, uploads=[upload]))
    annotate(b, item, submitted(item, {"_skip": "No image can be found"}))
    job = exported(study, owner)
    assert not job.is_zip and job.file.name.endswith(".csv")
    rows = read_csv(job)
    cols = list(rows[0])
    assert cols[cols.index("annotator") + 1 :][:9] == [
        "skipped", "photo_sha256", "photo_width", "photo_height", "photo_name",
        "box", "box_count", "prevalent", "surplus",
    ]  # fmt: skip
    first, skip = rows
    photo = (first["photo_sha256"], first["photo_width"], first["photo_height"], first["photo_name"])
    assert photo == ("c0" * 32, "800", "600", "ugali.jpg")
    assert json.loads(first["box"]) == [{"x": 100, "y": 50, "w": 200, "h": 150}]
    assert first["box_count"] == "1" and first["prevalent"] == "yes" and first["skipped"] == ""
    assert skip["skipped"] == "No image can be found"
    assert all(skip[c] == "" for c in cols[cols.index("photo_sha256") : cols.index("surplus")])


# --- RAVENEA caption choice: pick one -------------------------------------------------------


def test_it_exports_the_candidate_chosen_and_the_order_shown(owner):
    study = inline_study(owner, CAPTION_CHOICE, name="Captions")
    pool = f.make_pool(study, "VN", "Vietnam")
    item = f.make_items(study, "VN", 1, candidates=CANDIDATES)[0]
    a, b = annotators(pool, 2)
    shown = [CANDIDATES[2], CANDIDATES[0], CANDIDATES[1]]
    annotate(a, item, submitted(item, {"best": "sys-a"}, candidates=shown))
    annotate(b, item, submitted(item, {"best": "sys-b"}))
    rows = read_csv(exported(study, owner))
    assert (rows[0]["best"], rows[0]["best_order"]) == ("sys-a", "sys-c|sys-a|sys-b")
    assert (rows[1]["best"], rows[1]["best_order"]) == ("sys-b", "sys-a|sys-b|sys-c")
    assert rows[0]["skipped"] == ""


# --- every preset ----------------------------------------------------------------------------


def test_every_preset_can_be_analysed_and_exported(owner):
    from studies.services import presets_list, study_create_from_preset

    for preset in presets_list():
        study = study_create_from_preset(owner=owner, preset=preset.name)
        f.make_pool(study, "IN", "India")
        job = exported(study, owner)
        has_documents = any(x.kind.container for x in study.spec.fields)
        assert job.is_zip == has_documents, preset.name
        for fmt in ("jsonl", "parquet"):  # an empty study still has its typed schema
            other = export_build(job_id=export_start(study=study, user=owner, format=fmt).pk)
            assert other.status == ExportJob.Status.DONE, (preset.name, fmt, other.error)
            assert other.is_zip == has_documents and other.manifest["files"][0]["rows"] == 0

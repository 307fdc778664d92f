"""Each raw format opened by its real client (pandas, pyarrow), types checked; the manifest's
sha256 against the file; CSV formula injection; a failure mid-write leaves no file."""

import dataclasses
import hashlib
import io
import json
import os
import zipfile
from unittest import mock

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.files.storage import default_storage

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from annotation.models import Annotation, Review
from exports.formats import FORMATS
from exports.models import ExportJob
from exports.services import ExportRefused, export_build, export_start
from tests import factories as f
from tests.annotations import add_documents, annotate, annotators, inline_study, submitted
from tests.specs import GLOBALRG, RAVENEA_DOCS, ravenea_form

FORMULA = '=HYPERLINK("https://evil.example","click")'


def exported(study, owner, fmt) -> ExportJob:
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    job = export_build(job_id=export_start(study=study, user=owner, format=fmt).pk)
    assert job.status == ExportJob.Status.DONE, job.error
    return job


def stored(job) -> bytes:
    with default_storage.open(job.file.name, "rb") as fh:
        return fh.read()


@pytest.fixture
def rated(study, pool, other_pool, items, owner):
    a, b = annotators(pool, 2)
    c = annotators(other_pool, 1)[0]
    first = annotate(a, items[0], alignment=0.5, error_types=["explicit", "implicit"], words=["0", "2"], overall=2)
    annotate(b, items[0], alignment=1, stereotype="yes", stereotype_description=FORMULA)
    annotate(a, items[1], surplus=True, time_spent_ms=61_250, explanation="-the festival food is missing")
    annotate(c, items[3])
    Review.objects.create(annotation=first, reviewer=owner, outcome=Review.Outcome.ACCEPTED)
    return study


def test_the_catalog_lists_the_raw_formats_first():
    assert list(FORMATS)[:3] == ["csv", "jsonl", "parquet"]
    assert [f.extension for f in FORMATS.values()][:3] == ["csv", "jsonl", "parquet"]


def test_parquet_has_typed_columns(rated, owner, items):
    job = exported(rated, owner, "parquet")
    assert job.file.name.endswith(".parquet") and not job.is_zip and job.rows == 4
    data = stored(job)
    schema = pq.read_table(io.BytesIO(data)).schema
    assert schema.field("item_id").type == pa.string()
    assert schema.field("alignment").type == pa.float64()  # points 0, 0.5, 1
    assert schema.field("overall").type == pa.int64()  # points 1..5
    assert schema.field("error_types").type == pa.list_(pa.string())
    assert schema.field("words").type == pa.list_(pa.string())
    assert schema.field("words_indices").type == pa.list_(pa.int64())
    assert schema.field("surplus").type == pa.bool_()
    assert schema.field("protocol_version").type == pa.int64()
    assert schema.field("time_spent_s").type == pa.float64()
    assert schema.field("submitted_at").type == pa.timestamp("ms", tz="UTC")
    assert schema.field("review").type == pa.string()
    frame = pd.read_parquet(io.BytesIO(data))
    first = frame.iloc[0]
    assert first["item_id"] == items[0].external_id and first["pool_country"] == "IN"
    assert first["alignment"] == 0.5 and first["overall"] == 2
    assert list(first["error_types"]) == ["explicit", "implicit"]
    assert list(first["words"]) == ["A", "sharing"] and list(first["words_indices"]) == [0, 2]
    assert first["review"] == "accepted" and pd.isna(frame.iloc[1]["review"])
    assert frame.iloc[1]["stereotype_description"] == FORMULA  # no formula in Parquet to neutralise
    assert frame.iloc[2]["surplus"] and frame.iloc[2]["time_spent_s"] == 61.25
    assert frame.iloc[1]["error_types"] is None  # not asked: null, not an empty string
    assert str(frame["submitted_at"].dtype) == "datetime64[ms, UTC]"
    stored_at = Annotation.objects.order_by("id").first().submitted_at  # aware, UTC
    assert abs(frame.iloc[0]["submitted_at"].to_pydatetime() - stored_at).total_seconds() < 0.001


def test_jsonl_keeps_lists_and_numbers(rated, owner):
    job = exported(rated, owner, "jsonl")
    lines = stored(job).decode("utf-8").splitlines()
    assert len(lines) == 4 == job.rows
    first = json.loads(lines[0])
    assert first["alignment"] == 0.5 and first["overall"] == 2 and isinstance(first["overall"], int)
    assert first["error_types"] == ["explicit", "implicit"] and first["words_indices"] == [0, 2]
    assert first["time_spent_s"] == 42.0 and first["surplus"] is False and first["review"] == "accepted"
    assert first["submitted_at"].endswith("Z")
    frame = pd.read_json(io.BytesIO(stored(job)), lines=True)
    assert len(frame) == 4
    assert frame["overall"].dtype.kind == "i" and frame["alignment"].dtype.kind == "f"
    assert frame.iloc[0]["error_types"] == ["explicit", "implicit"]
    assert frame.iloc[1]["stereotype_description"] == FORMULA


def test_csv_reads_back_with_numbers_and_neutralised_formulas(rated, owner):
    job = exported(rated, owner, "csv")
    frame = pd.read_csv(io.BytesIO(stored(job)))
    assert len(frame) == 4
    assert frame["alignment"].dtype.kind == "f" and frame["overall"].dtype.kind == "i"
    assert frame["protocol_version"].dtype.kind == "i" and frame["time_spent_s"].dtype.kind == "f"
    assert frame.iloc[0]["error_types"] == "explicit|implicit" and frame.iloc[0]["review"] == "accepted"
    assert frame.iloc[1]["stereotype_description"] == "'" + FORMULA
    assert frame.iloc[2]["explanation"] == "'-the festival food is missing"


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("=1+1", "'=1+1"), ("+1+1", "'+1+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"), ("\rx", "'\rx"), ("-3", "-3"), ("+0.5", "+0.5"), ("-1e3", "-1e3"), ("plain", "plain"),
        # the full-width and small forms a spreadsheet reads as = + - @
        ("＝1+1", "'＝1+1"), ("＋1", "'＋1"), ("－2", "'－2"), ("＠SUM(A1)", "'＠SUM(A1)"), ("﹦1", "'﹦1"),
        ("日本語", "日本語"), ("ｱ", "ｱ"),
    ],
)
def test_a_formula_cell_is_neutralised_but_a_number_is_kept(text, cell):
    from studies.protocol.safetext import safe_cell

    assert safe_cell(text) == cell


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_the_manifest_names_the_analysis_and_hashes_the_file(rated, owner, fmt):
    job = exported(rated, owner, fmt)
    manifest = job.manifest
    data = stored(job)
    assert manifest["study"] == {"id": rated.pk, "name": rated.name}
    assert manifest["format"] == fmt and manifest["analysis_run"] == job.analysis_id
    assert manifest["created"].endswith("Z")
    [entry] = manifest["files"]
    assert entry["name"] == f"annotations.{fmt}" and entry["rows"] == 4 and entry["bytes"] == len(data)
    assert entry["sha256"] == hashlib.sha256(data).hexdigest()


def test_it_refuses_an_unknown_format(rated, owner):
    analysis_run(run_id=AnalysisRun.objects.create(study=rated, requested_by=owner).pk)
    with pytest.raises(ExportRefused, match="Unknown export format 'xlsx'"):
        export_start(study=rated, user=owner, format="xlsx")
    assert not ExportJob.objects.exists()


def _no_export_files(settings) -> bool:
    exports_dir = os.path.join(settings.MEDIA_ROOT, "exports")
    return not os.path.exists(exports_dir) or not any(files for _, _, files in os.walk(exports_dir))


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_a_failure_mid_write_leaves_no_file(rated, owner, settings, fmt, tmp_path):
    analysis_run(run_id=AnalysisRun.objects.create(study=rated, requested_by=owner).pk)
    job = export_start(study=rated, user=owner, format=fmt)
    writer = FORMATS[fmt].opener
    seen = {}

    def failing(folder, tables, protocols, origin):
        seen["folder"] = folder
        real = writer(folder, tables, protocols, origin)
        write = real.write

        def write_then_fail(rows, documents):
            write(rows[:2], documents)  # some rows are on disk when it fails
            raise OSError("disk full")

        real.write = write_then_fail
        return real

    with mock.patch.dict(FORMATS, {fmt: dataclasses.replace(FORMATS[fmt], opener=failing)}):
        job = export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and "disk full" in job.error
    assert not job.file and job.manifest is None
    assert _no_export_files(settings)
    assert not seen["folder"].exists()  # the temporary folder is gone too


def test_a_failure_to_record_the_export_deletes_the_stored_file(rated, owner, settings):
    analysis_run(run_id=AnalysisRun.objects.create(study=rated, requested_by=owner).pk)
    job = export_start(study=rated, user=owner, format="parquet")
    real_update = ExportJob.objects.filter(pk=job.pk).update

    def update_fails_when_done(**fields):
        if fields.get("status") == ExportJob.Status.DONE:
            raise RuntimeError("database went away")
        return real_update(**fields)

    with mock.patch("exports.services.ExportJob.objects.filter") as filt:
        filt.return_value.update.side_effect = update_fails_when_done
        filt.return_value.first.side_effect = lambda: ExportJob.objects.get(pk=job.pk)
        export_build(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED and "database went away" in job.error
    assert _no_export_files(settings)


def test_a_cancelled_job_keeps_no_file(rated, owner, settings):
    analysis_run(run_id=AnalysisRun.objects.create(study=rated, requested_by=owner).pk)
    job = export_start(study=rated, user=owner, format="parquet")

    def cancel(*args, **kwargs):  # the row is failed from elsewhere while the file is stored
        ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.FAILED, error="Cancelled.")
        return real_save(*args, **kwargs)

    real_save = default_storage.save
    with mock.patch.object(default_storage, "save", side_effect=cancel):
        job = export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and job.error == "Cancelled." and not job.file
    assert _no_export_files(settings)


# --- boxes and uploads: structs and integers -------------------------------------------------


def test_parquet_boxes_are_structs_of_numbers(owner):
    study = inline_study(owner, GLOBALRG, name="GlobalRG")
    pool = f.make_pool(study, "KE", "Kenya")
    item = f.make_items(study, "KE", 1, prompt="ugali")[0]
    a, b = annotators(pool, 2)
    from studies.protocol import UploadRef

    upload = UploadRef("3f1c", 800, 600, "c0" * 32, "ugali.jpg")
    form = {"photo": "3f1c", "box": json.dumps([[100, 50, 200, 150]]), "prevalent": "yes"}
    annotate(a, item, submitted(item, form, uploads=[upload]))
    annotate(b, item, submitted(item, {"_skip": "No image can be found"}))
    table = pq.read_table(io.BytesIO(stored(exported(study, owner, "parquet"))))
    box = pa.struct([("x", pa.float64()), ("y", pa.float64()), ("w", pa.float64()), ("h", pa.float64())])
    assert table.schema.field("box").type == pa.list_(box)
    assert table.schema.field("box_count").type == pa.int64()
    assert table.schema.field("photo_width").type == pa.int64()
    rows = table.to_pylist()
    assert rows[0]["box"] == [{"x": 100.0, "y": 50.0, "w": 200.0, "h": 150.0}] and rows[0]["box_count"] == 1
    assert (rows[0]["photo_width"], rows[0]["photo_height"], rows[0]["photo_name"]) == (800, 600, "ugali.jpg")
    assert rows[1]["skipped"] == "No image can be found" and rows[1]["box"] is None


# --- documents: a second table in every format ----------------------------------------------


@pytest.fixture
def ravenea(owner):
    study = inline_study(owner, RAVENEA_DOCS, name="RAVENEA")
    pool = f.make_pool(study, "ID", "Indonesia")
    items = f.make_items(study, "ID", 2)
    docs = {item.pk: add_documents(item, 2) for item in items}
    a, b = annotators(pool, 2)
    for annotator, item, per_doc in [
        (a, items[0], [("yes", "yes", "yes"), ("cannot_determine", "no", "yes")]),
        (b, items[1], [("no", "no", "no"), ("yes", "yes", "no")]),
    ]:
        annotate(annotator, item, submitted(item, ravenea_form(per_doc), documents=docs[item.pk]))
    return study


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_documents_come_as_a_second_table_in_a_zip_with_the_manifest(ravenea, owner, fmt):
    job = exported(ravenea, owner, fmt)
    assert job.is_zip
    with zipfile.ZipFile(io.BytesIO(stored(job))) as zf:
        assert zf.namelist() == [f"annotations.{fmt}", f"documents.{fmt}", "manifest.json"]
        manifest = json.loads(zf.read("manifest.json"))
        for entry in manifest["files"]:
            assert hashlib.sha256(zf.read(entry["name"])).hexdigest() == entry["sha256"]
        assert [e["rows"] for e in manifest["files"]] == [2, 4]
        assert manifest == job.manifest
        raw = zf.read(f"documents.{fmt}")
    frame = pd.read_parquet(io.BytesIO(raw)) if fmt == "parquet" else pd.read_json(io.BytesIO(raw), lines=True)
    assert len(frame) == 4
    assert frame["document_id"].dtype.kind == "i" and frame["document_position"].dtype.kind == "i"
    if fmt == "parquet":
        assert frame["combined_score"].dtype.kind == "f"
    else:  # pandas reads 3.0 back as an integer; the line holds a float
        assert isinstance(json.loads(raw.splitlines()[0])["combined_score"], float)
    assert list(frame["combined_score"]) == [3.0, 0.0, -3.0, 1.0]
    assert list(frame["country"]) == ["yes", "cannot_determine", "no", "yes"]


# --- the analysis run a single file was gated on, inside it -----------------------------------


def test_a_parquet_file_names_its_analysis_run_and_data_in_its_metadata(rated, owner):
    job = exported(rated, owner, "parquet")
    assert not job.is_zip
    metadata = pq.read_metadata(io.BytesIO(stored(job))).metadata
    assert metadata[b"tessera.analysis_run"] == str(job.analysis_id).encode()
    assert metadata[b"tessera.data_fingerprint"] == job.data_fingerprint.encode()
    assert metadata[b"tessera.study"] == str(rated.pk).encode()
    assert pd.read_parquet(io.BytesIO(stored(job)))["annotator"].notna().all()  # the data reads as before


def test_a_cancel_during_the_upload_stops_it_and_leaves_no_partial_file(rated, owner, settings, monkeypatch):
    from exports import services
    from jobs import lifecycle as jobs

    monkeypatch.setattr(services, "PULSE_SECONDS", 0)
    analysis_run(run_id=AnalysisRun.objects.create(study=rated, requested_by=owner).pk)
    job = export_start(study=rated, user=owner, format="csv")
    real, reads = jobs.job_progress, []

    def cancelled_once_uploading(model, pk, percent):
        if percent == 99:
            reads.append(percent)
            if len(reads) == 2:  # the storage reads the file's first block: the researcher presses Cancel
                services.export_cancel(job=ExportJob.objects.get(pk=pk), user=owner)
        return real(model, pk, percent)

    with mock.patch("exports.services.job_progress", side_effect=cancelled_once_uploading):
        job = export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and job.error.startswith("Cancelled by owner")
    assert len(reads) == 2 and not job.file  # stopped at the first block read
    assert _no_export_files(settings)  # the storage had opened the file: it is deleted

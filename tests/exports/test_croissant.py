"""The hf folder's ``croissant.json`` (and the ``croissant`` format, the file alone): valid Croissant
1.1 with the responsible-AI fields, as ``mlcroissant`` reads it, its records the folder's rows, and
the RAI fields stating what the platform knows (who annotated and for what pay, how they were
screened, agreement per country, exclusions and why) and nothing it must not ship (Prolific ids)."""

import copy
import json

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command
from mlcroissant._src.core.context import Context, CroissantVersion
from mlcroissant._src.core.rdf import make_context

from annotation.models import Annotator
from annotation.services import annotator_exclude
from exports.formats.card import Config
from exports.formats.croissant import CONTEXT, croissant
from recruitment.models import ProlificStudy
from tests import factories as f
from tests.exports.conftest import CAIRE
from tests.exports.croissant_check import croissant_records, croissant_valid
from tests.exports.test_gold_export import export_again, exported
from tests.exports.test_hf_export import card_of, unzip

HUB_TASKS = {"text-to-image", "visual-question-answering", "object-detection", "text-retrieval",
             "text-classification"}  # of the Hub's task categories, those a study may declare


def test_the_context_is_croissant_1_1s_own():
    ctx = Context()
    ctx.conforms_to = CroissantVersion.V_1_1
    assert CONTEXT == make_context(ctx)


def test_the_folders_croissant_validates_and_its_records_are_the_folders_rows(caire, owner, tmp_path):
    study, _, _ = caire
    folder = unzip(exported(study, owner, "hf"), tmp_path / "hf")
    records = croissant_records(folder / "croissant.json")
    head, _ = card_of(folder)
    assert set(records) == {c["config_name"] for c in head["configs"]}
    raw = pq.read_table(folder / "data/raw/in.parquet").to_pylist() + pq.read_table(
        folder / "data/raw/jp.parquet").to_pylist()
    assert len(records["raw"]) == len(raw) == 5  # the flagged annotation is left out of both
    loaded = sorted((r["raw/split"].decode(), r["raw/annotator"].decode(), r["raw/relevance"]) for r in records["raw"])
    assert loaded == sorted((r["pool_country"].lower(), r["annotator"], r["relevance"]) for r in raw)
    assert sorted(tuple(t.decode() for t in r["raw/tags"] or ()) for r in records["raw"]) == sorted(
        tuple(r["tags"] or ()) for r in raw)  # a list column loads as a list
    doc = json.loads((folder / "croissant.json").read_text())
    manifest = json.loads((folder / "manifest.json").read_text())
    hashed = {e["name"]: e["sha256"] for e in manifest["files"]}
    objects = [d for d in doc["distribution"] if d["@type"] == "cr:FileObject"]
    assert {d["contentUrl"] for d in objects} == {n for n in hashed if n.endswith((".parquet", ".md"))}
    assert all(d["sha256"] == hashed[d["contentUrl"]] for d in objects)  # the manifest's, taken once


def test_images_shipped_load_as_images(photos, owner, tmp_path):
    study, item, _ = photos
    folder = unzip(exported(study, owner, "hf", images=True), tmp_path / "hf")
    records = croissant_records(folder / "croissant.json")
    (row,) = records["items"]
    assert row["items/image"].size == (item.width, item.height)
    doc = json.loads((folder / "croissant.json").read_text())
    sets = {d["includes"]: d["encodingFormat"] for d in doc["distribution"] if d["@type"] == "cr:FileSet"}
    assert sets["images/uploads/*.png"] == "image/png"  # the uploaded photos, a file set per folder and type


def test_the_rai_fields_say_who_annotated_how_they_were_screened_and_what_agreement(caire, owner, tmp_path):
    study, items, (a, b, c, d) = caire
    spec = copy.deepcopy(CAIRE)
    spec["quality"] = {"attention": {"on": True, "placement": "random", "count": 2}}
    study.protocol = spec
    study.save(update_fields=["protocol"])
    f.make_item(study, "IN", prompt="Click 'food'", check_kind="attention", expected={"tags": ["food"]})
    india = study.pools.get(country="IN")
    ProlificStudy.objects.create(pool=india, reference="ref-in", places=20, reward=300, currency="GBP",
                                 estimated_minutes=15, status=ProlificStudy.Status.ACTIVE)
    annotator_exclude(annotator=b, by=owner, reason="Straight-lined every scale")
    folder = unzip(exported(study, owner, "hf"), tmp_path / "hf")
    doc = json.loads((folder / "croissant.json").read_text())
    assert doc["conformsTo"] == ["http://mlcommons.org/croissant/1.1", "http://mlcommons.org/croissant/RAI/1.0"]
    assert doc["license"] == "https://creativecommons.org/licenses/by/4.0/"
    assert "India (IN), Prolific: 1 annotator" in " ".join(doc["rai:annotatorDemographics"])
    assert "Prolific, IN: 20 places" in doc["rai:dataCollection"] and "an hour" in doc["rai:dataCollection"]
    protocol = " ".join(doc["rai:dataAnnotationProtocol"])
    assert "Attention checks: 2 per session at random places, drawn from 1 check item" in protocol
    assert "Straight-lined every scale" in protocol  # who was excluded and why
    assert "Question relevance (scale, ordinal): How relevant?" in protocol
    assert any(line.startswith("relevance: Krippendorff's alpha") and "per country: IN" in line
               for line in doc["rai:dataAnnotationAnalysis"])
    assert doc["rai:dataCollectionTimeframe"][0].endswith("Z")
    assert "Prolific" in doc["rai:dataAnnotationPlatform"]
    assert (doc["version"], doc["datePublished"][:4]) == ("1.0.0", str(study.created_at.year))
    assert doc["citeAs"].startswith("@misc{") and "version = {1.0.0}" in doc["citeAs"]  # the release, cited
    assert doc["rai:dataReleaseMaintenancePlan"].startswith("Release 1 (version 1.0.0, data fingerprint ")
    assert "First release" in doc["rai:dataReleaseMaintenancePlan"]
    text = (folder / "croissant.json").read_text()
    for who in Annotator.objects.filter(study=study):
        assert who.prolific_pid not in text  # pseudonyms only
    croissant_valid(folder / "croissant.json")


def test_the_card_declares_what_the_hub_reads(caire, owner, tmp_path):
    study, _, _ = caire
    head, _ = card_of(unzip(exported(study, owner, "hf", license="cc-by-sa-4.0"), tmp_path / "hf"))
    assert head["license"] == "cc-by-sa-4.0"
    assert head["language"] == ["en"] and head["multilinguality"] == ["monolingual"]
    assert head["task_categories"] == ["text-to-image"] and set(head["task_categories"]) <= HUB_TASKS
    assert head["annotations_creators"] == ["crowdsourced"] and head["size_categories"] == ["n<1K"]
    assert {c["config_name"] for c in head["dataset_info"]} == {c["config_name"] for c in head["configs"]}


def test_croissant_alone_is_the_folders_file(caire, owner, tmp_path):
    study, _, _ = caire
    exported(study, owner, "gold")  # an analysis that saw the current data
    call_command("export", study.pk, "--format", "croissant", "--out", str(tmp_path / "meta.json"))
    alone = json.loads((tmp_path / "meta.json").read_text())
    assert json.loads((tmp_path / "meta.json.manifest.json").read_text())["files"][0]["name"] == "croissant.json"
    croissant_valid(tmp_path / "meta.json")
    folder = unzip(export_again(study, owner, "hf"), tmp_path / "hf")
    beside = json.loads((folder / "croissant.json").read_text())
    assert alone == beside  # the same release and options: the same files, hashes and all
    assert alone["alternateName"] == folder.name and alone["version"] == "1.0.0"


def test_croissant_alone_is_refused_without_a_current_analysis(caire, tmp_path):
    study, _, _ = caire
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(CommandError, match="Run the analysis"):
        call_command("export", study.pk, "--format", "croissant", "--out", str(out / "meta.json"))
    assert not list(out.iterdir())


def test_a_nested_column_is_read_by_its_path_and_a_list_as_an_array():
    import pyarrow as pa

    point = pa.struct([("x", pa.float64()), ("y", pa.float64())])
    schema = pa.schema([("boxes", pa.list_(point)), ("at", point), ("n", pa.int64()), ("when", pa.timestamp("us"))])
    doc = croissant(sheet={"study": "S"}, configs=[Config("raw", {"train": "data/raw.parquet"}, schema)],
                    files=[], license="other", release=None, citation="", folder="")
    boxes, at, n, when = doc["recordSet"][0]["field"]
    assert boxes["isArray"] and [s["source"]["transform"]["jsonPath"] for s in boxes["subField"]] == ["x", "y"]
    assert "isArray" not in at and [s["source"]["transform"]["jsonPath"] for s in at["subField"]] == ["x", "y"]
    assert (n["dataType"], when["dataType"]) == ("sc:Integer", "sc:DateTime")
    assert doc["license"] == "other"  # no URL for a license the platform cannot name

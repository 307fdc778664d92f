"""The ``hf`` export, unzipped and loaded by ``datasets.load_dataset``: each config of the card's
YAML header loads with the features it declares; raw and gold split per country; images shipped
when asked; the card's datasheet (pools, eligibility, the practice test, the pay rate, every
question, the agreement); the license chosen; the page's options and the command's."""

import io
import re
import zipfile
from pathlib import Path

import datasets
import pytest
import yaml
from django.core.files.storage import default_storage
from django.core.management import call_command

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from annotation.models import pseudonym_for
from exports.formats.card import features_of, yaml_text
from exports.models import ExportJob
from recruitment.models import ProlificStudy
from tests import factories as f
from tests.exports.test_gold_export import exported

datasets.disable_progress_bars()


def unzip(job, folder: Path) -> Path:
    """The export's ZIP unpacked in ``folder``: its one top folder."""
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        (top,) = {name.split("/", 1)[0] for name in zf.namelist()}
        zf.extractall(folder)
    return folder / top


def load(folder: Path, config: str):
    """``datasets.load_dataset`` on the folder, with a cache of this test's own (the shared cache
    would hand a later test an earlier folder's tables)."""
    return datasets.load_dataset(str(folder), config, cache_dir=str(folder.parent / "hf-cache"))


def card_of(folder: Path) -> tuple[dict, str]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    _, head, body = text.split("---\n", 2)
    return yaml.safe_load(head), body


def test_every_config_loads_with_the_features_its_card_declares(caire, owner, tmp_path):
    study, items, (a, b, c, d) = caire
    folder = unzip(exported(study, owner, "hf", license="cc-by-nc-4.0"), tmp_path / "hf")
    head, _ = card_of(folder)
    assert head["license"] == "cc-by-nc-4.0" and head["size_categories"] == ["n<1K"]
    names = [c["config_name"] for c in head["configs"]]
    # two items per annotator: no Dawid–Skene label, so no competence (``annotators``) to load
    assert names == ["raw", "gold_by_country", "gold_by_item", "paper_human_scores", "items"]
    declared = {c["config_name"]: c["features"] for c in head["dataset_info"]}
    for config in head["configs"]:
        loaded = load(folder, config["config_name"])
        assert set(loaded) == {s["split"] for s in config["data_files"]}, config["config_name"]
        for split in loaded.values():
            assert split.features._to_yaml_list() == declared[config["config_name"]], config["config_name"]
    raw = load(folder, "raw")
    assert set(raw) == {"in", "jp"} and raw["in"].num_rows == 4 and raw["jp"].num_rows == 1
    assert pseudonym_for(c.public_id) not in raw["in"]["annotator"]  # flagged: left out
    assert raw["in"].features["relevance"].dtype == "int64"
    assert raw["in"].features["submitted_at"].dtype == "timestamp[ms, tz=UTC]"
    gold = load(folder, "gold_by_country")
    assert set(gold) == {"train", "in", "jp"} and set(gold["jp"]["country"]) == {"JP"}
    row = next(r for r in gold["in"] if r["item"] == items[0].external_id and r["field"] == "relevance")
    assert (row["n"], row["mean"]) == (2, 4.5) and row["ds_label"] is None
    assert row["ds_note"] == "too little data per annotator (2 items each; Dawid–Skene needs ≥ 10)"
    assert not (folder / "images").exists()


def test_images_come_alongside_when_asked(caire, owner, tmp_path):
    study, items, _ = caire
    folder = unzip(exported(study, owner, "hf", images=True), tmp_path / "hf")
    listed = load(folder, "items")["train"]
    assert sorted(listed["item_id"]) == sorted(i.external_id for i in items)
    for item in items:
        entry = next(r for r in listed if r["item_id"] == item.external_id)
        assert (folder / entry["file_name"]).read_bytes() == item.image.open("rb").read()
        assert (entry["width"], entry["height"]) == (64, 48)


def test_the_datasheet_says_who_was_asked_how_and_what(caire, owner, tmp_path):
    study, items, _ = caire
    india = study.pools.get(country="IN")
    india.require_resident = False
    india.save()
    f.make_mock_question(study)
    ProlificStudy.objects.create(pool=india, reference="ref-in", places=20, reward=300, currency="GBP",
                                 estimated_minutes=15, status=ProlificStudy.Status.ACTIVE)
    ProlificStudy.objects.create(pool=study.pools.get(country="JP"), reference="ref-jp", places=5, reward=100,
                                 currency="GBP", estimated_minutes=15, status=ProlificStudy.Status.UNPUBLISHED)
    _, body = card_of(unzip(exported(study, owner, "hf"), tmp_path / "hf"))
    pools = ("| India (IN) | Prolific | 2 | 4 | 3 | born in the country; holds its nationality; spent most of their "
             "first 18 years")
    assert pools in body
    assert "5 annotations by 3 annotators" in body  # the annotator whose every annotation was flagged is not counted
    assert "A practice test of 1 questions" in body
    assert "Prolific, IN: 20 places, £3.00 for about 15 minutes (£12.00 an hour)" in body
    assert "Prolific, JP" not in body  # a draft never published offered no pay
    assert "`relevance` (scale, ordinal): How relevant?" in body and "Choices: 1, 2, 3, 4, 5." in body
    assert "| How relevant? (`relevance`) | ordinal |" in body
    assert "## Known limitations" in body


def test_features_follow_the_arrow_schema():
    import pyarrow as pa

    schema = pa.schema([("a", pa.string()), ("b", pa.list_(pa.struct([("x", pa.float64())]))),
                        ("t", pa.timestamp("ms", tz="UTC")), ("l", pa.list_(pa.string())),
                        ("s", pa.struct([("x", pa.int64())])), ("bo", pa.bool_())])
    assert features_of(schema) == datasets.Features.from_arrow_schema(schema)._to_yaml_list()
    assert yaml.safe_load(yaml_text({"features": features_of(schema)}))["features"] == features_of(schema)


def test_the_page_offers_the_license_and_images(caire, owner, client):
    study, _, _ = caire
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    client.force_login(owner)
    page = client.get(f"/studies/{study.pk}/analysis/").content.decode()
    assert 'value="hf"' in page and 'value="gold"' in page and 'value="coco"' not in page
    assert '<select name="license">' in page and 'name="images"' in page
    client.post(f"/studies/{study.pk}/exports/", {"format": "hf", "license": "cc-by-sa-4.0", "images": "on"})
    job = ExportJob.objects.get(study=study)
    assert (job.format, job.options) == ("hf", {"license": "cc-by-sa-4.0", "images": True})


def test_the_page_refuses_a_license_not_offered(caire, owner, client):
    study, _, _ = caire
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    client.force_login(owner)
    client.post(f"/studies/{study.pk}/exports/", {"format": "hf", "license": "all-rights-reserved"})
    assert not ExportJob.objects.filter(study=study).exists()


def test_the_command_takes_the_license_and_images(caire, owner, tmp_path):
    study, _, _ = caire
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    out = tmp_path / "hf.zip"
    call_command("export", study.pk, format="hf", out=out, license="other", images=True, stdout=io.StringIO())
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp_path / "hf")
        (top,) = {n.split("/", 1)[0] for n in zf.namelist()}
        assert any(n.startswith(f"{top}/images/") for n in zf.namelist()) and f"{top}/manifest.json" in zf.namelist()
    head, _ = card_of(tmp_path / "hf" / top)
    assert head["license"] == "other"


@pytest.mark.parametrize("fmt", ["gold", "coco"])
def test_the_command_accepts_the_study_level_formats(caire, owner, tmp_path, fmt):
    study, _, _ = caire
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    if fmt == "coco":
        from django.core.management.base import CommandError

        with pytest.raises(CommandError, match="does not fit"):
            call_command("export", study.pk, format=fmt, out=tmp_path / "x", stdout=io.StringIO())
        return
    call_command("export", study.pk, format=fmt, out=tmp_path / "gold.zip", stdout=io.StringIO())
    assert zipfile.is_zipfile(tmp_path / "gold.zip")


@pytest.mark.parametrize("fmt", ["gold", "hf"])
def test_a_failure_in_the_study_level_part_leaves_no_file(caire, owner, settings, tmp_path, fmt):
    import dataclasses
    import os
    from unittest import mock

    from exports.formats import FORMATS
    from exports.services import export_build, export_start

    settings.MEDIA_ROOT = tmp_path / "media"
    study, _, _ = caire
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    job = export_start(study=study, user=owner, format=fmt)
    opener, seen = FORMATS[fmt].opener, {}

    def failing(folder, tables, protocols, origin):
        seen["folder"] = folder
        real = opener(folder, tables, protocols, origin)
        study_part = real.study

        def study_then_fail(source):
            study_part(source)  # the tables are on disk when it fails
            raise OSError("disk full")

        real.study = study_then_fail
        return real

    with mock.patch.dict(FORMATS, {fmt: dataclasses.replace(FORMATS[fmt], opener=failing)}):
        job = export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and "disk full" in job.error and not job.file
    exports_dir = settings.MEDIA_ROOT / "exports"
    assert not exports_dir.exists() or not any(files for _, _, files in os.walk(exports_dir))
    assert not seen["folder"].exists()


def test_a_paper_table_that_fails_is_not_computed_in_the_card_and_the_manifest(caire, owner, tmp_path):
    import json
    from unittest import mock

    from stats.gold import GOLD

    def broken(report):
        raise ValueError("no ratings to score")

    study, _, _ = caire
    with mock.patch.dict(GOLD, {"human_scores": broken}):
        folder = unzip(exported(study, owner, "hf"), tmp_path / "hf")
    head, body = card_of(folder)
    assert "paper_human_scores" not in [c["config_name"] for c in head["configs"]]
    assert "- `paper_human_scores`: not computed (ValueError: no ratings to score)" in body
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["not_computed"] == {"paper_human_scores": "ValueError: no ratings to score"}


def test_the_datasheet_gives_the_agreement_of_each_per_document_question_overall_and_per_country(owner, tmp_path):
    from tests.annotations import add_documents, annotate, annotators, inline_study, submitted
    from tests.specs import RAVENEA_DOCS, ravenea_form

    study = inline_study(owner, RAVENEA_DOCS, name="RAVENEA")
    pools = [f.make_pool(study, "ID", "Indonesia"), f.make_pool(study, "KE", "Kenya")]
    item = f.make_items(study, "ID", 1)[0]
    docs = add_documents(item, 3)
    answers = [[("yes", "yes", "yes"), ("no", "no", "yes"), ("yes", "no", "no")],
               [("yes", "yes", "yes"), ("no", "yes", "yes"), ("yes", "no", "no")]]
    for pool in pools:
        for who, per_doc in zip(annotators(pool, 2), answers, strict=True):
            annotate(who, item, submitted(item, ravenea_form(per_doc), documents=docs))
    job = exported(study, owner, "hf")
    _, body = card_of(unzip(job, tmp_path / "hf"))
    (entry,) = job.analysis.result["documents"]
    topic = next(x for x in entry["fields"] if x["key"] == "topic")
    overall = topic["overall"]
    alpha, ac1 = f"{overall['alpha']:.3f}", f"{overall['ac']['value']:.3f}"
    per_country = ", ".join(f"{p['country']}: {p['alpha']:.3f} / {p['ac']['value']:.3f} †" for p in topic["pools"])
    assert per_country.startswith("ID: ") and "KE: " in per_country
    assert (f"| Same topic? (`docs.topic`) | nominal | {alpha} † | AC1 {ac1} | – | {overall['n_units']} | "
            f"{per_country} |") in body  # † six units: too thin to read as stable
    assert "Gwet's AC1 (nominal) or AC2" in body
    assert "(`docs.country`) | nominal |" in body and "(`docs.note`)" not in body


def test_items_sharing_one_stored_image_ship_it_once(caire, owner, tmp_path):
    study, items, _ = caire
    items[1].image.name = items[0].image.name  # CulturalVQA's answer items share their question's image
    items[1].save()
    job = exported(study, owner, "hf", images=True)
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        names = zf.namelist()
    assert len(names) == len(set(names))
    shipped = [e["name"] for e in job.manifest["files"] if e["name"].startswith("images/")]
    assert shipped == [f"images/{Path(items[0].image.name).name}"]


def test_annotators_uploaded_photos_ship_by_their_sha256(photos, owner, tmp_path):
    study, item, photos = photos
    job = exported(study, owner, "hf", images=True)
    folder = unzip(job, tmp_path / "hf")
    for sha, data in photos:
        assert (folder / "images" / "uploads" / f"{sha}.png").read_bytes() == data
    listed = load(folder, "uploads")["train"]
    assert sorted(listed["file_name"]) == sorted(f"images/uploads/{sha}.png" for sha, _ in photos)
    assert set(listed["width"]) == {96}
    names = [e["name"] for e in job.manifest["files"]]
    assert len(names) == len(set(names))
    without = unzip(exported(study, owner, "hf"), tmp_path / "hf-no-images")
    assert not (without / "images").exists()


def test_the_datasheet_lists_what_each_protocol_version_asked_otherwise(caire, owner, tmp_path):
    import copy

    from studies.services import study_set_protocol
    from tests.annotations import annotate, submitted
    from tests.exports.conftest import CAIRE

    study, items, (a, b, c, d) = caire
    spec = copy.deepcopy(CAIRE)
    spec["fields"][0]["label"] = "How relevant to your country?"
    spec["fields"][1] = {"key": "comment", "type": "text", "label": "Anything to add?", "required": False}
    study = study_set_protocol(study=study, protocol=spec)
    annotate(d, items[1], submitted(items[1], {"relevance": "4"}))
    _, body = card_of(unzip(exported(study, owner, "hf"), tmp_path / "hf"))
    questions = body.split("## The questions", 1)[1].split("## Agreement", 1)[0]
    assert "Answers span 2 protocol versions" in questions
    assert "version 2 (the current one): 1 annotation" in questions
    assert "`relevance` (scale, ordinal): How relevant to your country?" in questions
    older = questions.split("### Version 1", 1)[1]
    assert older.startswith(" (5 annotations)")
    assert "- Asked otherwise then: `relevance` (scale, ordinal): How relevant?" in older
    assert "- Asked then, not now: `tags` (multi): What do you see?" in older
    assert "- Not asked then: `comment`." in older


# --- the final steps: the lease renewed, a cancel honoured ------------------------------------


def test_the_final_steps_report_progress_and_so_renew_the_lease(caire, owner, monkeypatch):
    from unittest import mock

    from exports import services
    from jobs import lifecycle as jobs

    monkeypatch.setattr(services, "PULSE_SECONDS", 0)
    study, _, _ = caire
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    job = services.export_start(study=study, user=owner, format="hf", options={"images": True})
    seen = []

    def recorded(model, pk, percent):
        seen.append(percent)
        return jobs.job_progress(model, pk, percent)

    with mock.patch("exports.services.job_progress", side_effect=recorded):
        job = services.export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.DONE, job.error
    # after the one chunk: the study's gold and images (96), the hashes and the ZIP (98), the upload (99)
    assert {96, 98, 99} <= set(seen) and seen.count(96) > 3


def test_a_cancel_while_the_images_are_copied_stops_the_export_and_keeps_nothing(caire, owner, settings,
                                                                                  monkeypatch):
    import os
    from unittest import mock

    from exports import services

    monkeypatch.setattr(services, "PULSE_SECONDS", 0)
    study, items, _ = caire
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    job = services.export_start(study=study, user=owner, format="hf", options={"images": True})
    real_open, reads = default_storage.open, []

    def open_then_cancel(name, mode="rb"):  # the researcher presses Cancel while the first image is copied
        if name in {item.image.name for item in items}:
            reads.append(name)
            services.export_cancel(job=ExportJob.objects.get(pk=job.pk), user=owner)
        return real_open(name, mode)

    with mock.patch.object(default_storage, "open", side_effect=open_then_cancel):
        job = services.export_build(job_id=job.pk)
    assert job.status == ExportJob.Status.FAILED and job.error.startswith("Cancelled by owner")
    assert len(reads) == 1  # the second image is never read
    assert not job.file
    exports_dir = os.path.join(settings.MEDIA_ROOT, "exports")
    assert not os.path.exists(exports_dir) or not any(files for _, _, files in os.walk(exports_dir))


def test_the_known_limitations_say_what_is_true_of_this_study(caire, owner, tmp_path):
    import copy

    from recruitment.models import ProlificSubmission
    from studies.services import study_set_protocol
    from tests.annotations import annotate, annotators, submitted
    from tests.exports.conftest import CAIRE

    study, items, (a, b, c, d) = caire
    india = study.pools.get(country="IN")
    launch = ProlificStudy.objects.create(pool=india, reference="ref-in", places=20, reward=300, currency="GBP",
                                          estimated_minutes=15, status=ProlificStudy.Status.ACTIVE)
    ProlificSubmission.objects.create(prolific_study=launch, prolific_id="s1", participant_id="p1",
                                      entry_check=ProlificSubmission.Check.PENDING)
    spec = copy.deepcopy(CAIRE)
    spec["fields"][0]["label"] = "How relevant to your country?"
    study = study_set_protocol(study=study, protocol=spec)
    annotate(d, items[1], submitted(items[1], {"relevance": "5"}))
    (e,) = annotators(study.pools.get(country="JP"), 1)  # Japan disagrees on both items
    annotate(e, items[0], submitted(items[0], {"relevance": "1"}))
    annotate(e, items[1], submitted(items[1], {"relevance": "1"}))
    job = exported(study, owner, "hf")
    _, body = card_of(unzip(job, tmp_path / "hf"))
    limits = body.split("## Known limitations", 1)[1]
    assert "- India (IN): 2 annotators, fewer than the 3 ratings wanted per item" in limits
    assert "- Japan (JP): 2 annotators, fewer than the 3 ratings wanted per item" in limits
    assert "- 1 entry through Prolific (IN) was let in without Prolific's confirmation" in limits
    assert "- Answers span 2 protocol versions" in limits
    (relevance,) = [x for x in job.analysis.result["fields"] if x["key"] == "relevance"]
    alpha = relevance["overall"]["alpha"]
    assert alpha is not None and alpha < 0.667
    assert f"`relevance` ({alpha:.3f})" in limits
    assert "Annotators said where they were born" in limits  # the lines true of every study stay


def test_the_known_limitations_leave_out_what_is_not_so(owner, tmp_path):
    from tests.annotations import annotate, annotators, inline_study, submitted
    from tests.exports.conftest import CAIRE

    study = inline_study(owner, CAIRE, name="Agreeing")
    pool = f.make_pool(study, "IN", "India", annotations_per_item=2)
    items = f.make_items(study, "IN", 3)
    for who in annotators(pool, 2):
        for n, item in enumerate(items):
            annotate(who, item, submitted(item, {"relevance": str(n + 2)}))
    _, body = card_of(unzip(exported(study, owner, "hf"), tmp_path / "hf"))
    limits = body.split("## Known limitations", 1)[1]
    assert "fewer than" not in limits and "confirmation" not in limits and "protocol versions" not in limits
    assert "agreement below" not in limits.lower()


HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> [click](javascript:alert(3))'


def test_the_card_shows_the_researchers_html_as_text_never_as_markup(caire, owner, tmp_path):
    study, items, _ = caire
    study.name = "Study " + HOSTILE
    spec = study.protocol
    spec["fields"][0]["label"] = "How relevant? " + HOSTILE
    spec["fields"][0]["help"] = "a < b & C++ — 日本語 " + HOSTILE
    study.protocol = spec
    study.save()
    study.pools.filter(country="IN").update(country_name="India <b onmouseover=alert(4)>")
    folder = unzip(exported(study, owner, "hf"), tmp_path / "hf")
    head, body = card_of(folder)
    card = (folder / "README.md").read_text(encoding="utf-8")
    for markup in ("<script", "<img", "onerror=alert(2)>", "<b "):
        assert markup not in card, markup
    assert not re.search(r"(?<!\\)\]\(javascript:", body)  # no link, its text: \[click\](javascript:…)
    assert "\\[click\\](javascript:alert(3))" in body
    assert "# Study &lt;script&gt;alert(1)&lt;/script&gt;" in body  # shown as written
    assert "a &lt; b &amp; C++ — 日本語" in body and "India &lt;b onmouseover=alert(4)&gt;" in body
    assert head["pretty_name"].startswith("Study &lt;script&gt;")

"""The ``hf`` export's ZIP holds one top folder named for the export (study, day, fingerprint):
two exports unpacked side by side never merge, and ``datasets`` never hands one study's rows for
another's; the download is named for that folder; other formats stay as they were."""

import io
import re
import zipfile
from datetime import UTC, datetime, timedelta, timezone

import datasets
from django.core.files.storage import default_storage
from django.urls import reverse

from exports.manifest import folder_name, name_slug
from exports.services import export_build, export_start
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study, submitted
from tests.exports.conftest import CAIRE
from tests.exports.test_gold_export import exported

datasets.disable_progress_bars()


def names_of(job) -> list[str]:
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        return zf.namelist()


def test_every_file_is_under_one_top_folder_named_for_the_study_day_and_fingerprint(caire, owner):
    study, _, _ = caire
    job = exported(study, owner, "hf")
    names = names_of(job)
    top = job.manifest["folder"]
    day = job.created_at.astimezone(UTC).strftime("%Y%m%d")
    assert re.fullmatch(rf"tessera-study-{study.pk}-caire-small-{day}-[0-9a-f]{{8}}", top), top
    assert all(n.startswith(f"{top}/") for n in names), names
    assert {f"{top}/README.md", f"{top}/manifest.json", f"{top}/data/items.parquet"} <= set(names)
    # the manifest's names stay relative to the folder it sits in
    assert {e["name"] for e in job.manifest["files"]} == {n.removeprefix(f"{top}/") for n in names} - {"manifest.json"}
    gold = exported(study, owner, "gold")  # another format's ZIP keeps its files at the top, as it did
    assert "folder" not in gold.manifest
    assert "manifest.json" in names_of(gold) and not any("/" in n for n in names_of(gold))


def test_the_download_is_named_for_its_top_folder(caire, owner, client):
    study, _, _ = caire
    job = exported(study, owner, "hf")
    client.force_login(owner)
    response = client.get(reverse("exports:export-download", args=[study.pk, job.pk]))
    assert response["Content-Disposition"] == f'attachment; filename="{job.manifest["folder"]}.zip"'


def test_the_card_says_how_to_load_the_folder_by_its_name(caire, owner):
    study, _, _ = caire
    job = exported(study, owner, "hf")
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        card = zf.read(f"{job.manifest['folder']}/README.md").decode("utf-8")
    assert f"The ZIP unpacks to the folder `{job.manifest['folder']}/`" in card
    assert f'datasets.load_dataset("{job.manifest["folder"]}", "raw")' in card


def test_two_studies_unpacked_side_by_side_each_load_their_own_rows(caire, owner, tmp_path):
    first, _, _ = caire
    second = inline_study(owner, CAIRE, name="CAIRE small")  # the same name: only the id tells them apart
    pool = f.make_pool(second, "KE", "Kenya")
    for item in f.make_items(second, "KE", 3):
        for who in annotators(pool, 2):
            annotate(who, item, submitted(item, {"relevance": "3"}))
    downloads = tmp_path / "downloads"
    folders = {}
    for study in (first, second):
        job = exported(study, owner, "hf")
        with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
            zf.extractall(downloads)  # both into one folder, as `unzip -d downloads` would
        folders[study.pk] = downloads / job.manifest["folder"]
    assert sorted(p.name for p in downloads.iterdir()) == sorted(p.name for p in folders.values())
    cache = str(tmp_path / "hf-cache")  # one cache for both, as on a researcher's machine
    first_raw = datasets.load_dataset(str(folders[first.pk]), "raw", cache_dir=cache)
    second_raw = datasets.load_dataset(str(folders[second.pk]), "raw", cache_dir=cache)
    assert set(first_raw) == {"in", "jp"} and set(second_raw) == {"ke"}
    assert second_raw["ke"].num_rows == 6 and set(second_raw["ke"]["relevance"]) == {3}


def test_another_export_of_the_same_study_is_another_folder_the_same_one_the_same(caire, owner):
    study, _, _ = caire
    plain = exported(study, owner, "hf")  # runs the analysis first
    again, with_images = (export_build(job_id=export_start(study=study, user=owner, format="hf", options=options).pk)
                          for options in ({}, {"images": True}))
    assert plain.manifest["folder"] == again.manifest["folder"]  # the same study, data, run and options
    assert with_images.manifest["folder"] != plain.manifest["folder"]
    assert with_images.manifest["folder"][:-8] == plain.manifest["folder"][:-8]  # only the fingerprint differs
    rerun = exported(study, owner, "hf")  # another analysis run of the same data
    assert rerun.manifest["folder"] != plain.manifest["folder"]


def test_the_folder_name_is_ascii_with_the_day_in_utc():
    late = datetime(2026, 3, 1, 23, 30, tzinfo=timezone(timedelta(hours=-5)))  # 2 March in UTC
    name = folder_name(study_id=7, study_name="Études: Café & Ünïcode — 日本", created=late, identity="x")
    assert re.fullmatch(r"tessera-study-7-etudes-cafe-unicode-20260302-[0-9a-f]{8}", name), name
    assert name_slug("日本語") == "study" and name_slug("") == "study"
    assert len(name_slug("a very long study name " * 10)) <= 40 and not name_slug("x " * 30).endswith("-")
    assert folder_name(study_id=7, study_name="A", created=late, identity="y") != folder_name(
        study_id=7, study_name="A", created=late, identity="x")

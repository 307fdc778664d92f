"""Gold labels as the ``gold`` and ``hf`` exports ship them (issue 24, item 10): no Dawid–Skene label
from a pilot's few items per annotator, with the reason in each row, the manifest, the card and on
the page, while a study with data enough keeps its labels; ``sd`` and the interval typed as floats
even where every row has none; the ``items`` config with its prompt, country and model, and its
images a ``datasets.Image`` that loads as a PIL image."""

import io
import json
import zipfile

import datasets
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.files.storage import default_storage
from django.urls import reverse
from PIL import Image

from annotation.models import pseudonym_for
from stats.gold import DS_MIN_ITEMS
from studies.services import quotas_for_items
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study, submitted
from tests.exports.conftest import CAIRE
from tests.exports.test_gold_export import exported, unzipped
from tests.exports.test_hf_export import card_of, unzip

datasets.disable_progress_bars()

PILOT_RATINGS = [(5, 2, 4), (5, 4, 5), (3, 4, 5), (4, 4, 3)]  # three annotators × four items
PILOT_NOTE = "too little data per annotator (4 items each; Dawid–Skene needs ≥ 10)"


def rated(owner, ratings, name):
    """A CAIRE-like study of one pool whose annotators rate item i with ``ratings[i]`` (one per annotator)."""
    study = inline_study(owner, CAIRE, name=name)
    pool = f.make_pool(study, "IN", "India")
    items = f.make_items(study, "IN", len(ratings))
    people = annotators(pool, len(ratings[0]))
    for item, values in zip(items, ratings, strict=True):
        for who, value in zip(people, values, strict=True):
            annotate(who, item, submitted(item, {"relevance": str(value)}))
    return study, items, people


@pytest.fixture
def pilot(owner):
    return rated(owner, PILOT_RATINGS, "Pilot")


@pytest.fixture
def enough(owner):
    """Three annotators who mostly agree on ten items each: enough for Dawid–Skene."""
    ratings = [((i % 5) + 1, (i % 5) + 1, (i % 5) + 1 if i % 4 else ((i + 1) % 5) + 1) for i in range(DS_MIN_ITEMS)]
    return rated(owner, ratings, "Enough")


def test_a_pilot_gets_no_dawid_skene_label_and_each_row_and_the_manifest_say_why(pilot, owner):
    study, items, _ = pilot
    job = exported(study, owner, "gold")
    files = unzipped(job)
    for table in ("gold_by_country", "gold_by_item"):
        gold = pd.read_parquet(io.BytesIO(files[f"{table}.parquet"]))
        assert gold["ds_label"].isna().all() and gold["ds_probability"].isna().all(), table
        assert set(gold["ds_note"]) == {PILOT_NOTE}, table
        csv = pd.read_csv(io.BytesIO(files[f"{table}.csv"]))
        assert set(csv["ds_note"]) == {PILOT_NOTE}
    first = pd.read_parquet(io.BytesIO(files["gold_by_country.parquet"])).set_index("item").loc[items[0].external_id]
    assert first["median"] == 4.0  # 5, 2, 4: the median stands where no Dawid–Skene label does
    assert pd.read_parquet(io.BytesIO(files["annotators.parquet"])).empty
    manifest = json.loads(files["manifest.json"])
    assert manifest["dawid_skene_withheld"] == {"relevance": f"no Dawid–Skene label on 4 of 4 units: {PILOT_NOTE}"}


def test_the_card_and_the_page_say_why_the_pilot_has_no_dawid_skene_label(pilot, owner, client):
    study, _, _ = pilot
    job = exported(study, owner, "hf")
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        card = zf.read(f"{job.manifest['folder']}/README.md").decode("utf-8")
    limits = card.split("## Known limitations", 1)[1]
    assert f"- `relevance`: no Dawid–Skene label on 4 of 4 units: {PILOT_NOTE}." in limits
    assert f"once they rated at least {DS_MIN_ITEMS} items of the question" in limits
    assert job.manifest["dawid_skene_withheld"]["relevance"].startswith("no Dawid–Skene label on 4 of 4 units")
    client.force_login(owner)
    page = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "No Dawid–Skene label for some items" in page
    assert f"<code>relevance</code>: no Dawid–Skene label on 4 of 4 units: {PILOT_NOTE}" in page
    assert f"once they rated at least {DS_MIN_ITEMS} items of" in page  # the rule, beside the formats


def test_enough_data_per_annotator_still_gives_dawid_skene_labels_and_competences(enough, owner, tmp_path, client):
    study, items, people = enough
    job = exported(study, owner, "hf")
    folder = unzip(job, tmp_path / "hf")
    cache = str(tmp_path / "hf-cache")
    gold = datasets.load_dataset(str(folder), "gold_by_country", cache_dir=cache)["train"]
    assert all(label is not None for label in gold["ds_label"]) and set(gold["ds_note"]) == {None}
    assert all(0 < p <= 1 for p in gold["ds_probability"])
    competence = datasets.load_dataset(str(folder), "annotators", cache_dir=cache)["train"]
    assert sorted(competence["annotator"]) == sorted(pseudonym_for(x.public_id) for x in people)
    assert set(competence["items"]) == {DS_MIN_ITEMS}
    assert job.manifest["dawid_skene_withheld"] == {}
    _, body = card_of(folder)
    assert "no Dawid–Skene label on" not in body
    client.force_login(owner)
    assert "No Dawid–Skene label for some items" not in client.get(
        reverse("analysis:analysis", args=[study.pk])).content.decode()


FLOATS = ("agreement", "majority_share", "ds_probability", "median", "mean", "sd", "ci_low", "ci_high")


def test_sd_and_the_interval_are_floats_even_where_every_row_has_none(caire, owner, tmp_path):
    study, _, _ = caire  # relevance is ordinal: no sd, no interval in any row
    files = unzipped(exported(study, owner, "gold"))
    for table in ("gold_by_country", "gold_by_item"):
        schema = pq.read_schema(io.BytesIO(files[f"{table}.parquet"]))
        assert {c: schema.field(c).type for c in FLOATS} == dict.fromkeys(FLOATS, pa.float64()), table
        rows = pq.read_table(io.BytesIO(files[f"{table}.parquet"])).to_pylist()
        assert {r["sd"] for r in rows} == {None} and {r["ci_low"] for r in rows} == {None}
    folder = unzip(exported(study, owner, "hf"), tmp_path / "hf")
    head, _ = card_of(folder)
    declared = {c["config_name"]: {x["name"]: x.get("dtype") for x in c["features"]} for c in head["dataset_info"]}
    cache = str(tmp_path / "hf-cache")
    for config in ("gold_by_country", "gold_by_item"):
        assert {c: declared[config][c] for c in FLOATS} == dict.fromkeys(FLOATS, "float64"), config
        for split in datasets.load_dataset(str(folder), config, cache_dir=cache).values():
            assert all(split.features[c] == datasets.Value("float64") for c in FLOATS), config


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """``datasets`` told it is offline, its cache in this test's folder."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    return str(tmp_path / "hf-cache")


def test_the_items_config_has_prompt_country_and_model_and_its_images_load_as_pil_images(owner, tmp_path, offline):
    study = inline_study(owner, CAIRE, name="Items")
    pool = f.make_pool(study, "JP", "Japan")
    items = [f.make_item(study, "JP", prompt="A tea ceremony", model_name="sdxl"),
             f.make_item(study, "JP", prompt="Cherry blossoms at night", model_name="dall-e-3", size=(80, 60))]
    quotas_for_items(items=items)
    for item in items:
        for who in annotators(pool, 1):
            annotate(who, item, submitted(item, {"relevance": "3"}))
    folder = unzip(exported(study, owner, "hf", images=True), tmp_path / "hf")
    head, _ = card_of(folder)
    (features,) = [c["features"] for c in head["dataset_info"] if c["config_name"] == "items"]
    assert {"name": "image", "dtype": "image"} in features
    loaded = datasets.load_dataset(str(folder), "items", cache_dir=offline)["train"]
    assert isinstance(loaded.features["image"], datasets.Image)
    by_id = {row["item_id"]: row for row in loaded}
    for item in items:
        row = by_id[item.external_id]
        assert (row["prompt"], row["country"], row["model"]) == (item.prompt, "JP", item.model_name)
        assert isinstance(row["image"], Image.Image) and row["image"].size == (item.width, item.height)
        assert row["file_name"] == f"images/{item.image.name.rsplit('/', 1)[-1]}"
        assert (folder / row["file_name"]).is_file()  # the files stay beside the table


def test_without_images_the_items_config_has_no_image_column(caire, owner, tmp_path, offline):
    study, items, _ = caire
    folder = unzip(exported(study, owner, "hf"), tmp_path / "hf")
    loaded = datasets.load_dataset(str(folder), "items", cache_dir=offline)["train"]
    assert "image" not in loaded.features
    assert set(loaded["prompt"]) == {items[0].prompt} and set(loaded["country"]) == {"IN"}
    assert set(loaded["model"]) == {"model-a"}

"""A comparison study's images and the majority's preferences between them travel with its gold:
``item_images`` and ``preferences`` in the gold export, and as configs of the hf dataset (the
preferences split per country, the images embedded when they are shipped)."""

import io
import json

import pandas as pd
import pytest
from PIL import Image

from studies.models import ItemImage
from studies.services import quotas_for_items
from tests import factories as f
from tests.analysis.test_comparisons import MODELS, study_of
from tests.annotations import annotate, annotators
from tests.exports.test_gold_export import exported, unzipped
from tests.exports.test_hf_export import card_of, load, unzip

pytestmark = pytest.mark.django_db


@pytest.fixture
def compared(owner):
    """India prefers image 1 (sdxl) of the one pair, 3 to 1; Japan prefers image 2 (flux), 2 to 0 and a tie;
    a second pair gets level votes in India."""
    study, india, japan = study_of(owner, "culturalframes-pairwise")
    item = f.make_comparison_item(study, "", models=MODELS[:2], prompt="A wedding in Kerala")
    level = f.make_comparison_item(study, "IN", models=MODELS[1:], prompt="A harvest festival")
    quotas_for_items(items=[item, level])
    for k, rater in enumerate(annotators(india, 4)):
        annotate(rater, item, answers={"fidelity": {"choice": "2" if k == 3 else "1", "order": ["1", "2"],
                                                    "strength": 1}})
    for k, rater in enumerate(annotators(india, 2)):
        annotate(rater, level, answers={"fidelity": {"choice": str(k + 1), "order": ["2", "1"], "strength": 1}})
    for k, rater in enumerate(annotators(japan, 3)):
        choice = {"choice": "tie", "order": ["2", "1"]} if k == 2 else {"choice": "2", "order": ["2", "1"],
                                                                           "strength": 3}
        annotate(rater, item, answers={"fidelity": choice})
    return study, item, level


def test_the_gold_export_lists_each_image_with_its_model_and_the_preferences_per_country(compared, owner):
    study, item, level = compared
    files = unzipped(exported(study, owner, "gold"))
    images = pd.read_csv(io.BytesIO(files["item_images.csv"]), dtype=str)
    assert len(images) == 4 and set(images["item_id"]) == {item.external_id, level.external_id}
    first = images[(images["item_id"] == item.external_id) & (images["position"] == "1")].iloc[0]
    stored = ItemImage.objects.get(item=item, position=1)
    assert (first["model"], json.loads(first["params"])) == ("sdxl", {"seed": 1})
    assert first["file_name"] == f"images/{stored.image.name.rsplit('/', 1)[-1]}" and first["sha256"] == stored.sha256
    prefs = pd.read_csv(io.BytesIO(files["preferences.csv"]), dtype=str).set_index("country")
    assert sorted(prefs.index) == ["IN", "JP"]  # the level pair is no row
    india, japan = prefs.loc["IN"], prefs.loc["JP"]
    assert (india["prompt"], india["chosen_model"], india["rejected_model"]) == ("A wedding in Kerala", "sdxl", "flux")
    assert (india["chosen_votes"], india["rejected_votes"], india["ties"], india["margin"]) == ("3", "1", "0", "0.5")
    assert (japan["chosen_model"], japan["chosen_votes"], japan["ties"], japan["answers"]) == ("flux", "2", "1", "3")
    flux = images[(images["item_id"] == item.external_id) & (images["position"] == "2")].iloc[0]
    assert (japan["chosen"], japan["rejected"]) == (flux["file_name"], first["file_name"])
    assert india["field"] == "fidelity" and india["item_id"] == item.external_id
    assert "item_images.parquet" in files and "preferences.parquet" in files
    assert json.loads(files["manifest.json"])["preferences_undecided"] == {"fidelity": 1}  # the level pair


def test_a_study_without_several_images_has_neither_table(caire, owner):
    study, _, _ = caire
    files = unzipped(exported(study, owner, "gold"))
    assert not {"item_images.csv", "preferences.csv"} & set(files)


def test_the_hf_dataset_has_a_preferences_config_per_country_with_file_paths(compared, owner, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    study, item, _ = compared
    folder = unzip(exported(study, owner, "hf"), tmp_path)
    prefs = load(folder, "preferences")
    assert set(prefs) == {"in", "jp"}
    (row,) = prefs["in"]
    assert (row["prompt"], row["chosen_model"], row["chosen_votes"], row["margin"]) == (
        "A wedding in Kerala", "sdxl", 3, 0.5)
    assert row["chosen"].startswith("images/") and not (folder / "images").exists()  # not shipped: paths only
    listed = load(folder, "item_images")["train"]
    assert listed.num_rows == 4 and set(listed["model"]) == {"sdxl", "flux", "dalle-3"}
    head, body = card_of(folder)
    assert {"preferences", "item_images"} <= {c["config_name"] for c in head["configs"]}
    assert "- `preferences`: splits `in`, `jp`. per comparison question" in body


def test_shipped_images_are_embedded_in_the_preferences_and_the_item_images(compared, owner, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    study, item, level = compared
    shared = ItemImage.objects.get(item=item, position=2)  # one stored file shown by two items
    ItemImage.objects.filter(item=level, position=1).update(image=shared.image.name, sha256=shared.sha256)
    folder = unzip(exported(study, owner, "hf", images=True), tmp_path)
    (row,) = load(folder, "preferences")["jp"]
    assert isinstance(row["chosen"], Image.Image) and isinstance(row["rejected"], Image.Image)
    assert row["chosen"].size == (64, 48) and row["chosen_model"] == "flux"
    listed = load(folder, "item_images")["train"]
    entry = next(r for r in listed if r["item_id"] == item.external_id and r["position"] == 2)
    assert isinstance(entry["image"], Image.Image)
    stored = ItemImage.objects.get(item=item, position=2)
    assert (folder / entry["file_name"]).read_bytes() == stored.image.open("rb").read()
    assert len(list((folder / "images").iterdir())) == 3  # one file per stored image: four images, three files
    head, _ = card_of(folder)
    features = {c["config_name"]: {x["name"]: x for x in c["features"]} for c in head["dataset_info"]}
    assert features["preferences"]["chosen"] == {"name": "chosen", "dtype": "image"}


def test_a_prompts_images_paired_up_are_ranked_within_their_set(owner, tmp_path, monkeypatch):
    """Three images of one prompt, every pair an item (``manage.py image_pairs``'s design): India
    ranks flux, then sdxl, then dalle-3, and the hf dataset has the same table."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    study, india, _ = study_of(owner, "culturalframes-pairwise")
    first = {}  # model → the one stored image every pair item shows
    items = []
    for a, b in ((0, 1), (0, 2), (1, 2)):
        item = f.make_comparison_item(study, "IN", models=(MODELS[a], MODELS[b]), prompt="Diwali at home",
                                      external_id=f"diwali-{a + 1}-{b + 1}")
        for image in item.images.all():
            shared = first.setdefault(image.model_name, image)
            ItemImage.objects.filter(pk=image.pk).update(image=shared.image.name, sha256=shared.sha256)
        items.append((item, a, b))
    quotas_for_items(items=[i for i, _, _ in items])
    prefer = ("flux", "sdxl", "dalle-3")
    for rater in annotators(india, 3):
        for item, a, b in items:
            winner = "1" if prefer.index(MODELS[a]) < prefer.index(MODELS[b]) else "2"
            annotate(rater, item, answers={"fidelity": {"choice": winner, "order": ["1", "2"], "strength": 1}})
    files = unzipped(exported(study, owner, "gold"))
    table = pd.read_csv(io.BytesIO(files["image_rankings.csv"]))
    assert list(table.sort_values("rank")["model"]) == ["flux", "sdxl", "dalle-3"]
    assert set(table["set"]) == {1} and set(table["prompt"]) == {"Diwali at home"}
    assert json.loads(table["items"][0]) == ["diwali-1-2", "diwali-1-3", "diwali-2-3"]
    assert table.set_index("model").loc["flux", "wins"] == 6 and table["image"].str.startswith("images/").all()
    rows = load(unzip(exported(study, owner, "hf"), tmp_path), "image_rankings")["train"]
    assert {r["model"]: r["rank"] for r in rows} == {"flux": 1, "sdxl": 2, "dalle-3": 3}
    assert rows[0]["items"] == ["diwali-1-2", "diwali-1-3", "diwali-2-3"]

"""A pairwise study's items from sets of images: every pair, or a balanced share of them per set;
the file it writes imports as it stands."""

import csv
import io
from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from studies.importing import ItemImportError
from studies.importing.pairs import image_pairs
from studies.models import Item

MODELS = ("sdxl", "flux", "dalle-3", "kandinsky")


def a_set(n, country="IN", models=MODELS):
    row = {"id": f"p{n}", "country": country, "prompt": f"Prompt {n}", "category": "food"}
    for k, model in enumerate(models, start=1):
        row.update({f"image_{k}": f"{n}-{model}.png", f"model_{k}": model, f"params_{k}": ""})
    return row


def models_of(pairs):
    return [frozenset((p["model_1"], p["model_2"])) for p in pairs]


def test_every_pair_of_each_set_becomes_an_item_of_two_images():
    pairs = image_pairs([(2, a_set(1))])
    assert len(pairs) == 6 and len(set(models_of(pairs))) == 6
    first = pairs[0]
    assert first["id"] == "p1-1-2" and (first["image_1"], first["model_2"]) == ("1-sdxl.png", "flux")
    assert first["prompt"] == "Prompt 1" and first["country"] == "IN" and "image_3" not in first


def test_a_share_per_set_is_dealt_so_each_pair_comes_equally_often_per_country():
    sets = [(n + 1, a_set(n)) for n in range(6)] + [(n + 8, a_set(n + 10, "JP")) for n in range(3)]
    pairs = image_pairs(sets, per_prompt=2)
    india = Counter(models_of([p for p in pairs if p["country"] == "IN"]))
    assert len(pairs) == 18 and set(india.values()) == {2}  # 6 sets × 2 = 12 = each of the 6 pairs twice
    japan = Counter(models_of([p for p in pairs if p["country"] == "JP"]))
    assert set(japan.values()) == {1}  # Japan's own deal starts again at the first pair
    assert len({p["id"] for p in pairs}) == len(pairs)


@pytest.mark.parametrize(("rows", "problem"), [
    ([(2, {"id": "p1", "image_1": "a.png"})],
     "line 2: a set needs at least two images (image_1, image_2, …), it has 1"),
    ([(3, {"id": "", "image_1": "a.png", "image_2": "b.png"})], "line 3: 'id' is missing or empty"),
    ([(0, "items.txt: use a .csv or .jsonl file")], "items.txt: use a .csv or .jsonl file"),
])
def test_a_row_that_is_not_a_set_is_refused_with_its_line(rows, problem):
    with pytest.raises(ItemImportError) as info:
        image_pairs(rows)
    assert info.value.errors == [problem]


def test_no_share_below_one():
    with pytest.raises(ItemImportError, match="at least 1"):
        image_pairs([(2, a_set(1))], per_prompt=0)


@pytest.mark.django_db
def test_the_command_writes_a_file_the_pairwise_import_takes(tmp_path, owner):
    from studies.services import study_create_from_preset
    from tests import factories as f
    from tests.studies.test_import_items import folder, png

    sets = tmp_path / "sets.csv"
    rows = [a_set(1, models=MODELS[:3]), a_set(2, models=MODELS[:3])]
    with sets.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out = io.StringIO()
    call_command("image_pairs", str(sets), str(tmp_path / "pairs.csv"), "--per-prompt", "2", stdout=out)
    assert "Wrote 4 pair items" in out.getvalue()

    study = study_create_from_preset(owner=owner, preset="culturalframes-pairwise", name="Pairs", status="open")
    f.make_pool(study, "IN", "India")
    images = folder(tmp_path, {f"{n}-{m}.png": png(10 * n + k) for n in (1, 2) for k, m in enumerate(MODELS[:3])})
    call_command("import_items", str(study.pk), str(tmp_path / "pairs.csv"), images=str(images), stdout=io.StringIO())
    assert Item.objects.filter(study=study).count() == 4
    assert all(item.images.count() == 2 for item in Item.objects.filter(study=study))

    with pytest.raises(CommandError, match="line 2: a set needs at least two images"):
        (tmp_path / "bad.csv").write_text("id,image_1\np1,a.png\n")
        call_command("image_pairs", str(tmp_path / "bad.csv"), str(tmp_path / "x.csv"))

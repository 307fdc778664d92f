"""import_items: a file is imported whole or not at all; every refusal names its line and reason."""

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from PIL import Image

from studies import importing
from studies.models import Item, ItemQuota
from studies.services import study_create_from_preset
from tests import factories as f

pytestmark = pytest.mark.django_db

COLUMNS = ["id", "prompt", "image", "country", "model", "category"]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def pools(pool, other_pool):
    return pool, other_pool


def png(n: int, size=(64, 48)) -> bytes:
    return f.png_bytes(color=(n * 40 % 256, n * 70 % 256, 90), size=size)


def noisy(fmt: str, size=(128, 96)) -> bytes:
    buf = io.BytesIO()
    Image.effect_noise(size, 64).convert("RGB").save(buf, format=fmt)
    return buf.getvalue()


def folder(tmp_path: Path, files: dict[str, bytes]) -> Path:
    root = tmp_path / "images"
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    root.mkdir(exist_ok=True)
    return root


def csv_file(tmp_path: Path, rows: list[dict], columns=None) -> Path:
    path = tmp_path / "items.csv"
    columns = columns or list(dict.fromkeys(key for row in rows for key in [*COLUMNS, *row]))
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def row(n: int, country="IN", **extra) -> dict:
    return {"id": f"p{n}", "prompt": f"Prompt {n}", "image": f"{n}.png", "country": country, **extra}


def run(study, rows_file: Path, images: Path) -> str:
    out = io.StringIO()
    call_command("import_items", str(study.pk), str(rows_file), images=str(images), stdout=out)
    return out.getvalue()


def refused(study, rows_file: Path, images: Path, media: Path) -> str:
    with pytest.raises(CommandError) as info:
        run(study, rows_file, images)
    assert not Item.objects.filter(study=study).exists()
    assert not list(Path(media).rglob("*.*")), "a refused file must leave no stored image behind"
    return str(info.value)


# --- happy paths ------------------------------------------------------------------------------


def test_it_imports_a_csv_with_a_folder_and_routes_items_to_their_pool(study, pools, tmp_path, media):
    pool, other_pool = pools
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(2), "sub/3.png": png(3, size=(30, 20))})
    rows = [row(1, model="model-a", source="set-1"), row(2, model="model-b"), row(3, "jp", image="sub/3.png")]

    out = run(study, csv_file(tmp_path, rows), images)

    assert "Imported 3 items (IN: 2, JP: 1)" in out
    item = Item.objects.get(study=study, external_id="p1")
    assert (item.prompt, item.model_name, item.country) == ("Prompt 1", "model-a", "IN")
    assert item.metadata == {"source": "set-1"}
    assert (item.width, item.height) == (64, 48)
    assert item.image.read() == png(1)
    japan = Item.objects.get(study=study, external_id="p3")
    assert (japan.country, japan.width, japan.height) == ("JP", 30, 20)
    assert set(ItemQuota.objects.filter(pool=pool).values_list("item__external_id", flat=True)) == {"p1", "p2"}
    assert list(ItemQuota.objects.filter(pool=other_pool).values_list("item__external_id", "wanted")) == [
        ("p3", other_pool.annotations_per_item)
    ]


def test_it_imports_jsonl_with_a_zip_and_keeps_metadata(study, pools, tmp_path):
    archive = tmp_path / "images.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("imgs/a.jpg", noisy("JPEG"))
        zf.writestr("imgs/b.webp", noisy("WEBP"))
    lines = [
        {"id": 7, "prompt": "A bride", "image": "imgs/a.jpg", "country": "IN", "metadata": {"seed": 3}, "lang": "hi"},
        {"id": "x8", "image": "imgs/b.webp", "country": "JP", "is_example": True},
    ]
    rows_file = tmp_path / "items.jsonl"
    rows_file.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")

    out = run(study, rows_file, archive)

    assert "Imported 2 items (IN: 1, JP: 1), 1 of them practice-test examples" in out
    item = Item.objects.get(study=study, external_id="7")
    assert item.metadata == {"seed": 3, "lang": "hi"}
    assert item.image.name.endswith(".jpg")
    assert Item.objects.get(external_id="x8").is_example
    assert list(ItemQuota.objects.values_list("item__external_id", flat=True)) == ["7"]  # examples get none


# --- refusals: line, reason, nothing imported -------------------------------------------------


def test_it_refuses_a_text_file_named_png(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1), "2.png": b"just some text, not an image\n"})
    message = refused(study, csv_file(tmp_path, [row(1), row(2)]), images, media)
    assert "line 3: '2.png' is not an image in an allowed format (JPEG, PNG, WebP, GIF)" in message


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_it_refuses_a_truncated_image(study, pools, tmp_path, media, fmt):
    data = noisy(fmt)
    images = folder(tmp_path, {"1.png": data[: len(data) // 2]})
    message = refused(study, csv_file(tmp_path, [row(1)]), images, media)
    assert "line 2: image '1.png' is damaged or truncated" in message


def test_it_refuses_too_many_pixels(study, pools, tmp_path, media, settings):
    settings.IMAGE_MAX_PIXELS = 1000
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1)]), images, media)
    assert "line 2: image '1.png' is 64x48 = 3,072 pixels, more than the limit of 1,000" in message


def test_it_refuses_a_decompression_bomb_as_an_error(study, pools, tmp_path, media, settings, monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)  # Pillow's own guard fires before ours
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1)]), images, media)
    assert "line 2: image '1.png' has too many pixels" in message


def test_it_refuses_a_file_too_big(study, pools, tmp_path, media, settings):
    settings.IMAGE_MAX_BYTES = 50
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1)]), images, media)
    assert f"line 2: image '1.png' is {len(png(1)):,} bytes, more than the limit of 50 bytes" in message


def test_it_refuses_a_missing_image_and_reports_every_bad_row(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1)})
    rows = [row(1), row(2), row(3, "FR")]
    message = refused(study, csv_file(tmp_path, rows), images, media)
    assert "line 3: image file '2.png' not found" in message
    assert "line 4: image file '3.png' not found" in message
    assert "line 4: country 'FR' has no pool in this study (pools: IN, JP)" in message
    assert "3 problem(s)" in message


@pytest.mark.parametrize(
    "name", ["../outside.png", "/etc/hostname", "sub/../../outside.png", "..\\outside.png", "C:/x.png", "a\0.png"]
)
def test_it_refuses_a_path_leaving_the_folder(study, pools, tmp_path, media, name):
    (tmp_path / "outside.png").write_bytes(png(1))
    images = folder(tmp_path, {})
    message = refused(study, csv_file(tmp_path, [row(1, image=name)]), images, media)
    assert "line 2: image path" in message


def test_it_refuses_a_symlink_leaving_the_folder(study, pools, tmp_path, media):
    (tmp_path / "outside.png").write_bytes(png(1))
    images = folder(tmp_path, {})
    (images / "1.png").symlink_to(tmp_path / "outside.png")
    message = refused(study, csv_file(tmp_path, [row(1)]), images, media)
    assert "line 2: image path '1.png' must not leave the images folder" in message


def test_it_refuses_a_zip_member_outside_the_archive_root(study, pools, tmp_path, media):
    archive = tmp_path / "images.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../1.png", png(1))
    message = refused(study, csv_file(tmp_path, [row(1, image="../1.png")]), archive, media)
    assert "line 2: image path '../1.png' must not leave the images folder" in message


def test_it_refuses_a_duplicate_id(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(2)})
    rows = [row(1), row(2, id="p1")]
    message = refused(study, csv_file(tmp_path, rows), images, media)
    assert "line 3: duplicate id 'p1' (already on line 2)" in message


def test_it_refuses_a_duplicate_image(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1), row(2)]), images, media)
    assert "line 3: image '2.png' is the same image as on line 2" in message


def test_it_refuses_an_image_or_id_already_in_the_study(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(2)})
    run(study, csv_file(tmp_path, [row(1)]), images)
    stored = sorted(Path(media).rglob("*.png"))

    rows_file = csv_file(tmp_path, [row(9, image="1.png"), row(1, image="2.png")])
    with pytest.raises(CommandError) as info:
        run(study, rows_file, images)

    assert "line 2: image '1.png' is already in this study (item 'p1')" in str(info.value)
    assert "line 3: id 'p1' is already in this study" in str(info.value)
    assert list(Item.objects.values_list("external_id", flat=True)) == ["p1"]
    assert sorted(Path(media).rglob("*.png")) == stored


def test_it_refuses_an_unknown_country(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1, "FR")]), images, media)
    assert "line 2: country 'FR' has no pool in this study (pools: IN, JP)" in message


def test_it_refuses_a_missing_required_column(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1)})
    rows_file = csv_file(tmp_path, [row(1)], columns=["id", "prompt", "country"])
    message = refused(study, rows_file, images, media)
    assert "line 1: missing required column(s): image" in message


def test_it_refuses_an_empty_required_value(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1, id="")]), images, media)
    assert "line 2: 'id' is missing or empty" in message


def test_it_refuses_a_bad_jsonl_line(study, pools, tmp_path, media):
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(2)})
    rows_file = tmp_path / "items.jsonl"
    rows_file.write_text(json.dumps(row(1)) + "\n{not json\n\n" + json.dumps([1]) + "\n")
    message = refused(study, rows_file, images, media)
    assert "line 2: not valid JSON" in message
    assert "line 4: not a JSON object" in message


def test_it_refuses_an_unknown_study_and_a_bad_images_path(study, pools, tmp_path):
    rows_file = csv_file(tmp_path, [row(1)])
    with pytest.raises(CommandError, match="no study with id 999999"):
        call_command("import_items", "999999", str(rows_file), images=str(tmp_path))
    with pytest.raises(CommandError, match="neither a folder nor a .zip file"):
        run(study, rows_file, tmp_path / "nope")


def test_a_failed_write_deletes_the_images_already_stored(study, pools, tmp_path, media, monkeypatch):
    def boom(*, items):
        raise RuntimeError("database went away")

    monkeypatch.setattr(importing.service, "quotas_for_items", boom)
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(2)})
    with pytest.raises(RuntimeError):
        importing.items_import(study=study, rows_file=csv_file(tmp_path, [row(1), row(2)]), images=images)
    assert not Item.objects.exists()
    assert not list(Path(media).rglob("*.png"))


def test_a_concurrent_import_of_the_same_id_is_refused_cleanly(study, pools, tmp_path, media, monkeypatch):
    images = folder(tmp_path, {"1.png": png(1)})
    storage = Item._meta.get_field("image").storage
    save, raced = storage.save, []

    def save_while_another_import_adds_the_item(name, content, **kwargs):
        if not raced:  # after the checks, at this import's first image: a second import adds the same id
            raced.append(True)
            f.make_item(study, external_id="p1")
        return save(name, content, **kwargs)

    monkeypatch.setattr(storage, "save", save_while_another_import_adds_the_item)

    with pytest.raises(importing.ItemImportError, match="added to the study meanwhile"):
        importing.items_import(study=study, rows_file=csv_file(tmp_path, [row(1)]), images=images)
    # The racing row was written in this import's own transaction here (one test, one connection), so
    # it went with the rollback; its image file stays, and the import's own image was deleted.
    assert raced and not Item.objects.exists()
    assert len(list(Path(media).rglob("*.png"))) == 1


# --- the item parts of every protocol ---------------------------------------------------------


def preset_study(owner, preset: str, countries=("IN", "JP")):
    study = study_create_from_preset(owner=owner, preset=preset, status="open")
    for country in countries:
        f.make_pool(study, country, {"IN": "India", "JP": "Japan", "BR": "Brazil"}[country])
    return study


def jsonl_file(tmp_path: Path, lines: list[dict]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


CANDIDATES = [
    {"id": "sys-a", "text": "Women light diyas"}, {"id": "sys-b", "text": "A lamp"}, {"id": "sys-c", "text": "Fire"}
]
DOCUMENTS = [
    {"title": "Diwali", "url": "https://en.wikipedia.org/wiki/Diwali", "text": "The festival of lights."},
    {"title": "Diya (lamp)", "url": "http://en.wikipedia.org/wiki/Diya_(lamp)"},
]


def test_it_imports_every_item_part_from_jsonl(owner, tmp_path):
    study = preset_study(owner, "culturalvqa-judgment")
    images = folder(tmp_path, {"1.png": png(1)})
    line = {
        "id": "q1", "image": "1.png", "country": "IN", "caption": "Diyas at dusk", "question": "What is lit?",
        "background": "Lamps lit for Diwali.", "reference": ["Diya", "Deepam"], "answer": "Candle",
        "candidates": CANDIDATES, "documents": DOCUMENTS, "author": "pidauthor1",
    }

    out = run(study, jsonl_file(tmp_path, [line]), images)

    assert "Imported 1 items (IN: 1), with 2 documents" in out
    item = Item.objects.get(study=study)
    assert item.caption == "Diyas at dusk"
    assert item.texts == {"question": "What is lit?", "background": "Lamps lit for Diwali.",
                          "reference": "Diya | Deepam", "answer": "Candle"}
    assert item.candidates == CANDIDATES
    assert item.author_pid == "pidauthor1" and item.metadata == {}
    docs = list(item.documents.values_list("position", "title", "url", "text"))
    assert docs == [
        (1, "Diwali", "https://en.wikipedia.org/wiki/Diwali", "The festival of lights."),
        (2, "Diya (lamp)", "http://en.wikipedia.org/wiki/Diya_(lamp)", ""),
    ]


def test_it_imports_every_item_part_from_csv(owner, tmp_path):
    study = preset_study(owner, "ravenea-doc-relevance")
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(2)})
    rows = [
        row(1, caption="Diyas at dusk", question="What is lit?", reference="Diya |  Deepam", answer="Candle",
            background="Lamps.", candidates=json.dumps(CANDIDATES), documents=json.dumps(DOCUMENTS), author="pid1"),
        row(2, "JP", documents=json.dumps(DOCUMENTS[:1])),
    ]

    out = run(study, csv_file(tmp_path, rows), images)

    assert "Imported 2 items (IN: 1, JP: 1), with 3 documents" in out
    first = Item.objects.get(external_id="p1")
    assert first.texts == {"question": "What is lit?", "background": "Lamps.", "reference": "Diya | Deepam",
                           "answer": "Candle"}
    assert (first.caption, first.candidates, first.author_pid) == ("Diyas at dusk", CANDIDATES, "pid1")
    assert first.documents.count() == 2
    second = Item.objects.get(external_id="p2")
    assert (second.texts, second.candidates, second.author_pid) == ({}, [], "")
    assert list(second.documents.values_list("title", flat=True)) == ["Diwali"]


def test_items_without_an_image_are_imported_when_the_protocol_shows_none(owner, tmp_path, media):
    study = preset_study(owner, "culturalframes-prompt-filter")
    rows_file = csv_file(tmp_path, [{"id": "fp1", "prompt": "A family at dinner", "country": "IN"}],
                         columns=["id", "prompt", "country"])

    out = io.StringIO()
    call_command("import_items", str(study.pk), str(rows_file), stdout=out)  # no --images at all

    assert "Imported 1 items (IN: 1)" in out.getvalue()
    item = Item.objects.get(study=study)
    assert (item.image.name, item.width, item.height, item.sha256) == ("", None, None, "")
    assert ItemQuota.objects.filter(item=item).count() == 1
    assert not list(Path(media).rglob("*.*"))


def test_items_without_an_image_can_sit_beside_items_with_one(owner, tmp_path):
    study = preset_study(owner, "globalrg-grounding")
    images = folder(tmp_path, {"1.png": png(1)})
    lines = [{"id": "c1", "prompt": "Dosa", "country": "IN"}, {"id": "c2", "prompt": "Sushi", "country": "JP"},
             {"id": "c3", "prompt": "Sari", "country": "IN", "image": "1.png"}]

    run(study, jsonl_file(tmp_path, lines), images)

    without_image = Item.objects.filter(sha256="").order_by("external_id")
    assert list(without_image.values_list("external_id", flat=True)) == ["c1", "c2"]


def test_it_refuses_a_missing_image_when_the_protocol_shows_images(owner, tmp_path, media):
    study = preset_study(owner, "caire-relevance")
    images = folder(tmp_path, {})
    message = refused(study, jsonl_file(tmp_path, [{"id": "a", "country": "IN"}]), images, media)
    assert "line 1: 'image' is missing or empty: this study's protocol shows each item's image" in message


def test_it_refuses_a_csv_without_an_image_column_when_the_protocol_shows_images(owner, tmp_path, media):
    study = preset_study(owner, "culturalvqa-answer")
    rows_file = csv_file(
        tmp_path, [{"id": "a", "country": "IN", "question": "What?"}], columns=["id", "country", "question"]
    )
    message = refused(study, rows_file, folder(tmp_path, {}), media)
    assert "line 1: missing required column(s): image" in message


def test_it_refuses_a_named_image_without_an_images_folder(owner, tmp_path, media):
    study = preset_study(owner, "culturalframes-prompt-filter")
    rows_file = jsonl_file(tmp_path, [{"id": "a", "country": "IN", "prompt": "A", "image": "1.png"}])
    with pytest.raises(
        CommandError, match=r"line 1: image '1.png' is named, but no images folder or .zip was given \(--images\)"
    ):
        call_command("import_items", str(study.pk), str(rows_file))


@pytest.mark.parametrize(
    "value, expected",
    [
        ("[{not json", "line 2: 'candidates' is not valid JSON"),
        ('{"id": "a", "text": "x"}', "line 2: 'candidates' must be a JSON list of objects"),
        ("[]", "line 2: 'candidates' is an empty list"),
        ('[{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]',
         "line 2: candidate 2: duplicate id 'a' (already candidate 1)"),
        ('[{"id": "a", "text": "  "}]', "line 2: candidate 1: 'text' is missing or empty"),
        ('[{"text": "x"}]', "line 2: candidate 1: 'id' is missing or empty"),
        ('[{"id": "a", "text": "x", "system": "m"}]', "line 2: candidate 1: unknown key(s) system (use id and text)"),
    ],
)
def test_it_refuses_bad_candidates(owner, tmp_path, media, value, expected):
    study = preset_study(owner, "ravenea-caption-choice")
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1, candidates=value)]), images, media)
    assert expected in message


def test_it_refuses_an_item_without_candidates_when_the_protocol_picks_one(owner, tmp_path, media):
    study = preset_study(owner, "ravenea-caption-choice")
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1)]), images, media)
    assert "line 2: 'candidates' is missing: this study's protocol asks to choose among them" in message


@pytest.mark.parametrize(
    "documents, expected",
    [
        ([{"url": "https://en.wikipedia.org/wiki/Diwali"}], "line 1: document 1: 'title' is missing or empty"),
        ([{"title": "Diwali", "url": "ftp://example.org/x"}],
         "line 1: document 1: url 'ftp://example.org/x' is not a web address (http:// or https://)"),
        ([DOCUMENTS[0], {"title": "Diya", "url": "en.wikipedia.org/wiki/Diya"}],
         "line 1: document 2: url 'en.wikipedia.org"),
        ([{"title": "Diwali", "link": "https://x.org"}],
         "line 1: document 1: unknown key(s) link (use title, url and text)"),
        ([{"title": 5}], "line 1: document 1: 'title' must be text"),
        ("[{", "line 1: 'documents' is not valid JSON"),
        ([], "line 1: 'documents' is an empty list"),
    ],
)
def test_it_refuses_bad_documents(owner, tmp_path, media, documents, expected):
    study = preset_study(owner, "ravenea-doc-relevance")
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, jsonl_file(tmp_path, [{**row(1), "documents": documents}]), images, media)
    assert expected in message


def test_it_refuses_an_item_without_documents_when_the_protocol_asks_about_them(owner, tmp_path, media):
    study = preset_study(owner, "ravenea-doc-relevance")
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1)]), images, media)
    assert "line 2: 'documents' is missing: this study's protocol asks about each document" in message


@pytest.mark.parametrize(
    "extra, expected",
    [
        ({"reference": ["Naan", ""]}, "line 1: 'reference' has an empty answer"),
        ({"reference": "Naan || Roti"}, "line 1: 'reference' has an empty answer"),
        ({"reference": {"a": 1}}, "line 1: 'reference' must be a text or a list of texts"),
        ({"question": ["What?"]}, "line 1: 'question' must be text"),
        ({"author": "x" * 65}, "line 1: 'author' is longer than 64 characters"),
    ],
)
def test_it_refuses_bad_texts(owner, tmp_path, media, extra, expected):
    study = preset_study(owner, "culturalvqa-judgment")
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, jsonl_file(tmp_path, [{**row(1), **extra}]), images, media)
    assert expected in message


# --- routing ----------------------------------------------------------------------------------


def test_routing_to_every_pool_gives_each_item_a_quota_in_every_pool(owner, tmp_path):
    study = preset_study(owner, "caire-relevance", countries=("IN", "JP", "BR"))
    assert study.routing == "all_pools"
    images = folder(tmp_path, {"1.png": png(1), "2.png": png(2)})

    out = run(study, csv_file(tmp_path, [row(1, "IN"), row(2, "us")]), images)

    assert "Imported 2 items (IN: 1, US: 1)" in out  # a country without a pool: where the image comes from
    assert Item.objects.get(external_id="p2").country == "US"
    quotas = set(ItemQuota.objects.values_list("item__external_id", "pool__country"))
    assert quotas == {(ext, c) for ext in ("p1", "p2") for c in ("IN", "JP", "BR")}


def test_routing_to_every_pool_still_checks_the_country_code(owner, tmp_path, media):
    study = preset_study(owner, "caire-relevance")
    images = folder(tmp_path, {"1.png": png(1)})
    message = refused(study, csv_file(tmp_path, [row(1, "India")]), images, media)
    assert "line 2: country 'India' is not a two-letter ISO code" in message


@pytest.mark.parametrize(
    "preset, needs",
    [
        ("caire-relevance", importing.ItemNeeds(image=True)),
        ("culturalframes-prompt-filter", importing.ItemNeeds(image=False)),
        ("culturalframes-rating", importing.ItemNeeds(image=True)),
        ("ravenea-doc-relevance", importing.ItemNeeds(image=True, documents=True)),
        ("ravenea-caption-choice", importing.ItemNeeds(image=True, candidates=True)),
        ("globalrg-grounding", importing.ItemNeeds(image=False)),  # the box is drawn on the annotator's upload
        ("culturalvqa-question", importing.ItemNeeds(image=True)),
        ("culturalvqa-answer", importing.ItemNeeds(image=True)),
        ("culturalvqa-judgment", importing.ItemNeeds(image=True)),
    ],
)
def test_what_each_preset_needs_of_an_item(preset, needs):
    from studies.protocol import parse_spec
    from studies.services import preset_load

    assert importing.item_needs(parse_spec(preset_load(preset))) == needs


def test_a_box_on_the_item_image_needs_an_image_even_when_the_page_does_not_list_it():
    from studies.protocol import parse_spec

    spec = parse_spec({"fields": [{"key": "box", "type": "bbox", "over": "image"}], "display": {"show": ["prompt"]}})
    assert importing.item_needs(spec).image

"""The item page of every demo protocol stays under 100 KB of scripts and styles before compression,
as production serves them (hashed, minified: config/staticfiles.py), and loads a field type's script
only where its protocol has such a field. bench/bench_page.py measures the same pages in Chromium."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

from studies.services import preset_load
from tests.helpers import on_items, production_static

DEMOS = sorted(
    json.loads(p.read_text(encoding="utf-8"))["study"]["protocol_preset"]
    for p in (Path(settings.BASE_DIR) / "fixtures" / "demo").glob("*/study.json")
)
BUDGET = 100_000  # bytes of JS and CSS, before compression
TYPE_SCRIPTS = {"bbox": "bbox", "upload": "upload", "url_list": "url_list"}  # a field type -> its script
COMPARISONS = {"pairwise", "best_worst", "rank"}  # the types sharing compare.js
ASSETS = re.compile(r'<script src="([^"]+)"|<link rel="stylesheet" href="([^"]+)"')


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    with production_static(tmp_path_factory.mktemp("static")) as root:
        yield root


def field_types(fields: list[dict]) -> set[str]:
    return {t for f in fields for t in (f["type"], *field_types(f.get("fields", [])))}


def assets(page: str) -> list[str]:
    """The addresses of the scripts and style sheets a page loads, in order."""
    return [script or style for script, style in ASSETS.findall(page)]


def test_there_are_eleven_demo_protocols():
    assert len(DEMOS) == 11


@pytest.mark.django_db
@pytest.mark.parametrize("preset", DEMOS)
def test_the_item_page_of_each_demo_protocol_loads_under_100_kb_and_only_its_fields_scripts(
    client, collected, preset
):
    _, _, page = on_items(client, preset)
    urls = assets(page)
    assert all(url.startswith(settings.STATIC_URL) or url.startswith("/" + settings.STATIC_URL) for url in urls)
    files = [collected / url.split(settings.STATIC_URL, 1)[1] for url in urls]
    weight = sum(f.stat().st_size for f in files)
    assert weight < BUDGET, f"{preset}: {weight} bytes of JS and CSS ({[f.name for f in files]})"

    names = {f.name.split(".")[0] for f in files}  # item.1a2b3c4d5e6f.js -> item
    types = field_types(preset_load(preset)["fields"])
    for field_type, script in TYPE_SCRIPTS.items():
        assert (script in names) == (field_type in types), f"{preset}: {script}.js"
    assert ("compare" in names) == bool(types & COMPARISONS), f"{preset}: compare.js"
    assert {"tessera", "htmx", "page", "item"} <= names and "workspace" not in names

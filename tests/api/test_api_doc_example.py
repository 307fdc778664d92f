"""The API page's Python example (docs/api.md), as written there, run as a script against a live server.

The script is the block between ``<!-- api-example -->`` and ``<!-- /api-example -->`` in docs/api.md:
it makes a study from a preset, adds a pool, imports items and their images from a folder, then
runs an analysis of an rated study and loads its gold labels into pandas. Here it runs in a
folder holding ``items.csv`` and ``images/``, with the owner's token, and the database is read
afterwards to see that it did what it printed.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.models import AnalysisRun
from api.tokens import api_token_create
from exports.models import ExportJob
from studies.models import Study
from tests import factories as f

pytestmark = pytest.mark.django_db(transaction=True)

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
PROMPTS = {"wedding": "A realistic photo of a wedding in India", "lunch": "A realistic photo of a lunch in India"}


def api_doc_example() -> str:
    found = re.search(r"<!-- api-example -->\s*```python\n(.*?)```\s*<!-- /api-example -->", API_DOC.read_text(), re.S)
    assert found, "docs/api.md has no Python block between <!-- api-example --> and <!-- /api-example -->"
    return found.group(1)


def researchers_folder(folder: Path) -> Path:
    """What a researcher has after generating images: images/ and items.csv naming them."""
    (folder / "images").mkdir(parents=True)
    with open(folder / "items.csv", "w", newline="") as out:
        rows = csv.writer(out)
        rows.writerow(["id", "image", "country", "prompt", "model"])
        for n, (concept, prompt) in enumerate(PROMPTS.items()):
            (folder / "images" / f"{concept}.png").write_bytes(f.png_bytes(color=(40 * n, 90, 160)))
            rows.writerow([f"in-{concept}", f"{concept}.png", "IN", prompt, "model-a"])
    return folder


def test_the_api_doc_example_runs_against_a_live_server(live_server, owner, rated, tmp_path):
    _, token = api_token_create(user=owner, name="notebook")
    folder = researchers_folder(tmp_path / "work")
    script = folder / "example.py"
    script.write_text(api_doc_example())
    env = {**os.environ, "TESSERA_API": f"{live_server.url}/api/v1", "TESSERA_TOKEN": token,
           "TESSERA_STUDY": str(rated.pk)}

    done = subprocess.run([sys.executable, str(script)], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=300)

    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    made = Study.objects.get(owner=owner, name="CAIRE, our models")
    assert sorted(made.items.values_list("external_id", flat=True)) == ["in-lunch", "in-wedding"]
    assert list(made.pools.values_list("country", "annotations_per_item")) == [("IN", 3)]
    run = AnalysisRun.objects.get(study=rated)
    assert (run.status, run.resamples, run.seed) == ("done", 200, 1)
    assert ExportJob.objects.get(study=rated, format="gold").status == "done"
    assert "item" in done.stdout and "field" in done.stdout  # the gold table's head, printed

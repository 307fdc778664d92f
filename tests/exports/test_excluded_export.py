"""An excluded annotator's annotations are left out of the export, and the manifest and the dataset
card say who was left out, why, and how many annotations; including them again brings them back."""

import csv
import io
import zipfile

from django.core.files.storage import default_storage

from annotation.services import annotator_exclude, annotator_include
from tests.exports.test_gold_export import exported

REASON = "Same answer to every item | in 2 seconds"


def csv_rows(job) -> list[dict]:
    with default_storage.open(job.file.name, "rb") as fh:
        return list(csv.DictReader(io.StringIO(fh.read().decode("utf-8"))))


def card_text(job) -> str:
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        return zf.read(f"{job.manifest['folder']}/README.md").decode("utf-8")


def test_the_export_leaves_them_out_and_the_manifest_names_them(caire, owner):
    study, _, (a, b, c, d) = caire
    before = csv_rows(exported(study, owner, "csv"))
    assert b.pseudonym in {r["annotator"] for r in before}
    annotator_exclude(annotator=b, by=owner, reason=REASON)
    job = exported(study, owner, "csv")
    rows = csv_rows(job)
    assert b.pseudonym not in {r["annotator"] for r in rows}
    assert len(rows) == len(before) - 2
    (entry,) = job.manifest["excluded_annotators"]
    assert (entry["pseudonym"], entry["reason"], entry["annotations"]) == (b.pseudonym, REASON, 2)
    assert entry["excluded_at"].endswith("Z")
    assert "annotator_id" not in entry  # the export names annotators by pseudonyms only
    annotator_include(annotator=b)
    job = exported(study, owner, "csv")
    assert csv_rows(job) == before
    assert job.manifest["excluded_annotators"] == []


def test_the_dataset_card_says_who_was_left_out_and_why(caire, owner):
    study, _, (a, b, c, d) = caire
    assert "## Excluded annotators" not in card_text(exported(study, owner, "hf"))
    annotator_exclude(annotator=b, by=owner, reason=REASON)
    card = card_text(exported(study, owner, "hf"))
    assert "## Excluded annotators" in card
    assert f"| `{b.pseudonym}` | 2 | Same answer to every item \\| in 2 seconds |" in card

"""The raw export's honest-effort columns (appended after the existing ones): the page's counts of each
annotation, empty where the page sent none, in every tabular format."""

import csv
import io
import json

import pyarrow.parquet as pq
import pytest
from django.core.files.storage import default_storage

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from annotation.models import Annotation
from exports.csv_layout import TRAILING_COLUMNS
from exports.models import ExportJob
from exports.services import export_build, export_start
from tests.annotations import annotate, annotators

EFFORT = {"fields": {"explanation": {"pasted": 30, "typed": 12, "keys": 9, "burst": 30}}, "blurs": 2,
          "hidden_ms": 4_250}


@pytest.fixture
def counted(study, pool, items, owner):
    a, b = annotators(pool, 2)
    with_counts = annotate(a, items[0])
    annotate(b, items[0])
    Annotation.objects.filter(pk=with_counts.pk).update(effort=EFFORT)
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    return study


def build(study, owner, fmt="csv"):
    job = export_build(job_id=export_start(study=study, user=owner, format=fmt).pk)
    assert job.status == ExportJob.Status.DONE, job.error
    return job


def test_the_effort_columns_come_last_after_the_existing_ones():
    assert TRAILING_COLUMNS[:6] == ["surplus", "protocol_version", "time_spent_s", "started_at", "submitted_at",
                                    "review"]
    assert TRAILING_COLUMNS[6:] == ["pasted_chars", "typed_chars", "focus_losses", "hidden_seconds"]


def stored(job) -> bytes:
    with default_storage.open(job.file.name, "rb") as fh:
        return fh.read()


def test_jsonl_and_parquet_have_them_as_numbers_and_nulls(counted, owner):
    lines = [json.loads(line) for line in stored(build(counted, owner, "jsonl")).decode().splitlines()]
    assert [lines[0][c] for c in ("pasted_chars", "typed_chars", "focus_losses", "hidden_seconds")] == [30, 12, 2, 4.2]
    assert [lines[1][c] for c in ("pasted_chars", "typed_chars", "focus_losses", "hidden_seconds")] == [None] * 4
    table = pq.read_table(io.BytesIO(stored(build(counted, owner, "parquet")))).to_pylist()
    assert (table[0]["pasted_chars"], table[0]["hidden_seconds"], table[1]["typed_chars"]) == (30, 4.2, None)


def test_the_csv_has_the_counts_and_empty_cells_without_them(counted, owner):
    job = build(counted, owner)
    rows = list(csv.DictReader(io.StringIO(stored(job).decode("utf-8"))))
    assert list(rows[0])[-4:] == ["pasted_chars", "typed_chars", "focus_losses", "hidden_seconds"]
    assert [rows[0][c] for c in ("pasted_chars", "typed_chars", "focus_losses", "hidden_seconds")] == [
        "30", "12", "2", "4.2"]
    assert [rows[1][c] for c in ("pasted_chars", "typed_chars", "focus_losses", "hidden_seconds")] == [""] * 4

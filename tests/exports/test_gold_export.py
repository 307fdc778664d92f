"""The ``gold`` export opened by pandas and pyarrow: per-field gold rows per (item, country) and per
item, each annotator's competence by pseudonym, the paper tables the protocol declares, an annotator
flagged by a checker left out; lists stay lists in Parquet and are JSON text in CSV."""

import io
import json
import zipfile

import pandas as pd
import pyarrow.parquet as pq
from django.core.files.storage import default_storage

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from annotation.models import pseudonym_for
from exports.models import ExportJob
from exports.services import export_build, export_start


def exported(study, owner, fmt, **options) -> ExportJob:
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    job = export_build(job_id=export_start(study=study, user=owner, format=fmt, options=options).pk)
    assert job.status == ExportJob.Status.DONE, job.error
    return job


def unzipped(job) -> dict[str, bytes]:
    with default_storage.open(job.file.name, "rb") as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def test_the_gold_zip_holds_every_table_in_csv_and_parquet_with_the_manifest(caire, owner):
    study, items, _ = caire
    files = unzipped(exported(study, owner, "gold"))
    tables = ["gold_by_country", "gold_by_item", "annotators", "paper_human_scores"]
    assert {f"{t}.{s}" for t in tables for s in ("csv", "parquet")} | {"manifest.json"} == set(files)
    manifest = json.loads(files["manifest.json"])
    assert manifest["format"] == "gold" and {f["name"] for f in manifest["files"]} == set(files) - {"manifest.json"}


def test_gold_rows_per_item_and_country_leave_the_flagged_annotation_out(caire, owner):
    study, items, _ = caire
    files = unzipped(exported(study, owner, "gold"))
    gold = pd.read_parquet(io.BytesIO(files["gold_by_country.parquet"]))
    first = gold[(gold["item"] == items[0].external_id) & (gold["country"] == "IN") & (gold["field"] == "relevance")]
    assert len(first) == 1
    row = first.iloc[0]
    assert row["n"] == 2 and row["median"] == 4.5 and row["mean"] == 4.5  # the flagged 1 left out
    japan = gold[(gold["country"] == "JP") & (gold["field"] == "relevance")].iloc[0]
    assert japan["n"] == 1 and japan["mean"] == 3.0 and pd.isna(japan["agreement"])  # a single rater
    second = gold[(gold["item"] == items[1].external_id) & (gold["field"] == "relevance")].iloc[0]
    assert second["agreement"] == 1.0
    by_item = pd.read_parquet(io.BytesIO(files["gold_by_item.parquet"]))
    pooled = by_item[(by_item["item"] == items[0].external_id) & (by_item["field"] == "relevance")].iloc[0]
    assert pooled["n"] == 3 and pooled["mean"] == 4.0 and pd.isna(pooled["country"])


def test_paper_table_and_annotators_use_item_ids_and_pseudonyms(caire, owner):
    study, items, (a, b, c, d) = caire
    files = unzipped(exported(study, owner, "gold"))
    scores = pd.read_parquet(io.BytesIO(files["paper_human_scores.parquet"]))
    row = scores[(scores["item"] == items[0].external_id) & (scores["country"] == "IN")].iloc[0]
    assert row["mean"] == 4.5 and row["n"] == 2
    people = pd.read_parquet(io.BytesIO(files["annotators.parquet"]))
    names = set(people["annotator"])
    assert names <= {pseudonym_for(x.public_id) for x in (a, b, d)}
    assert pseudonym_for(c.public_id) not in names  # every annotation of c was flagged
    assert not any(str(x.pk) == n for x in (a, b, c, d) for n in names)


def test_lists_stay_lists_in_parquet_and_are_json_text_in_csv(caire, owner):
    study, items, _ = caire
    files = unzipped(exported(study, owner, "gold"))
    gold = pq.read_table(io.BytesIO(files["gold_by_country.parquet"]))
    assert gold.schema.field("n").type.bit_width == 64
    csv = pd.read_csv(io.BytesIO(files["gold_by_country.csv"]))
    assert set(csv.columns) == set(gold.column_names)
    assert len(csv) == gold.num_rows

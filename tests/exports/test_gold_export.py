"""The ``gold`` export opened by pandas and pyarrow: per-field gold rows per (item, country) and per
item, each annotator's competence by pseudonym, the paper tables the protocol declares, an annotator
flagged by a checker left out; lists stay lists in Parquet and are JSON text in CSV."""

import io
import json
import zipfile

import pandas as pd
import pyarrow.parquet as pq
import pytest
from django.core.files.storage import default_storage

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from annotation.models import pseudonym_for
from exports.models import ExportJob
from exports.services import export_build, export_start
from stats.gold import DS_MIN_ITEMS


def exported(study, owner, fmt, **options) -> ExportJob:
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return export_again(study, owner, fmt, **options)


def export_again(study, owner, fmt, **options) -> ExportJob:
    """An export gated on the latest run, none run anew (the same data, the same run: the same release)."""
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


def test_culturalvqa_answers_stay_a_list_in_parquet_and_are_json_text_in_csv(owner):
    from tests import factories as f
    from tests.annotations import annotate, annotators

    study, pool = f.preset_study("culturalvqa-answer")
    item = f.make_items(study, "IN", 1)[0]
    for text, rater in zip(["The naan.", "naan", "roti"], annotators(pool, 3), strict=True):
        annotate(rater, item, {"answer": text})
    files = unzipped(exported(study, study.owner, "gold"))
    table = pq.read_table(io.BytesIO(files["paper_answer_agreement.parquet"])).to_pylist()
    (row,) = table
    assert row["item"] == item.external_id and row["answers"] == ["The naan.", "naan", "roti"]
    assert (row["n"], row["majority"], row["tie"]) == (3, "naan", False)
    assert row["agreement"] == pytest.approx(1 / 3)
    csv = pd.read_csv(io.BytesIO(files["paper_answer_agreement.csv"]))
    assert json.loads(csv.iloc[0]["answers"]) == ["The naan.", "naan", "roti"]


def test_each_annotators_competence_is_named_by_pseudonym_and_a_flagged_one_is_absent(owner):
    from annotation.models import Review
    from tests import factories as f
    from tests.annotations import annotate, annotators, inline_study, submitted
    from tests.specs import YES_NO

    spec = {"title": "Prevalent", "fields": [
        {"key": "prevalent", "type": "choice", "level": "nominal", "label": "Prevalent?", "choices": YES_NO}]}
    study = inline_study(owner, spec, name="Nominal")
    pool = f.make_pool(study, "IN", "India")
    items = f.make_items(study, "IN", DS_MIN_ITEMS)  # enough for each annotator to count in Dawid–Skene
    a, b, c = annotators(pool, 3)
    for i, item in enumerate(items):
        annotate(a, item, submitted(item, {"prevalent": "yes" if i else "no"}))
        annotate(b, item, submitted(item, {"prevalent": "yes" if i else "no"}))
        flagged = annotate(c, item, submitted(item, {"prevalent": "no" if i else "yes"}))
        Review.objects.create(annotation=flagged, reviewer=owner, outcome=Review.Outcome.FLAGGED)
    files = unzipped(exported(study, owner, "gold"))
    people = pd.read_parquet(io.BytesIO(files["annotators.parquet"]))
    assert sorted(people["annotator"]) == sorted(pseudonym_for(x.public_id) for x in (a, b))
    assert set(people["field"]) == {"prevalent"} and people["competence"].between(0, 1).all()
    assert (people["items"] == DS_MIN_ITEMS).all()
    gold = pd.read_csv(io.BytesIO(files["gold_by_country.csv"]))
    majority = dict(zip(gold["item"], gold["majority"], strict=True))
    assert [majority[item.external_id] for item in items] == ["no"] + ["yes"] * (DS_MIN_ITEMS - 1)


def test_a_paper_table_that_fails_is_named_in_the_manifest_with_its_reason(caire, owner):
    from unittest import mock

    from stats.gold import GOLD

    def broken(report):
        raise ValueError("no ratings to score")

    with mock.patch.dict(GOLD, {"human_scores": broken}):
        files = unzipped(exported(caire[0], owner, "gold"))
    manifest = json.loads(files["manifest.json"])
    assert manifest["not_computed"] == {"paper_human_scores": "ValueError: no ratings to score"}
    assert "paper_human_scores.csv" not in files and "gold_by_country.csv" in files

"""Everywhere a researcher sees an item, it is named by their own id (``Item.external_id``), never
by its database key: the analysis's JSON result and its report tables, the metric upload's matching
and its result, the quality check's page and the export. Items here are named like "img-0042", so
a key shown by mistake can never pass for a name."""

import csv
import io
import json

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.urls import reverse

from analysis.metrics import metric_result, metric_upload_create
from analysis.models import AnalysisRun, MetricUpload
from analysis.services import analysis_run
from exports.services import export_build, export_start
from studies.models import Study
from studies.services import preset_load
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study
from tests.helpers import login, review_url

NAMES = ["img-0042", "img-0007", "img-0100"]


def analyse(study, owner) -> AnalysisRun:
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return run


@pytest.fixture
def caire(owner):
    """A CAIRE study (every pool rates every item), three items rated by three annotators per pool."""
    study = inline_study(owner, preset_load("caire-relevance"), name="caire", routing=Study.Routing.ALL_POOLS)
    pools = [f.make_pool(study, "IN", "India"), f.make_pool(study, "JP", "Japan")]
    items = [f.make_item(study, "IN", external_id=name) for name in NAMES]
    f.quotas_for_items(items=items)
    for pool in pools:
        for r, rater in enumerate(annotators(pool, 3)):
            for n, item in enumerate(items):
                annotate(rater, item, {"relevance": 1 + (n + r) % 5})
    return study, items


def test_the_json_result_names_items_by_their_external_ids(client, owner, caire):
    study, items = caire
    run = analyse(study, owner)
    login(client, owner)
    result = json.loads(client.get(reverse("analysis:analysis-result", args=[study.pk, run.pk])).content)
    assert result["item_ids"] == "external_id"
    (report,) = [r for r in result["reports"] if r["kind"] == "human_scores"]
    assert {row[0] for row in report["result"]["rows"]} == set(NAMES)
    assert not any(isinstance(row[0], int) for row in report["result"]["rows"])


def test_the_report_table_on_the_page_shows_external_ids(client, owner, caire):
    study, items = caire
    analyse(study, owner)
    html = login(client, owner).get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    table = html[html.index("Human score per (item, country): the mean"):]
    table = table[:table.index("</table>")]
    for item in items:
        assert f"<td>{item.external_id}</td>" in table and f"<td>{item.pk}</td>" not in table
    assert "older than item ids" not in html


def test_a_run_stored_before_item_ids_says_so(client, owner, caire):
    study, _ = caire
    run = analyse(study, owner)
    summary = {k: v for k, v in run.summary.items() if k != "item_ids"}
    AnalysisRun.objects.filter(pk=run.pk).update(summary=summary)
    html = login(client, owner).get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "older than item ids" in html and "Run the analysis again" in html


# --- metric upload ----------------------------------------------------------------------------


def metric_file(items, metric="clip") -> str:
    rows = [f"{item.external_id},{country},{metric},{n / 10 + (country == 'JP') / 20}"
            for n, item in enumerate(items) for country in ("IN", "JP")]
    return "\n".join(["item,country,metric,score", *rows]) + "\n"


def test_a_metric_file_is_matched_by_external_ids_and_a_key_is_not_an_id(owner, caire):
    study, items = caire
    text = metric_file(items) + f"{items[0].pk},IN,clip,0.9\n"
    upload = metric_upload_create(study=study, user=owner, name="m.csv", data=text.encode())
    assert upload.rows == 6 and upload.summary["unknown_item_examples"] == [str(items[0].pk)]
    result = metric_result(study=study, max_id=10**9)
    (clip,) = result["metrics"]
    assert clip["n"] == 6 and clip["human_only"] == 0 and clip["metric_only"] == 0


def test_a_metric_result_names_the_item_it_cannot_analyse_by_its_external_id(owner, study, pool, other_pool):
    items = [f.make_item(study, "IN", external_id=name) for name in NAMES]
    f.quotas_for_items(items=items)
    for rater in annotators(pool, 2):
        for n, item in enumerate(items):
            annotate(rater, item, overall=1 + n, alignment=1)
    metric_upload_create(study=study, user=owner, name="m.csv", data=metric_file(items).encode())
    (clip,) = metric_result(study=study, max_id=10**9)["metrics"]
    assert clip["reason"].startswith("item img-0042 has ") and "scores (one per country?)" in clip["reason"]


def test_an_upload_stored_with_item_keys_is_still_read(owner, caire):
    study, items = caire
    upload = metric_upload_create(study=study, user=owner, name="m.csv", data=metric_file(items).encode())
    expected = metric_result(study=study, max_id=10**9)["metrics"]
    old = "item,country,metric,score\n" + "".join(  # the stored file as uploads before external ids wrote it
        f"{item.pk},{country},clip,{n / 10 + (country == 'JP') / 20}\n"
        for n, item in enumerate(items) for country in ("IN", "JP")
    )
    upload.scores_file.save("scores.csv", ContentFile(old.encode()))
    assert MetricUpload.objects.get(pk=upload.pk).scores_file.name != ""
    assert metric_result(study=study, max_id=10**9)["metrics"] == expected


# --- the quality check and the export ---------------------------------------------------------


def test_the_review_page_names_the_item_by_its_external_id(client, owner, study, pool):
    item = f.make_item(study, "IN", external_id="img-0042")
    f.quotas_for_items(items=[item])
    annotate(annotators(pool, 1)[0], item)
    page = login(client, owner).get(review_url(study, pool)).content.decode()
    assert "<code>img-0042</code>" in page and f"<code>{item.pk}</code>" not in page


def test_the_export_csv_names_items_by_their_external_ids(owner, study, pool):
    items = [f.make_item(study, "IN", external_id=name) for name in NAMES]
    f.quotas_for_items(items=items)
    for item in items:
        annotate(annotators(pool, 1)[0], item)
    analyse(study, owner)
    job = export_build(job_id=export_start(study=study, user=owner).pk)
    with default_storage.open(job.file.name, "rb") as fh:
        rows = list(csv.DictReader(io.StringIO(fh.read().decode("utf-8"))))
    assert sorted(row["item_id"] for row in rows) == sorted(NAMES)

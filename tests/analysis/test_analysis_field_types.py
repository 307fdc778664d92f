"""The analysis of the newer field types: pick-one, questions per document (units are (item,
document) pairs), the combined score, skips; and the analysis page that shows them."""

import json

import krippendorff
import numpy as np
import pytest
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from studies.protocol import UploadRef
from tests import factories as f
from tests.annotations import add_documents, annotate, annotators, inline_study, submitted
from tests.specs import CANDIDATES, CAPTION_CHOICE, GLOBALRG, RAVENEA_DOCS, ravenea_form

Y, N, C = "yes", "no", "cannot_determine"
# Per pool, per item, per document: the (country, topic, visual) answers of raters 0, 1, 2.
ANSWERS = {
    "ID": [
        [[(Y, Y, Y), (Y, Y, N), (Y, Y, Y)], [(N, N, N), (N, N, N), (C, N, N)]],
        [[(C, Y, N), (C, Y, N), (Y, Y, N)], [(Y, N, Y), (Y, N, Y), (Y, N, Y)]],
    ],
    "VN": [
        [[(N, Y, Y), (Y, Y, Y), (N, N, Y)], [(Y, Y, Y), (Y, Y, Y), (Y, Y, N)]],
    ],
}
CAPTION = {"ID": [[Y, Y, N], [N, N, N]], "VN": [[Y, Y, Y]]}
SUBS = ("country", "topic", "visual")


@pytest.fixture
def ravenea(owner):
    study = inline_study(owner, RAVENEA_DOCS, name="RAVENEA")
    docs = {}
    for country, name in (("ID", "Indonesia"), ("VN", "Vietnam")):
        pool = f.make_pool(study, country, name)
        raters = annotators(pool, 3)
        items = f.make_items(study, country, len(ANSWERS[country]))
        for i, (item, per_item) in enumerate(zip(items, ANSWERS[country], strict=True)):
            docs[item.pk] = add_documents(item, 2)
            for r, rater in enumerate(raters):
                form = ravenea_form([per_item[d][r] for d in range(2)], caption_ok=CAPTION[country][i][r])
                annotate(rater, item, submitted(item, form, documents=docs[item.pk]))
        if country == "ID":
            skipper = annotators(pool, 1)[0]
            annotate(skipper, items[0], submitted(items[0], {"_skip": "The image does not load"}))
    return study, docs


def run_now(study, owner):
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return run


def expected_alpha(sub: str, pools) -> float:
    """Independently: a raters × units matrix with one column per (pool, item, document)."""
    index = SUBS.index(sub)
    domain = {Y: 0, N: 1, C: 2}
    columns = [
        (p, [domain[answers[index]] for answers in per_doc])
        for p, country in enumerate(pools)
        for per_item in ANSWERS[country]
        for per_doc in per_item
    ]
    data = np.full((3 * len(pools), len(columns)), np.nan)
    for col, (p, values) in enumerate(columns):
        data[3 * p : 3 * p + 3, col] = values
    return krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")


def test_it_computes_alpha_per_question_asked_per_document(ravenea, owner):
    run = run_now(ravenea[0], owner)
    (docs,) = run.result["documents"]
    assert docs["key"] == "docs" and docs["unit"] == "(item, document) within pool"
    assert docs["units"] == 6 and docs["rows"] == 18
    subs = {s["key"]: s for s in docs["fields"]}
    assert list(subs) == list(SUBS)  # the text sub-field has no level
    for key in SUBS:
        assert subs[key]["level"] == "nominal"
        assert subs[key]["overall"]["alpha"] == pytest.approx(expected_alpha(key, ["ID", "VN"]), abs=1e-9)
        pools = {p["country"]: p for p in subs[key]["pools"]}
        assert pools["ID"]["alpha"] == pytest.approx(expected_alpha(key, ["ID"]), abs=1e-9)
        assert pools["ID"]["n_units"] == 4 and pools["ID"]["n_ratings"] == 12
        assert pools["VN"]["alpha"] == pytest.approx(expected_alpha(key, ["VN"]), abs=1e-9)
        assert pools["VN"]["n_units"] == 2 and pools["VN"]["n_ratings"] == 6


def test_it_gives_the_mean_combined_score_per_item_and_document(ravenea, owner):
    study, docs = ravenea
    run = run_now(study, owner)
    score = run.result["documents"][0]["score"]
    assert score["fields"] == list(SUBS) and score["mapping"] == [["yes", 1], ["no", -1], ["cannot_determine", 0]]
    assert score["columns"] == ["item_id", "document_id", "document_position", "mean", "annotators"]
    assert score["pairs"] == 6
    first_item = study.items.filter(country="ID").order_by("pk").first()
    first_doc = docs[first_item.pk][0]
    row = next(r for r in score["rows"] if r[1] == first_doc.pk)
    # (Y, Y, Y) = 3, (Y, Y, N) = 1, (Y, Y, Y) = 3: the skip adds nothing.
    assert row == [first_item.external_id, first_doc.pk, 0, pytest.approx(7 / 3, abs=1e-4), 3]
    assert sum(b["pairs"] for b in score["histogram"]) == 6


def test_it_leaves_skips_out_of_every_field_and_counts_them(ravenea, owner):
    run = run_now(ravenea[0], owner)
    result = run.result
    assert result["annotations"] == 10 and result["n_skipped"] == 1
    assert {p["country"]: p["n_skipped"] for p in result["skipped_pools"]} == {"ID": 1, "VN": 0}
    caption = next(x for x in result["fields"] if x["key"] == "caption_ok")
    assert caption["overall"]["n_ratings"] == 9  # three items × three raters; the skip is not a rating
    assert result["documents"][0]["rows"] == 18


def test_it_codes_pick_one_by_the_candidate_chosen_not_the_order_shown(owner):
    study = inline_study(owner, CAPTION_CHOICE, name="Captions")
    pool = f.make_pool(study, "VN", "Vietnam")
    items = f.make_items(study, "VN", 3, candidates=CANDIDATES)
    raters = annotators(pool, 3)
    chosen = [["sys-a", "sys-a", "sys-b"], ["sys-c", "sys-c", "sys-c"], ["sys-b", "sys-a", "sys-b"]]
    for i, item in enumerate(items):
        for r, rater in enumerate(raters):
            shown = CANDIDATES[r:] + CANDIDATES[:r]  # every rater saw another order
            annotate(rater, item, submitted(item, {"best": chosen[i][r]}, candidates=shown))
    annotate(f.make_annotator(pool), items[0], submitted(items[0], {"_skip": "The image does not load"}))
    run = run_now(study, owner)
    (best,) = run.result["fields"]
    assert best["type"] == "pick_one" and best["level"] == "nominal"
    assert best["values"] == ["sys-a", "sys-b", "sys-c"]
    code = {"sys-a": 0, "sys-b": 1, "sys-c": 2}
    data = np.array([[code[chosen[i][r]] for i in range(3)] for r in range(3)], dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert best["overall"]["alpha"] == pytest.approx(expected, abs=1e-9)
    assert best["overall"]["n_ratings"] == 9 and run.result["n_skipped"] == 1


def test_it_analyses_a_study_with_uploads_and_boxes(owner):
    study = inline_study(owner, GLOBALRG, name="GlobalRG")
    pool = f.make_pool(study, "KE", "Kenya")
    items = f.make_items(study, "KE", 2)
    raters = annotators(pool, 2)
    upload = UploadRef("tok", 400, 300, "d" * 64, "photo.png")
    for item in items:
        for rater, prevalent in zip(raters, ("yes", "no"), strict=True):
            form = {"photo": "tok", "box": json.dumps([[10, 10, 50, 40]]), "prevalent": prevalent}
            annotate(rater, item, submitted(item, form, uploads=[upload]))
    run = run_now(study, owner)
    assert [x["key"] for x in run.result["fields"]] == ["prevalent"]
    assert run.result["documents"] == [] and run.result["n_skipped"] == 0


def test_the_page_shows_documents_scores_and_skips(client, ravenea, owner):
    study = ravenea[0]
    run = run_now(study, owner)
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "Per document: About each document" in html
    assert "A unit is an (item, document) pair as rated by the annotators of one pool: 6 units from 18 answers." in html
    country = run.result["documents"][0]["fields"][0]
    assert "Same country?" in html and f"{country['overall']['alpha']:.3f}" in html
    assert "1 annotation skipped the item, left out of every field: Indonesia 1, Vietnam 0." in html
    assert "<strong>Combined score</strong>" in html and "yes +1, no -1, cannot_determine 0" in html
    assert "All pairs: mean" in html


def test_the_page_shows_pick_one_as_the_candidate_chosen(client, owner):
    study = inline_study(owner, CAPTION_CHOICE, name="Captions")
    pool = f.make_pool(study, "VN", "Vietnam")
    item = f.make_items(study, "VN", 1, candidates=CANDIDATES)[0]
    for rater in annotators(pool, 2):
        annotate(rater, item, submitted(item, {"best": "sys-a"}))
    run_now(study, owner)
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "<code>best</code> · nominal · the candidate chosen" in html
    assert "skipped the item" not in html and "Per document" not in html


def test_the_report_and_the_per_document_section_give_the_same_scores_with_the_studys_own_mapping(owner):
    """One aggregation (``reports.score_table``) and the field's own ``score`` mapping for both."""
    spec = json.loads(json.dumps(RAVENEA_DOCS))
    spec["fields"][1]["score"] = {"yes": 2, "no": -1, "cannot_determine": 0.5}
    spec["reports"] = [{"kind": "document_scores", "documents": "docs"}]
    study = inline_study(owner, spec, name="RAVENEA, own mapping")
    pool = f.make_pool(study, "ID", "Indonesia")
    raters = annotators(pool, 3)
    for item, per_item in zip(f.make_items(study, "ID", 2), ANSWERS["ID"], strict=True):
        docs = add_documents(item, 2)
        for r, rater in enumerate(raters):
            annotate(rater, item, submitted(item, ravenea_form([per_item[d][r] for d in range(2)]), documents=docs))
    run = run_now(study, owner)
    section = run.result["documents"][0]["score"]
    (report,) = [r for r in run.result["reports"] if r["kind"] == "document_scores"]
    report = report["result"]
    assert section["mapping"] == report["mapping"]  # in the spec's order as stored (PostgreSQL's jsonb sorts keys)
    assert dict(report["mapping"]) == {"yes": 2, "no": -1, "cannot_determine": 0.5}
    assert [row[3] for row in section["rows"]] == [round(row[2], 4) for row in report["rows"]]
    assert section["histogram"] == report["histogram"] and section["mean"] == round(report["mean"], 4)
    # (Y, Y, Y) = 6, (Y, Y, N) = 3, (Y, Y, Y) = 6 under this mapping: a mean of 5.
    assert report["rows"][0][2] == pytest.approx(5)

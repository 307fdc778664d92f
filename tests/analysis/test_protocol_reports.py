"""The reports a protocol declares, computed from a study's annotations by ``protocol_reports``:
each kind's figures equal the pure function's on the same rows, a failing report is isolated, the
page shows them, and ``complete_only`` restricts them to prompts with every model's image."""

from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from analysis.fingerprint import data_fingerprint
from analysis.models import AnalysisRun
from analysis.reader import protocol_set
from analysis.reports import protocol_reports
from analysis.services import analysis_run
from stats.reports import (
    answer_agreement,
    box_agreement,
    caption_win_rates,
    complete_prompts,
    criteria_spearman,
    document_scores,
    error_type_shares,
    human_scores,
    prompt_filter_majority,
    word_frequency,
)
from stats.reports.kinds import AS_STORED
from stats.summary import page_summary
from studies.models import ItemQuota
from studies.protocol.reports import ReportKind, Role
from studies.services import preset_load
from tests import factories as f
from tests.annotations import add_documents, annotate, annotators, inline_study

SKIPPED = {"_skip": "The image does not load"}


def reports_of(study, **options) -> dict[str, dict]:
    fingerprint = data_fingerprint(study=study)
    pools = {p.pk: {"country": p.country, "country_name": p.country_name} for p in study.pools.all()}
    out = protocol_reports(
        study=study, protocols=protocol_set(study=study, max_id=fingerprint.max_id),
        max_id=fingerprint.max_id, pools=pools, **options,
    )
    by_kind = {entry["kind"]: entry for entry in out}
    assert len(by_kind) == len(out)
    return by_kind


def result(entry) -> dict:
    assert "error" not in entry, entry.get("error")
    return entry["result"]


def preset_study(owner, name, countries=(("IN", "India"), ("JP", "Japan"))):
    study = inline_study(owner, preset_load(name), name=name)
    return study, [f.make_pool(study, code, label) for code, label in countries]


# --- each kind --------------------------------------------------------------------------------


def test_human_scores_are_the_mean_per_item_and_country(owner):
    study, (india, japan) = preset_study(owner, "caire-relevance")
    items = f.make_items(study, "IN", 2)
    rows = []
    for pool, values in ((india, [[5, 4, 2], [1, 2, 2]]), (japan, [[3, 3, 4], [5, 5, 1]])):
        for r, rater in enumerate(annotators(pool, 3)):
            for item, per_item in zip(items, values, strict=True):
                annotate(rater, item, {"relevance": per_item[r]})
                rows.append((item.external_id, pool.country, per_item[r]))
    annotate(annotators(india, 1)[0], items[0], SKIPPED)
    (entry,) = reports_of(study).values()
    assert entry["kind"] == "human_scores" and entry["fields"] == {"value": "relevance"}
    assert result(entry) == human_scores(rows).as_dict()
    assert result(entry)["rows"][0] == [items[0].external_id, "IN", pytest.approx(11 / 3), 3, pytest.approx(1.5275252)]


def test_the_prompt_filter_counts_votes_against_the_quotas(owner):
    study, (india, japan) = preset_study(owner, "culturalframes-prompt-filter")
    items = f.make_items(study, "IN", 3) + f.make_items(study, "JP", 1)
    votes = {items[0]: ["yes", "yes"], items[1]: ["no", "no", "yes"], items[2]: ["yes"], items[3]: ["no"]}
    rows = []
    for item, cast in votes.items():
        pool = india if item.country == "IN" else japan
        for vote, rater in zip(cast, annotators(pool, len(cast)), strict=True):
            annotate(rater, item, {"fits_culture": vote})
            rows.append((item.external_id, pool.country, vote))
    wanted = {(q.item.external_id, q.pool.country): q.wanted for q in ItemQuota.objects.filter(item__study=study)}
    (entry,) = reports_of(study).values()
    expected = prompt_filter_majority(rows, min_yes=2, wanted=wanted).as_dict()
    assert result(entry) == expected
    assert expected["totals"] == {"kept": 1, "dropped": 1, "pending": 2}


def rating(alignment, quality, overall, errors=(), words=()) -> dict:
    """A rating as the form posts it; a perfect alignment asks no error type and no words."""
    extra = {"error_types": list(errors), "words": list(words)} if errors else {
        "error_types": [], "words": [], "explanation": ""}
    return {"alignment": alignment, "quality": quality, "overall": overall, "stereotype": "no", **extra}


@pytest.fixture
def rated(study, pool, other_pool):
    """The CulturalFrames rating study: answers given through the protocol engine."""
    items = f.make_items(study, "IN", 3) + f.make_items(study, "JP", 2)
    plan = [
        (pool, items[0], [rating(0.5, 1, 3, ["explicit"], ["1", "2"]),
                          rating(0, 0.5, 1, ["explicit", "implicit"], ["2"]), rating(1, 1, 5)]),
        (pool, items[1], [rating(0, 0, 2, ["implicit"], ["0"]), rating(1, 0.5, 4)]),
        (pool, items[2], [rating(1, 1, 5), rating(0.5, 1, 3, ["explicit"], ["1"])]),
        (other_pool, items[3], [rating(0.5, 0.5, 2, ["implicit"], ["3"]), rating(1, 1, 4),
                                rating(0, 0, 1, ["explicit"], ["1", "3"])]),
    ]
    raters = {pool.pk: annotators(pool, 3), other_pool.pk: annotators(other_pool, 3)}
    stored = []
    for p, item, answers in plan:
        for rater, form in zip(raters[p.pk], answers):
            stored.append((item.external_id, p.country, annotate(rater, item, **form).answers))
    annotate(annotators(pool, 1)[0], items[0], SKIPPED)
    return study, items, stored


def test_the_rating_reports_equal_the_pure_functions(rated):
    study, _, stored = rated
    reports = reports_of(study)
    assert list(reports) == ["error_types", "highlighted_words", "criteria_spearman", "human_scores"]
    assert result(reports["error_types"]) == error_type_shares(
        [(i, c, a["alignment"], a.get("error_types")) for i, c, a in stored]).as_dict()
    assert result(reports["highlighted_words"]) == word_frequency(
        [(i, c, a.get("words")) for i, c, a in stored]).as_dict()
    assert result(reports["criteria_spearman"]) == criteria_spearman(
        [(i, c, a["alignment"], a["quality"], a["overall"]) for i, c, a in stored]).as_dict()
    assert result(reports["human_scores"]) == human_scores([(i, c, a["overall"]) for i, c, a in stored]).as_dict()
    errors = result(reports["error_types"])["overall"]
    assert errors["ratings"] == 10 and errors["sub_perfect"] == 6
    assert errors["counts"] == {"explicit_only": 3, "implicit_only": 2, "both": 1, "unspecified": 0}
    assert result(reports["highlighted_words"])["overall"]["annotations"] == 6


def test_document_scores_per_item_and_document(owner):
    study, (india, _) = preset_study(owner, "ravenea-doc-relevance")
    items = f.make_items(study, "IN", 2)
    rows, fields = [], preset_fields("ravenea-doc-relevance")
    plan = [("yes", "yes", "yes"), ("no", "yes", "no"), ("cannot_determine", "no", "no")]
    for item in items:
        docs = add_documents(item, 2)
        for r, rater in enumerate(annotators(india, 3)):
            entries = [{"document": d.pk, **dict(zip(("country", "topic", "visual"), plan[(r + n) % 3], strict=True))}
                       for n, d in enumerate(docs)]
            annotate(rater, item, {"caption_correct": "yes", "documents": entries})
            rows.append((item.external_id, "IN", entries))
    (entry,) = reports_of(study).values()
    assert result(entry) == document_scores(rows, fields).as_dict()
    assert result(entry)["pairs"] == 4 and result(entry)["answers"] == 12


def preset_fields(name):
    from studies.protocol import parse_spec

    return parse_spec(preset_load(name)).field("documents").fields


def test_caption_win_rates_per_system(owner):
    study, (india, _japan) = preset_study(owner, "ravenea-caption-choice")
    candidates = [{"id": "a", "text": "Pho.", "system": "sys-a"}, {"id": "b", "text": "Soup.", "system": "sys-b"}]
    items = f.make_items(study, "IN", 2, candidates=candidates)
    rows = []
    for n, item in enumerate(items):
        for r, rater in enumerate(annotators(india, 3)):
            order = ["a", "b"] if r % 2 else ["b", "a"]
            answer = {"choice": "a" if (n + r) % 3 else "b", "order": order}
            annotate(rater, item, {"best_caption": answer})
            rows.append((item.external_id, "IN", answer))
    (entry,) = reports_of(study).values()
    expected = caption_win_rates(rows, candidates={i.external_id: candidates for i in items}).as_dict()
    assert result(entry) == expected
    assert [s["system"] for s in expected["overall"]["systems"]] == ["sys-a", "sys-b"]


def box(x, y, w, h):
    return [{"x": x * 100, "y": y * 100, "w": w * 100, "h": h * 100, "nx": x, "ny": y, "nw": w, "nh": h}]


def test_box_agreement_pairs_annotators_of_the_same_uploaded_image(owner):
    study, (india, _) = preset_study(owner, "globalrg-grounding")
    (item,) = f.make_items(study, "IN", 1)
    raters = annotators(india, 4)
    plan = [("img-1", box(0.1, 0.1, 0.2, 0.2)), ("img-1", box(0.15, 0.1, 0.2, 0.2)), ("img-1", box(0.5, 0.5, 0.1, 0.1)),
            ("img-2", box(0.1, 0.1, 0.2, 0.2))]
    rows = []
    for rater, (sha, b) in zip(raters, plan, strict=True):
        annotate(rater, item, {"photo": {"upload": sha, "sha256": sha, "width": 100, "height": 100, "name": "p.png"},
                               "box": b, "prevalent": "yes"})
        rows.append((sha, rater.pk, b))
    (entry,) = reports_of(study).values()
    assert entry["fields"] == {"box": "box", "image": "photo"}
    expected = box_agreement(rows).as_dict()
    assert result(entry) == expected
    assert expected["pairs"] == 3 and expected["images_paired"] == 1 and expected["at_threshold"] == 1


def test_answer_agreement_within_a_country(owner):
    study, (india, japan) = preset_study(owner, "culturalvqa-answer")
    items = f.make_items(study, "IN", 2) + f.make_items(study, "JP", 1)
    plan = {items[0]: ["The naan.", "naan", "roti"], items[1]: ["Diwali", "diwali"], items[2]: ["sushi"]}
    rows = []
    for item, answers in plan.items():
        pool = india if item.country == "IN" else japan
        for text, rater in zip(answers, annotators(pool, len(answers)), strict=True):
            annotate(rater, item, {"answer": text})
            rows.append((item.external_id, pool.country, text))
    (entry,) = reports_of(study).values()
    expected = answer_agreement(rows).as_dict()
    assert result(entry) == expected
    assert expected["overall"]["mean_agreement"] == pytest.approx((1 / 3 + 1) / 2)


# --- isolation, versions, restriction ---------------------------------------------------------


def test_a_failing_report_records_its_error_and_leaves_the_others(owner, report_kind):
    def broken(report):
        raise ValueError("a word nobody can count")

    report_kind(ReportKind("broken", "Never computed", (Role("words", ("text",)),)),
                reads={"words": AS_STORED}, compute=broken)
    protocol = {
        "fields": [{"key": "rating", "type": "scale", "label": "Rating", "choices": [1, 2, 3], "level": "ordinal"},
                   {"key": "note", "type": "text", "label": "Note"}],
        "reports": [{"kind": "human_scores", "value": "rating"}, {"kind": "broken", "words": "note"},
                    {"kind": "answer_agreement", "answer": "note"}],
    }
    study = inline_study(owner, protocol)
    pool = f.make_pool(study, "IN", "India")
    (item,) = f.make_items(study, "IN", 1)
    for n, rater in enumerate(annotators(pool, 2), start=1):
        annotate(rater, item, {"rating": n, "note": "naan"})
    reports = reports_of(study)
    assert list(reports) == ["human_scores", "broken", "answer_agreement"]
    assert reports["broken"]["error"] == "ValueError: a word nobody can count"
    assert "result" not in reports["broken"]
    assert result(reports["human_scores"])["ratings"] == 2
    assert result(reports["answer_agreement"])["overall"]["mean_agreement"] == 1


def test_bad_answers_fail_only_their_report(owner):
    study, (india, _) = preset_study(owner, "caire-relevance")
    (item,) = f.make_items(study, "IN", 1)
    a, b = annotators(india, 2)
    annotate(a, item, {"relevance": 4})
    annotate(b, item, {"relevance": {"not": "a number"}})
    (entry,) = reports_of(study).values()
    assert result(entry)["ratings"] == 1 and result(entry)["missing"] == 1


def test_a_study_without_reports_gets_none(owner):
    protocol = {"fields": [{"key": "x", "type": "scale", "label": "X", "choices": [1, 2], "level": "ordinal"}]}
    study = inline_study(owner, protocol)
    assert reports_of(study) == {}


def test_complete_only_keeps_prompts_with_an_image_from_every_model(study, pool):
    both = [f.make_item(study, "IN", prompt="A wedding", model_name=m) for m in ("model-a", "model-b")]
    lonely = f.make_item(study, "IN", prompt="A market", model_name="model-a")
    stored = []
    for item in (*both, lonely):
        for r, rater in enumerate(annotators(pool, 2)):
            a = annotate(rater, item, alignment=[0, 1][r], quality=1, overall=r + 2, stereotype="no")
            stored.append((item, "IN", a.answers))
    full = reports_of(study)
    restricted = reports_of(study, complete_only=True)
    assert "complete_prompts" not in full
    selection = complete_prompts([(i.pk, (i.country, i.prompt), i.model_name) for i in (*both, lonely)])
    assert result(restricted["complete_prompts"]) == selection.as_dict()
    assert selection.item_ids == {i.pk for i in both}
    keep = [(i.external_id, c, a["overall"]) for i, c, a in stored if i.pk in selection.item_ids]
    assert result(restricted["human_scores"]) == human_scores(keep).as_dict()
    assert result(full["human_scores"])["pairs"] == 3 and result(restricted["human_scores"])["pairs"] == 2
    assert result(restricted["error_types"])["overall"]["ratings"] == 4


# --- where it shows ---------------------------------------------------------------------------


def test_the_analysis_carries_the_reports_and_the_page_shows_them(client, owner, rated):
    study = rated[0]
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert [r["kind"] for r in run.result["reports"]] == ["error_types", "highlighted_words", "criteria_spearman",
                                                          "human_scores"]
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "What the protocol reports" in html
    for title in ("Sub-perfect alignment by error type", "Most highlighted words", "Spearman between criteria",
                  "Human score per (item, country)"):
        assert title in html
    words = run.result["reports"][1]["result"]["overall"]["top"]
    assert f"<td>{words[0][0]}</td>" in html


def test_long_tables_show_the_first_20_rows_with_a_note():
    rows = [[n, "IN", 3.0, 2, 0.5] for n in range(25)]
    report = {"kind": "human_scores", "title": "Human score", "fields": {"value": "relevance"},
              "result": {"pairs": 25, "ratings": 50, "missing": 0, "countries": [], "rows": rows}}
    failed = {"kind": "answer_agreement", "title": "Answers", "fields": {"answer": "answer"},
              "error": "ValueError: bad"}
    result = {"reports": [report, failed]}
    html = render_to_string("analysis/_reports.html", {"run": SimpleNamespace(status="done"), "result": result})
    assert "<td>19</td>" in html and "<td>20</td>" not in html
    assert "Showing the first 20 of 25 rows" in html
    # The page's summary of a long table keeps its first rows and its length.
    summary = page_summary(result, keep_whole=10)
    assert len(summary["reports"][0]["result"]["rows"]) == 20 and summary["reports"][0]["result"]["rows_total"] == 25
    html = render_to_string("analysis/_reports.html", {"run": SimpleNamespace(status="done"), "result": summary})
    assert "<td>19</td>" in html and "Showing the first 20 of 25 rows" in html
    assert "This report could not be computed: ValueError: bad" in html
    assert "relevance" in html


def test_the_researcher_restricts_a_run_to_complete_prompts_from_the_page(
    client, owner, study, pool, django_capture_on_commit_callbacks
):
    both = [f.make_item(study, "IN", prompt="A wedding", model_name=m) for m in ("model-a", "model-b")]
    lonely = f.make_item(study, "IN", prompt="A market", model_name="model-a")
    for item in (*both, lonely):
        for r, rater in enumerate(annotators(pool, 2)):
            annotate(rater, item, alignment=1, quality=1, overall=r + 2, stereotype="no")
    client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("analysis:analysis", args=[study.pk]), {"complete_only": "on"})
    run = AnalysisRun.objects.get()
    assert run.complete_only and run.status == AnalysisRun.Status.DONE and run.result["complete_only"] is True
    reports = {r["kind"]: r for r in run.result["reports"]}
    assert reports["human_scores"]["result"]["pairs"] == 2  # the market prompt has one model only: left out
    page = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert 'name="complete_only" checked' in page

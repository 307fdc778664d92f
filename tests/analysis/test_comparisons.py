"""Comparisons in the analysis: the models ranked per country from the pairwise and best–worst
answers, each image read as the model that made it, whatever side it was shown on."""

from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string

from analysis.comparisons import item_models
from studies.services import quotas_for_items, study_create_from_preset
from tests import factories as f
from tests.annotations import annotate, annotators, run_now

MODELS = ("sdxl", "flux", "dalle-3")


def study_of(owner, preset):
    study = study_create_from_preset(owner=owner, preset=preset, name=f"{preset} study", status="open")
    return study, f.make_pool(study, "IN", "India"), f.make_pool(study, "JP", "Japan")


def pair_answers(pool, study, country, prefer, n_raters=4):
    """Every pair of MODELS, rated by ``n_raters`` of ``pool``: ``prefer`` (best first) decides, the
    winner shown left and right in turn."""
    raters = annotators(pool, n_raters)
    for a, b in ((0, 1), (1, 2), (2, 0)):
        item = f.make_comparison_item(study, country, models=(MODELS[a], MODELS[b]))
        quotas_for_items(items=[item])
        winner = "1" if prefer.index(MODELS[a]) < prefer.index(MODELS[b]) else "2"
        for k, rater in enumerate(raters):
            order = ["1", "2"] if k % 2 else ["2", "1"]
            annotate(rater, item, answers={"fidelity": {"choice": winner, "order": order, "strength": 2}})


def test_each_country_gets_its_own_ranking_of_the_models(owner):
    study, india, japan = study_of(owner, "culturalframes-pairwise")
    pair_answers(india, study, "IN", prefer=("flux", "sdxl", "dalle-3"))
    pair_answers(japan, study, "JP", prefer=("sdxl", "flux", "dalle-3"))
    result = run_now(study, owner).result
    (fidelity,) = result["comparisons"]
    assert fidelity["design"] == "pairs" and fidelity["left_out"] == 0
    ranks = {p["country"]: {m: t["rank"] for m, t in p["things"].items()} for p in fidelity["pools"]}
    assert ranks == {"IN": {"flux": 1, "sdxl": 2, "dalle-3": 3}, "JP": {"sdxl": 1, "flux": 2, "dalle-3": 3}}
    assert fidelity["overall"]["things"]["dalle-3"]["rank"] == 3 and fidelity["overall"]["comparisons"] == 24
    assert fidelity["overall"]["position_bias"]["left_share"] == 0.5  # the winner shown on each side in turn
    scores = [t["score"] for t in fidelity["pools"][0]["things"].values()]
    assert sum(scores) == pytest.approx(0, abs=1e-9)
    assert any(f["key"] == "fidelity" for f in result["fields"])  # agreement on the choice: the field's alpha


def test_a_tie_and_both_fail_count_as_half_a_win_each_way(owner):
    study, india, _ = study_of(owner, "culturalframes-pairwise")
    item = f.make_comparison_item(study, "IN", models=("sdxl", "flux"))
    for rater, choice in zip(annotators(india, 2), ("tie", "both_fail"), strict=True):
        annotate(rater, item, answers={"fidelity": {"choice": choice, "order": ["1", "2"]}})
    (fidelity,) = run_now(study, owner).result["comparisons"]
    india_fit = fidelity["pools"][0]
    assert india_fit["things"]["sdxl"]["ties"] == 2 and india_fit["things"]["sdxl"]["score"] == pytest.approx(0)


def test_an_answer_whose_images_are_one_model_is_left_out_and_counted(owner):
    study, india, _ = study_of(owner, "culturalframes-pairwise")
    same = f.make_comparison_item(study, "IN", models=("sdxl", "sdxl"))
    other = f.make_comparison_item(study, "IN", models=("sdxl", "flux"))
    raters = annotators(india, 2)
    for rater in raters:
        annotate(rater, same, answers={"fidelity": {"choice": "1", "order": ["1", "2"]}})
        annotate(rater, other, answers={"fidelity": {"choice": "2", "order": ["2", "1"]}})
    (fidelity,) = run_now(study, owner).result["comparisons"]
    assert fidelity["left_out"] == 2
    assert fidelity["pools"][0]["things"]["flux"]["wins"] == 2


def test_a_pool_with_too_few_answers_says_so(owner):
    study, india, japan = study_of(owner, "culturalframes-pairwise")
    pair_answers(india, study, "IN", prefer=MODELS)
    (fidelity,) = run_now(study, owner).result["comparisons"]
    japan_fit = next(p for p in fidelity["pools"] if p["country"] == "JP")
    assert japan_fit["answers"] == 0 and "too few" in japan_fit["error"]


def test_best_worst_scores_the_models_by_counting_and_by_the_implied_pairs(owner):
    study, india, _ = study_of(owner, "culturalframes-best-worst")
    models = ("sdxl", "flux", "dalle-3", "kandinsky")
    for n, rater in enumerate(annotators(india, 6)):
        item = f.make_comparison_item(study, "IN", models=models)
        order = [str(i) for i in (1, 2, 3, 4)[n % 4:] + (1, 2, 3, 4)[:n % 4]]
        annotate(rater, item, answers={"fidelity": {"best": "2", "worst": "3", "order": order}})
    (fidelity,) = run_now(study, owner).result["comparisons"]
    things = fidelity["pools"][0]["things"]
    assert fidelity["design"] == "best_worst"
    assert things["flux"]["rank"] == 1 and things["flux"]["count_score"] == 1.0
    assert things["dalle-3"]["count_score"] == -1.0 and things["dalle-3"]["rank"] == 4
    html = render_to_string("analysis/_comparisons.html", {"run": SimpleNamespace(status="done"),
                                                            "result": {"comparisons": [fidelity]}})
    assert "Best–worst counting score" in html and "flux 1.00" in html and "win-matrix" not in html
    assert "Screen position of the best choice: place 1" in html and "chi-square p =" in html


def test_a_study_without_comparison_questions_has_none(owner, study, pool):
    annotate(f.make_annotator(pool), f.make_item(study, "IN"))
    assert run_now(study, owner).result["comparisons"] == []


def test_item_models_names_an_image_without_a_model_by_its_number(owner):
    study, _, _ = study_of(owner, "culturalframes-pairwise")
    item = f.make_comparison_item(study, "IN", models=("sdxl", ""))
    assert item_models(study=study)[item.pk] == {"1": "sdxl", "2": "image 2"}


def test_the_page_shows_the_ranking_per_country_as_a_plot_and_a_table(owner):
    study, india, japan = study_of(owner, "culturalframes-pairwise")
    pair_answers(india, study, "IN", prefer=("flux", "sdxl", "dalle-3"))
    result = run_now(study, owner).result
    html = render_to_string("analysis/_comparisons.html", {"run": SimpleNamespace(status="done"), "result": result})
    assert "Models compared, per country" in html and "<svg" in html
    ranking = html[:html.index("win-matrix")]
    assert ranking.count("<th scope=\"row\">") == 3 and "India" in html and "Japan" in html
    # the win-rate matrix, models in rank order: flux beat sdxl in every one of its 4 comparisons
    matrix = html[html.index("win-matrix"):]
    assert matrix.index("over flux") < matrix.index("over sdxl") < matrix.index("over dalle-3")
    flux_row = matrix[matrix.index('<th scope="row">flux</th>'):].split("</tr>")[0]
    assert 'aria-label="not compared"' in flux_row and "100% <span class=\"muted\">(4)</span>" in flux_row
    assert "Win rates in each country" in html  # Japan has no answers: its matrix is left out
    empty = render_to_string("analysis/_comparisons.html", {"run": SimpleNamespace(status="done"),
                                                             "result": {"comparisons": []}})
    assert "hidden" in empty and "<h2" not in empty

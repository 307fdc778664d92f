"""Alpha broken down by item attribute (model, category), beside overall and per pool."""

import krippendorff
import numpy as np
import pytest

from analysis.services import analysis_run, analysis_start
from tests import factories as f
from tests.annotations import annotate, answers_for

SCORES = {  # (model, item n) → the overall scores of three raters
    ("model-a", 0): (1, 1, 2), ("model-a", 1): (4, 4, 4), ("model-a", 2): (2, 3, 2),
    ("model-b", 0): (5, 1, 3), ("model-b", 1): (2, 5, 4), ("model-b", 2): (3, 3, 1),
}


@pytest.fixture
def rated(study, pool, owner):
    raters = [f.make_annotator(pool) for _ in range(3)]
    for (model, n), scores in SCORES.items():
        (item,) = f.make_items(study, "IN", 1, model_name=model, category="food" if n else "dress")
        for rater, score in zip(raters, scores):
            annotate(rater, item, answers_for(item, overall=str(score), alignment="1"))
    return analysis_run(run_id=analysis_start(study=study, user=owner, queue=False).pk)


def expected_alpha(model):
    data = np.array([SCORES[(model, n)] for n in range(3)], dtype=float).T  # raters × units
    return krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])


def test_alpha_is_given_per_model_and_matches_an_independent_computation(rated):
    overall = next(x for x in rated.result["fields"] if x["key"] == "overall")
    by_model = {row["value"]: row for row in overall["by"]["model"]}
    assert set(by_model) == {"model-a", "model-b"}
    for model in by_model:
        assert by_model[model]["alpha"] == pytest.approx(expected_alpha(model), abs=1e-9)
        assert by_model[model]["n_units"] == 3
    assert rated.result["attributes"] == {"model": ["model-a", "model-b"], "category": ["dress", "food"]}


def test_an_attribute_with_one_value_is_not_broken_down(study, pool, owner):
    raters = [f.make_annotator(pool) for _ in range(2)]
    for item in f.make_items(study, "IN", 2, model_name="only-model", category="food"):
        for rater in raters:
            annotate(rater, item, answers_for(item))
    run = analysis_run(run_id=analysis_start(study=study, user=owner, queue=False).pk)
    assert run.result["attributes"] == {}
    assert all(x["by"] == {} for x in run.result["fields"])


def test_the_page_shows_alpha_by_model(client, owner, rated):
    from django.urls import reverse

    client.force_login(owner)
    page = client.get(reverse("analysis:analysis", args=[rated.study_id])).content.decode()
    assert "By model" in page and "model-b" in page and "By category" in page


def test_the_page_shows_the_bootstrap_interval(client, owner, rated):
    from django.urls import reverse

    overall = next(x for x in rated.result["fields"] if x["key"] == "overall")["overall"]
    assert overall["ci_low"] <= overall["alpha"] <= overall["ci_high"] and overall["n_resamples"] == 1000
    client.force_login(owner)
    page = client.get(reverse("analysis:analysis", args=[rated.study_id])).content.decode()
    assert f"[{overall['ci_low']:.3f}, {overall['ci_high']:.3f}]" in page

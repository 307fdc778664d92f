"""The dataset card's agreement: alpha, Gwet's AC and ICC(1) per field and country, thin figures
marked, and the differences between countries that hold after Holm's correction, from a real run."""

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.formats.card import agreement_text
from exports.sources import _agreement
from tests.annotations import two_countries_study


def test_the_card_states_the_coefficients_and_the_differences_that_hold(owner):
    two_countries = two_countries_study(owner)
    run = analysis_run(run_id=AnalysisRun.objects.create(study=two_countries, requested_by=owner, resamples=300).pk)
    sheet = _agreement(run.result)
    score = next(a for a in sheet if a["key"] == "score")
    assert score["ac_name"] == "ac2" and score["icc1"] is not None
    (alpha_held,) = [d for d in score["differences"] if d["statistic"] == "alpha"]
    assert (alpha_held["a"], alpha_held["b"]) == ("IN", "KE") and alpha_held["p_holm"] < 0.05
    text = "\n".join(agreement_text(sheet))
    assert "| Field | Level | Alpha | Gwet | ICC(1) | Units | Per country (alpha / Gwet) |" in text
    assert "IN: " in text and " †" in text  # six items per country: thin
    assert "### Differences between countries" in text
    assert f"| `score` | alpha | IN − KE | {alpha_held['difference']:.3f} [" in text


def test_with_no_difference_that_holds_the_card_says_so():
    sheet = [{"key": "q", "label": "Q", "level": "nominal", "ac_name": "ac1", "alpha": 0.5, "ac": 0.6, "icc1": None,
              "n_units": 40, "thin": "", "countries": [], "differences": []}]
    text = "\n".join(agreement_text(sheet))
    assert "None: no difference between countries this data can tell from chance." in text
    assert "| Q (`q`) | nominal | 0.500 | AC1 0.600 | – | 40 | – |" in text

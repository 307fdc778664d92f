"""Gwet's AC1/AC2, ICC(1) and the differences between countries in a study's analysis: in its JSON
result (the API's result too), on the analysis page as a country × country matrix, and in the
summary the command prints; each checked against the pure functions on the same counts."""

import json

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from stats.agreement import gwet, icc_oneway
from tests.annotations import TWO_COUNTRIES, run_now, two_countries_study


@pytest.fixture
def two_countries(owner):
    return two_countries_study(owner)


def counts(country, index, domain):
    return np.array([[sum(a[index] == v for a in item) for v in domain] for item in TWO_COUNTRIES[country]])


def test_the_result_carries_gwet_icc_and_the_differences_between_countries(two_countries, owner):
    fields = {x["key"]: x for x in run_now(two_countries, owner).result["fields"]}
    fits, score = fields["fits"], fields["score"]
    india = next(p for p in fits["pools"] if p["country"] == "IN")
    expected = gwet(counts("IN", 0, ["yes", "no"]), ["yes", "no"]).as_dict()
    assert india["ac"] == expected and india["ac"]["name"] == "ac1"
    assert "only 6 units" in india["thin"]  # six items: too few for a stable value

    kenya_score = next(p for p in score["pools"] if p["country"] == "KE")
    assert kenya_score["ac"]["name"] == "ac2" and kenya_score["ac"]["weights"] == "quadratic"
    assert kenya_score["icc"] == icc_oneway(counts("KE", 1, [1, 2, 3, 4, 5]), [1, 2, 3, 4, 5]).as_dict()
    assert "icc" not in fits["overall"]  # nominal: no intraclass correlation

    (alpha_pair, mean_pair) = score["differences"]["pairs"]
    assert (alpha_pair["statistic"], mean_pair["statistic"]) == ("alpha", "mean")
    assert alpha_pair["value_a"] == pytest.approx(next(p["alpha"] for p in score["pools"] if p["country"] == "IN"))
    assert alpha_pair["difference"] > 0.5  # India agrees, Kenya does not
    assert score["differences"]["vs_rest"] == []  # two pools: the pair says it all
    assert [r["statistic"] for r in fits["differences"]["pairs"]] == ["alpha"]  # nominal: no mean


def test_the_page_shows_the_coefficients_and_the_country_matrix(client, owner, two_countries):
    run_now(two_countries, owner)
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[two_countries.pk])).content.decode()
    assert "Gwet's AC1 [95% CI]" in html and "Gwet's AC2 (quadratic weights) [95% CI]" in html
    assert "ICC(1) [95% CI]" in html
    assert "Thin data: only 6 units rated twice or more" in html
    assert "Differences in Krippendorff&#x27;s alpha between countries: the row's country minus the column's" in html
    assert "Differences in the mean rating between countries" in html
    assert "no difference this data can tell from chance" in html
    assert 'aria-label="the same country"' in html


def test_the_api_result_and_the_command_carry_them_too(client, owner, two_countries, capsys):
    run = analysis_run(run_id=AnalysisRun.objects.create(study=two_countries, requested_by=owner, resamples=200).pk)
    client.force_login(owner)
    body = client.get(f"/api/v1/studies/{two_countries.pk}/analyses/{run.pk}/result/").json()
    score = next(x for x in body["fields"] if x["key"] == "score")
    assert set(score["overall"]["icc"]) >= {"icc1", "icc1k", "icc2", "icc3", "forms"}
    assert score["differences"]["pairs"][0]["p_holm"] is not None  # permutations_for(2, 200) permutations
    call_command("analyse", two_countries.pk)
    out = capsys.readouterr().out
    assert "score (interval): alpha" in out and "AC2" in out and "ICC(1)" in out
    call_command("analyse", two_countries.pk, "--json")
    assert json.loads(capsys.readouterr().out)["fields"][0]["overall"]["ac"]["name"] == "ac1"

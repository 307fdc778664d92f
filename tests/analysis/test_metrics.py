"""Metric scores: the upload on the analysis page, and their correlation in the analysis result."""

from collections import defaultdict

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from scipy import stats

from analysis.metrics import metric_result
from analysis.models import AnalysisRun, MetricUpload
from analysis.services import analysis_run, analysis_start
from studies.models import Study
from studies.services import preset_load
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study, submitted


def upload_url(study):
    return reverse("analysis:metrics-upload", args=[study.pk])


def page(study):
    return reverse("analysis:analysis", args=[study.pk])


def csv_file(text, name="metrics.csv"):
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def analyse(study, owner):
    run = analysis_start(study=study, user=owner, queue=False)
    run = analysis_run(run_id=run.pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return run


# --- CulturalFrames: one unit per item --------------------------------------------------------

OVERALL = [  # item × rater: the overall rating (1–5)
    [1, 2, 1],
    [2, 2, 3],
    [3, 4, 3],
    [4, 3, 5],
    [5, 5, 4],
    [2, 1, 2],
]
CLIP = [0.11, 0.32, 0.35, 0.61, 0.58, 0.20]
VQA = [0.9, 0.4, 0.5, 0.2, 0.3, 0.8]


@pytest.fixture
def cf_items(study, pool):
    return f.make_items(study, "IN", len(OVERALL))


@pytest.fixture
def rated(study, pool, cf_items):
    raters = annotators(pool, 3)
    for item, row in zip(cf_items, OVERALL):
        for rater, value in zip(raters, row):
            annotate(rater, item, overall=value, alignment=1)
    return study


def metric_csv(items, *extra):
    lines = ["item,country,metric,score"]
    lines += [f"{item.external_id},IN,clip,{score}" for item, score in zip(items, CLIP)]
    lines += [f"{item.external_id},,vqa,{score}" for item, score in zip(items, VQA)]
    return "\n".join([*lines, *extra]) + "\n"


def test_it_refuses_a_bad_file_with_its_line_errors_and_stores_nothing(client, owner, study, cf_items):
    client.force_login(owner)
    good = f"{cf_items[0].external_id},IN,clip,0.5"
    bad = [f"{cf_items[1].external_id},IN,clip,high"] + [f",IN,clip,{i}" for i in range(25)]
    response = client.post(upload_url(study), {"file": csv_file("\n".join(["item,country,metric,score", good, *bad]))})
    assert response.status_code == 400
    html = response.content.decode()
    assert "nothing was stored" in html
    assert "line 3: the score &#x27;high&#x27; is not a number" in html
    assert "line 4: the item id is empty" in html
    assert html.count("the item id is empty") == 19  # 20 shown in all
    assert "and 6 more problems" in html
    assert MetricUpload.objects.count() == 0


def test_it_refuses_a_file_of_another_studys_items(client, owner, study, cf_items):
    client.force_login(owner)
    response = client.post(
        upload_url(study), {"file": csv_file("item,metric,score\nnope-1,clip,0.5\nnope-2,clip,0.1\n")}
    )
    assert response.status_code == 400
    assert "none of the 2 item ids is an item of this study" in response.content.decode()
    assert MetricUpload.objects.count() == 0


def test_it_stores_a_good_file_and_says_what_was_left_out(client, owner, study, cf_items):
    client.force_login(owner)
    text = metric_csv(cf_items, "unknown-7,IN,clip,0.3", f"{cf_items[0].external_id},ZZ,other,0.3")
    response = client.post(upload_url(study), {"file": csv_file(text, "my scores.csv")}, follow=True)
    assert response.redirect_chain == [(page(study), 302)]
    upload = MetricUpload.objects.get(study=study)
    assert upload.uploaded_by == owner and upload.original_name == "my scores.csv"
    assert upload.rows == 12 and upload.metrics == ["clip", "vqa"]
    assert upload.file.name.startswith(f"exports/{study.pk}/metrics/")
    assert upload.file.read().decode() == text
    html = response.content.decode()
    assert "12 scores" in html and "2 metrics (clip, vqa)" in html
    assert "1 line left out: item not in this study (e.g. unknown-7)" in html
    assert "1 line left out: country not one of this study's pools (e.g. ZZ)" in html


def test_it_refuses_a_file_over_20_mb(client, owner, study, cf_items, settings):
    client.force_login(owner)
    big = SimpleUploadedFile("big.csv", b"item,metric,score\n" + b"x" * (20 * 1024 * 1024), content_type="text/csv")
    response = client.post(upload_url(study), {"file": big})
    assert response.status_code == 400
    assert "larger than 20 MB" in response.content.decode()
    assert MetricUpload.objects.count() == 0


def test_another_researcher_gets_404(client, other_researcher, study, cf_items):
    client.force_login(other_researcher)
    response = client.post(upload_url(study), {"file": csv_file(metric_csv(cf_items))})
    assert response.status_code == 404
    assert MetricUpload.objects.count() == 0


def test_anonymous_is_sent_to_log_in(client, study, cf_items):
    response = client.post(upload_url(study), {"file": csv_file(metric_csv(cf_items))})
    assert response.status_code == 302 and "login" in response["Location"]
    assert MetricUpload.objects.count() == 0


def test_without_an_upload_the_result_is_none_and_the_page_shows_the_form(client, owner, rated):
    run = analyse(rated, owner)
    assert run.result["metrics"] is None
    client.force_login(owner)
    html = client.get(page(rated)).content.decode()
    assert f'action="{upload_url(rated)}"' in html and 'accept=".csv,text/csv"' in html
    assert "Latest upload" not in html and "Pearson r" not in html and "Human–human baseline" not in html
    assert "metric scores uploaded after this analysis" not in html


def test_the_correlations_are_scipys_beside_a_baseline(client, owner, rated, cf_items):
    client.force_login(owner)
    client.post(upload_url(rated), {"file": csv_file(metric_csv(cf_items))})
    run = analyse(rated, owner)
    m = run.result["metrics"]
    assert m["human_field"]["key"] == "overall"
    assert m["unit"] == "item" and m["settings"]["per_country"] is False
    assert m["upload"]["name"] == "metrics.csv" and m["upload"]["metrics"] == ["clip", "vqa"]
    human = np.array(OVERALL, dtype=float).mean(axis=1)
    for result, scores in zip(m["metrics"], (CLIP, VQA)):
        c = result["coefficients"]
        assert result["n"] == len(OVERALL)
        assert c["pearson"]["value"] == pytest.approx(stats.pearsonr(scores, human).statistic, abs=1e-12)
        assert c["spearman"]["value"] == pytest.approx(stats.spearmanr(scores, human).statistic, abs=1e-12)
        assert c["kendall"]["value"] == pytest.approx(stats.kendalltau(scores, human).statistic, abs=1e-12)
        for method in ("pearson", "spearman", "kendall"):
            assert c[method]["ci_low"] <= c[method]["value"] <= c[method]["ci_high"]
    # The baseline: each rater against the mean of the other two, summarised over the three raters.
    ratings = np.array(OVERALL, dtype=float)
    loo = [stats.pearsonr(ratings[:, r], np.delete(ratings, r, axis=1).mean(axis=1)).statistic for r in range(3)]
    baseline = m["baseline"]["summary"]["pearson"]
    assert baseline["n_raters"] == 3
    assert baseline["mean"] == pytest.approx(np.mean(loo), abs=1e-12)
    assert baseline["ci_low"] < baseline["mean"] < baseline["ci_high"]

    html = client.get(page(rated)).content.decode()
    clip = m["metrics"][0]["coefficients"]
    assert "Pearson r" in html and "Kendall" in html and "Human–human baseline" in html
    assert f"{clip['pearson']['value']:.3f}" in html and f"{clip['pearson']['ci_low']:.3f}" in html
    assert f"{baseline['mean']:.3f}" in html
    assert reverse("analysis:analysis-result", args=[rated.pk, run.pk]) in html  # the JSON, a link: not inline
    assert "metric scores uploaded after this analysis" not in html


def test_an_upload_after_the_analysis_asks_for_a_new_run(client, owner, rated, cf_items):
    client.force_login(owner)
    analyse(rated, owner)
    client.post(upload_url(rated), {"file": csv_file(metric_csv(cf_items))})
    html = client.get(page(rated)).content.decode()
    assert "metric scores uploaded after this analysis: run it again" in html
    run = analyse(rated, owner)
    assert run.result["metrics"]["upload"]["id"] == MetricUpload.objects.get().pk
    html = client.get(page(rated)).content.decode()
    assert "metric scores uploaded after this analysis" not in html


def test_the_latest_upload_is_the_one_analysed(owner, rated, cf_items):
    from analysis.metrics import metric_upload_create

    metric_upload_create(study=rated, user=owner, name="old.csv", data=metric_csv(cf_items).encode())
    newest = metric_upload_create(
        study=rated, user=owner, name="new.csv",
        data=("item,metric,score\n" + "".join(f"{i.external_id},bleu,{n}\n" for n, i in enumerate(cf_items))).encode(),
    )
    result = metric_result(study=rated, max_id=10**9)
    assert result["upload"]["id"] == newest.pk and [x["metric"] for x in result["metrics"]] == ["bleu"]
    assert MetricUpload.objects.filter(study=rated).count() == 2


# --- CAIRE: one unit per (image, country) -----------------------------------------------------

CAIRE_RATINGS = {  # country → image → that pool's raters' relevance
    "IN": [[5, 4], [4, 4], [2, 1], [1, 2], [3, 3]],
    "JP": [[1, 1], [2, 3], [4, 5], [5, 4], [3, 2]],
}
CAIRE_METRIC = {"IN": [0.9, 0.7, 0.3, 0.2, 0.6], "JP": [0.1, 0.4, 0.6, 0.9, 0.5]}


@pytest.fixture
def caire(owner):
    study = inline_study(owner, preset_load("caire-relevance"), name="CAIRE", routing=Study.Routing.ALL_POOLS)
    pools = {"IN": f.make_pool(study, "IN", "India"), "JP": f.make_pool(study, "JP", "Japan")}
    images = f.make_items(study, "IN", 5)
    for country, per_image in CAIRE_RATINGS.items():
        raters = annotators(pools[country], 2)
        for image, values in zip(images, per_image):
            for rater, value in zip(raters, values):
                annotate(rater, image, submitted(image, {"relevance": str(value)}))
    return study, images


def test_caire_is_correlated_per_image_and_country(client, owner, caire):
    study, images = caire
    lines = ["image_id,country,metric,score"] + [
        f"{image.external_id},{country.lower()},culturalclip,{score}"
        for country, scores in CAIRE_METRIC.items()
        for image, score in zip(images, scores)
    ]
    client.force_login(owner)
    response = client.post(upload_url(study), {"file": csv_file("\n".join(lines))})
    assert response.status_code == 302
    run = analyse(study, owner)
    m = run.result["metrics"]
    assert m["human_field"]["key"] == "relevance"
    assert m["unit"] == "(item, country)" and m["settings"]["per_country"] is True
    (clip,) = m["metrics"]
    human, metric = [], []
    by_country = defaultdict(lambda: ([], []))
    for country, per_image in CAIRE_RATINGS.items():
        for values, score in zip(per_image, CAIRE_METRIC[country]):
            human.append(np.mean(values))
            metric.append(score)
            by_country[country][0].append(score)
            by_country[country][1].append(np.mean(values))
    assert clip["n"] == 10
    assert clip["coefficients"]["pearson"]["value"] == pytest.approx(stats.pearsonr(metric, human).statistic, abs=1e-12)
    assert clip["coefficients"]["kendall"]["value"] == pytest.approx(
        stats.kendalltau(metric, human).statistic, abs=1e-12
    )
    countries = {c["country"]: c for c in clip["countries"]}
    assert set(countries) == {"IN", "JP"}
    for country, (x, y) in by_country.items():
        got = countries[country]["coefficients"]["spearman"]["value"]
        assert got == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert {b["country"] for b in m["baseline"]["countries"]} == {"IN", "JP"}

    html = client.get(page(study)).content.decode()
    assert "Per country" in html and "Human–human baseline, IN" in html


def test_each_metric_is_plotted_over_the_human_baseline(client, owner, rated, cf_items, caire):
    client.force_login(owner)
    client.post(upload_url(rated), {"file": csv_file(metric_csv(cf_items))})
    m = analyse(rated, owner).result["metrics"]
    html = client.get(page(rated)).content.decode()
    for name in ("clip", "vqa"):
        assert f"<title>{name} against the human score</title>" in html
    clip = m["metrics"][0]["coefficients"]["pearson"]
    baseline = m["baseline"]["summary"]["pearson"]
    figures = f"{clip['value']:.3f}, 95% interval [{clip['ci_low']:.3f}, {clip['ci_high']:.3f}]".replace("-", "−")
    assert f"<title>Pearson r: {figures}" in html
    assert f"<title>Human–human baseline (mean over raters): {baseline['mean']:.3f}" in html
    # Per (item, country): a row per country under each coefficient, each over its own country's baseline.
    study, images = caire
    lines = ["image_id,country,metric,score"]
    lines += [f"{i.external_id},{c},culturalclip,{n % 5}" for c in ("IN", "JP") for n, i in enumerate(images)]
    client.post(upload_url(study), {"file": csv_file("\n".join(lines))})
    analyse(study, owner)
    html = client.get(page(study)).content.decode()
    plot = html[html.index("<title>culturalclip against the human score</title>"):]
    plot = plot[:plot.index("</svg>")]
    assert plot.count(">All countries</text>") == 3 and plot.count(">IN</text>") == 3 and plot.count(">JP</text>") == 3


def test_the_scores_are_parsed_once_at_upload_and_read_back_by_the_analysis(owner, rated, cf_items):
    from analysis.metrics import metric_upload_create

    metric_upload_create(study=rated, user=owner, name="m.csv", data=metric_csv(cf_items).encode())
    upload = MetricUpload.objects.get(study=rated)
    assert upload.scores_file.name.startswith(f"exports/{rated.pk}/metrics/scores-")
    stored = upload.scores_file.read().decode().splitlines()
    assert stored[0] == "external_id,country,metric,score" and len(stored) == 1 + upload.rows
    assert stored[1].startswith(f"{cf_items[0].external_id},")

    before = metric_result(study=rated, max_id=10**9)
    with upload.file.open("wb") as fh:  # the upload as sent is no longer readable: only the parsed file is read
        fh.write(b"not,a metric file\n\"unclosed")
    after = metric_result(study=rated, max_id=10**9)
    assert after["metrics"] == before["metrics"] and len(after["metrics"]) == 2
    assert after["baseline"] == before["baseline"]


def test_a_metric_named_like_a_missing_value_survives_the_stored_file(owner, rated, cf_items):
    from analysis.metrics import metric_upload_create

    text = "item,metric,score\n" + "".join(f"{i.external_id},NA,{n / 10}\n" for n, i in enumerate(cf_items))
    metric_upload_create(study=rated, user=owner, name="na.csv", data=text.encode())
    result = metric_result(study=rated, max_id=10**9)
    assert [m["metric"] for m in result["metrics"]] == ["NA"] and result["metrics"][0]["n"] == len(cf_items)


def test_the_page_says_which_intervals_were_used(client, owner, rated, cf_items):
    client.force_login(owner)
    client.post(upload_url(rated), {"file": csv_file(metric_csv(cf_items))})
    run = analyse(rated, owner)
    assert {c["interval"] for m in run.result["metrics"]["metrics"] for c in m["coefficients"].values()} == {
        "fisher-z", "bootstrap"}  # a few units: Spearman and Kendall are bootstrapped
    html = client.get(page(rated)).content.decode()
    assert "a percentile bootstrap of 1000 resamples of the units (seed 0) up to 4096 units" in html
    assert "Fieller–Hartley–Pearson standard errors beyond" in html

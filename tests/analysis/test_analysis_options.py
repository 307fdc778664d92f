"""The options of a run: bootstrap resamples and seed (and complete prompts), from the page and the
shell; bad values are refused next to their field and start nothing."""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from analysis.models import MAX_RESAMPLES, MAX_SEED, AnalysisRun
from analysis.services import AnalysisRefused, analysis_run, analysis_start
from tests import factories as f
from tests.annotations import annotate, annotators


@pytest.fixture
def rated(study, pool, items):
    raters = annotators(pool, 3)
    for n, item in enumerate(items[:3]):
        for r, rater in enumerate(raters):
            annotate(rater, item, alignment=[0, 0.5, 1][(n + (r == 2)) % 3], overall=n + 1 + (r == 1))
    return study


def page(study):
    return reverse("analysis:analysis", args=[study.pk])


def post(client, study, django_capture_on_commit_callbacks, **data):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(page(study), data)


def test_the_page_runs_with_the_resamples_and_seed_given(client, owner, rated, django_capture_on_commit_callbacks):
    client.force_login(owner)
    response = post(client, rated, django_capture_on_commit_callbacks, resamples="200", seed="7")
    assert response.status_code == 302
    run = AnalysisRun.objects.get(study=rated)
    assert (run.resamples, run.seed, run.status) == (200, 7, AnalysisRun.Status.DONE)
    assert run.result["bootstrap"] == {"resamples": 200, "seed": 7, "confidence": 0.95}
    overall = next(f for f in run.result["fields"] if f["key"] == "overall")["overall"]
    assert overall["n_resamples"] == 200 and overall["ci_low"] is not None
    html = client.get(page(rated)).content.decode()
    assert 'name="resamples" id="id_resamples" value="200"' in html and 'value="7"' in html  # the next run starts alike


def test_the_same_seed_gives_the_same_interval_and_another_seed_another(owner, study, pool):
    raters = annotators(pool, 3)
    for n, item in enumerate(f.make_items(study, "IN", 15)):
        for r, rater in enumerate(raters):
            annotate(rater, item, overall=1 + (n * 7 + r * (n % 3)) % 5)

    def interval(seed):
        run = analysis_run(run_id=analysis_start(study=study, user=owner, queue=False, resamples=300, seed=seed).pk)
        overall = next(f for f in run.result["fields"] if f["key"] == "overall")["overall"]
        return overall["ci_low"], overall["ci_high"]

    assert interval(1) == interval(1) != interval(2)


def test_no_resamples_means_no_interval(owner, rated):
    run = analysis_run(run_id=analysis_start(study=rated, user=owner, queue=False, resamples=0).pk)
    overall = next(f for f in run.result["fields"] if f["key"] == "overall")["overall"]
    assert overall["alpha"] is not None and overall["ci_low"] is None and overall["ci_high"] is None


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"resamples": str(MAX_RESAMPLES + 1), "seed": "0"}, "resamples", f"less than or equal to {MAX_RESAMPLES}"),
    ({"resamples": "-1", "seed": "0"}, "resamples", "greater than or equal to 0"),
    ({"resamples": "many", "seed": "0"}, "resamples", "Enter a whole number"),
    ({"resamples": "1000", "seed": "-3"}, "seed", "greater than or equal to 0"),
    ({"resamples": "1000", "seed": "9" * 30}, "seed", f"less than or equal to {MAX_SEED}"),
])
def test_it_refuses_bad_options_next_to_the_field_and_starts_nothing(
    client, owner, rated, django_capture_on_commit_callbacks, data, field, message
):
    client.force_login(owner)
    response = post(client, rated, django_capture_on_commit_callbacks, **data)
    assert response.status_code == 400
    html = response.content.decode()
    assert f'id="id_{field}-error"' in html and message in html and 'aria-invalid="true"' in html
    assert not AnalysisRun.objects.exists()


def test_the_service_refuses_out_of_range_options(owner, rated):
    with pytest.raises(AnalysisRefused, match="between 0 and 10,000"):
        analysis_start(study=rated, user=owner, resamples=MAX_RESAMPLES + 1)
    with pytest.raises(AnalysisRefused, match="seed"):
        analysis_start(study=rated, user=owner, seed=-1)
    with pytest.raises(AnalysisRefused, match="seed"):
        analysis_start(study=rated, user=owner, seed=MAX_SEED + 1)
    assert not AnalysisRun.objects.exists()


def test_a_double_click_with_other_options_starts_another_run(owner, rated):
    first = analysis_start(study=rated, user=owner, queue=False, resamples=100)
    assert analysis_start(study=rated, user=owner, queue=False, resamples=100) == first
    assert analysis_start(study=rated, user=owner, queue=False, resamples=200) != first


def test_another_researcher_cannot_start_a_run(client, other_researcher, rated, django_capture_on_commit_callbacks):
    client.force_login(other_researcher)
    assert post(client, rated, django_capture_on_commit_callbacks, resamples="10", seed="0").status_code == 404
    assert not AnalysisRun.objects.exists()


def test_the_shell_takes_the_options_and_refuses_bad_ones(rated, capsys):
    call_command("analyse", str(rated.pk), "--json", "--resamples", "50", "--seed", "3")
    run = AnalysisRun.objects.get(study=rated)
    assert (run.resamples, run.seed) == (50, 3)
    assert '"resamples": 50' in capsys.readouterr().out
    with pytest.raises(CommandError, match="between 0 and 10,000"):
        call_command("analyse", str(rated.pk), "--resamples", "20000")


def test_an_option_left_empty_takes_its_default(client, owner, rated, django_capture_on_commit_callbacks):
    client.force_login(owner)
    assert post(client, rated, django_capture_on_commit_callbacks, resamples="", seed="").status_code == 302
    run = AnalysisRun.objects.get(study=rated)
    assert (run.resamples, run.seed) == (1000, 0)

"""/api/v1/studies/{id}/analyses/: a run started with the analysis page's options (its form's checks
and messages) and answered as a job, polled, its whole result fetched (409 while it has none); the
list, newest first and paged; the fixed cast's refusals; a run of another study is not found here."""

import json

import pytest
from rest_framework.test import APIClient

from analysis.models import MAX_RESAMPLES, MAX_SEED, AnalysisRun
from analysis.services import analysis_run
from tests import factories as f
from tests.annotations import annotate, rate_mostly_alike


def runs(study) -> str:
    return f"/api/v1/studies/{study.pk}/analyses/"


def one(run) -> str:
    return f"{runs(run.study)}{run.pk}/"


@pytest.fixture
def rated(study, pool, other_pool, items):
    """Three annotators of India rate its three items, mostly alike."""
    rate_mostly_alike(pool, items[:3])
    return study


def done_run(study, **options) -> AnalysisRun:
    return analysis_run(run_id=AnalysisRun.objects.create(study=study, **options).pk)


def test_an_editor_starts_a_run_polls_it_and_fetches_its_agreement(
    rated, editor, as_user, django_capture_on_commit_callbacks
):
    client = as_user(editor)
    with django_capture_on_commit_callbacks(execute=True):  # the job runs in-process once the request commits
        started = client.post(runs(rated), {"resamples": 50, "seed": 7, "complete_only": True}, format="json")
    assert started.status_code == 202, started.json()
    body = started.json()
    run = AnalysisRun.objects.get(study=rated)
    assert started["Location"] == body["url"] == f"http://testserver{one(run)}"
    assert (body["id"], body["resamples"], body["seed"], body["complete_only"]) == (run.pk, 50, 7, True)
    assert body["status"] == "queued" and started["Retry-After"] == "2" and body["result_url"] is None
    assert run.requested_by == editor

    polled = client.get(body["url"])
    assert polled.status_code == 200 and "Retry-After" not in polled
    polled = polled.json()
    assert polled["status"] == "done" and polled["progress"] == 100 and polled["error"] == ""
    assert polled["current"] is True and polled["finished_at"]
    assert polled["result_url"] == f"http://testserver{one(run)}result/"

    result = client.get(polled["result_url"])
    assert result.status_code == 200 and result["Content-Type"] == "application/json"
    data = json.loads(result.content)
    alignment = next(x for x in data["fields"] if x["key"] == "alignment")
    assert isinstance(alignment["overall"]["alpha"], float) and -1 <= alignment["overall"]["alpha"] <= 1
    assert data["annotations"] == 9 and data["bootstrap"] == {"resamples": 50, "seed": 7, "confidence": 0.95}
    assert data == AnalysisRun.objects.get(pk=run.pk).result


def test_options_left_out_or_null_take_the_pages_defaults(rated, as_user):
    client = as_user(rated.owner)
    body = client.post(runs(rated), {"resamples": None}, format="json").json()
    assert (body["resamples"], body["seed"], body["complete_only"]) == (1000, 0, False)
    bare = client.post(runs(rated))  # no body at all: every default (the same run, still queued)
    assert bare.status_code == 202 and bare.json()["id"] == body["id"]


def test_the_same_options_on_the_same_data_answer_the_run_still_going(rated, as_user):
    client = as_user(rated.owner)
    first = client.post(runs(rated), {"resamples": 10}, format="json").json()
    again = client.post(runs(rated), {"resamples": 10}, format="json")
    assert again.status_code == 202 and again.json()["id"] == first["id"]
    other = client.post(runs(rated), {"resamples": 20}, format="json").json()
    assert other["id"] != first["id"] and AnalysisRun.objects.count() == 2


@pytest.mark.parametrize("body, field, says", [
    ({"resamples": MAX_RESAMPLES + 1}, "resamples", f"less than or equal to {MAX_RESAMPLES}"),
    ({"resamples": -1}, "resamples", "greater than or equal to 0"),
    ({"seed": -3}, "seed", "greater than or equal to 0"),
    ({"seed": int("9" * 30)}, "seed", f"less than or equal to {MAX_SEED}"),
    ({"resamples": "many"}, "resamples", "valid integer"),
    ({"resamples": 1.5}, "resamples", "valid integer"),
    ({"complete_only": "perhaps"}, "complete_only", "valid boolean"),
    ({"fast": True}, "fast", "Unknown field."),
    ([1, 2], "non_field_errors", "Send a JSON object."),
])
def test_bad_options_are_a_400_naming_the_field_and_start_nothing(rated, as_user, body, field, says):
    response = as_user(rated.owner).post(runs(rated), body, format="json")
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()
    assert not AnalysisRun.objects.exists()


def test_a_viewer_reads_runs_but_may_not_start_one(rated, viewer, as_user):
    run = done_run(rated, resamples=0)
    client = as_user(viewer)
    refused = client.post(runs(rated), {}, format="json")
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert [r["id"] for r in client.get(runs(rated)).json()["results"]] == [run.pk]
    assert client.get(one(run)).json()["status"] == "done"
    assert client.get(f"{one(run)}result/").status_code == 200
    assert AnalysisRun.objects.count() == 1


def test_another_researcher_a_checker_and_no_login_are_refused(rated, other_researcher, checker, as_user, anonymous):
    run = done_run(rated, resamples=0)
    session = APIClient()
    session.force_login(checker)
    for client, code in ((as_user(other_researcher), 404), (session, 403), (anonymous, 401)):
        for path in (runs(rated), one(run), f"{one(run)}result/"):
            assert client.get(path).status_code == code, (path, code)
        assert client.post(runs(rated), {}, format="json").status_code == code
    assert AnalysisRun.objects.count() == 1


def test_a_run_of_another_study_is_not_found_in_this_studys_address(rated, other_researcher, as_user):
    theirs = done_run(f.make_study(other_researcher, name="Theirs"), resamples=0)
    client = as_user(rated.owner)
    for path in (f"{runs(rated)}{theirs.pk}/", f"{runs(rated)}{theirs.pk}/result/"):
        assert client.get(path).status_code == 404
    assert client.get(f"{runs(rated)}{'9' * 30}/").status_code == 404


@pytest.mark.parametrize("state", ["queued", "running"])
def test_a_run_still_going_has_no_result_yet_a_409_saying_its_status(rated, as_user, state):
    run = AnalysisRun.objects.create(study=rated, status=state, progress=30)
    client = as_user(rated.owner)
    polled = client.get(one(run))
    assert polled.json()["status"] == state and polled.json()["progress"] == 30 and polled["Retry-After"] == "2"
    response = client.get(f"{one(run)}result/")
    assert response.status_code == 409
    assert response.json() == {"detail": f"analysis {run.pk} is {state}: it has no result", "status": state,
                               "error": ""}


def test_a_failed_run_has_no_result_a_409_with_its_error(rated, as_user):
    run = AnalysisRun.objects.create(study=rated, status="failed", error="The job queue is unreachable: refused")
    client = as_user(rated.owner)
    assert client.get(one(run)).json()["error"] == "The job queue is unreachable: refused"
    body = client.get(f"{one(run)}result/").json()
    assert body["status"] == "failed" and body["error"] == "The job queue is unreachable: refused"
    assert body["detail"] == f"analysis {run.pk} is failed: it has no result. The job queue is unreachable: refused"


def test_a_done_run_is_no_longer_current_once_annotations_change(rated, pool, items, as_user):
    run = done_run(rated, resamples=0)
    annotate(f.make_annotator(pool), items[0])
    body = as_user(rated.owner).get(one(run)).json()
    assert body["status"] == "done" and body["current"] is False


def test_the_list_is_newest_first_without_results_paged_by_a_cursor(rated, as_user, settings):
    settings.API_PAGE_SIZE = 2
    made = [done_run(rated, resamples=0, seed=n).pk for n in range(3)] + [AnalysisRun.objects.create(study=rated).pk]
    client = as_user(rated.owner)
    page = client.get(runs(rated)).json()
    seen = page["results"]
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += page["results"]
    assert [r["id"] for r in seen] == made[::-1]
    assert all("result" not in r and "summary" not in r for r in seen)
    assert [r["current"] for r in seen] == [None, True, True, True]
    assert [r["result_url"] is not None for r in seen] == [False, True, True, True]
    assert client.get(runs(rated), {"cursor": "garbage"}).status_code == 400


def test_the_list_costs_the_same_few_queries_for_many_runs(rated, as_user, django_assert_max_num_queries):
    for n in range(6):
        done_run(rated, resamples=0, seed=n)
    client = as_user(rated.owner)
    client.get(runs(rated))  # the token's first use is written once
    with django_assert_max_num_queries(4):  # the token, the study scoped, the page, the data's fingerprint
        assert len(client.get(runs(rated)).json()["results"]) == 6

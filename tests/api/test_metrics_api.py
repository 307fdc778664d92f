"""/api/v1/studies/{id}/metrics/: a metric file uploaded as on the analysis page (multipart, the page's
size limit, a body larger still refused before it is read; a refused file a 400 naming ``file`` with
the page's line errors, nothing stored); the list, newest first and paged; one upload read; the fixed
cast's refusals; an upload of another study is not found here."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from analysis import metrics
from analysis.models import AnalysisRun, MetricUpload
from analysis.services import analysis_run
from tests import factories as f
from tests.annotations import annotate, annotators


def uploads(study) -> str:
    return f"/api/v1/studies/{study.pk}/metrics/"


def csv_file(text: str, name: str = "metrics.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def scores(items, *extra: str) -> str:
    lines = ["item,country,metric,score"]
    lines += [f"{item.external_id},IN,clip,0.{n + 1}" for n, item in enumerate(items)]
    lines += [f"{item.external_id},,vqa,0.{9 - n}" for n, item in enumerate(items)]
    return "\n".join([*lines, *extra]) + "\n"


@pytest.fixture
def india(study, pool):
    return f.make_items(study, "IN", 4)


def test_an_editor_uploads_scores_and_the_next_analysis_correlates_them(study, pool, india, editor, as_user):
    text = scores(india, "unknown-7,IN,clip,0.3", f"{india[0].external_id},ZZ,other,0.3")
    response = as_user(editor).post(uploads(study), {"file": csv_file(text, "my scores.csv")}, format="multipart")
    assert response.status_code == 201, response.json()
    upload = MetricUpload.objects.get(study=study)
    body = response.json()
    assert body["id"] == upload.pk and body["original_name"] == "my scores.csv" and body["created_at"]
    assert body["rows"] == 8 and body["metrics"] == ["clip", "vqa"]
    summary = body["summary"]
    assert summary["scores"] == 8 and summary["lines"] == 10
    assert (summary["unknown_items"], summary["unknown_item_examples"]) == (1, ["unknown-7"])
    assert (summary["unknown_countries"], summary["unknown_country_examples"]) == (1, ["ZZ"])
    assert upload.uploaded_by == editor and upload.file.read().decode() == text
    for rater in annotators(pool, 2):
        for n, item in enumerate(india):
            annotate(rater, item, overall=n + 1, alignment=1)
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, resamples=0).pk)
    assert run.result["metrics"]["upload"]["id"] == upload.pk


def test_a_bad_file_is_a_400_naming_file_with_the_pages_line_errors_and_stores_nothing(study, india, as_user):
    lines = ["item,country,metric,score", f"{india[0].external_id},IN,clip,0.5",
             f"{india[1].external_id},IN,clip,high", *[f",IN,clip,{i}" for i in range(25)]]
    response = as_user(study.owner).post(uploads(study), {"file": csv_file("\n".join(lines))}, format="multipart")
    assert response.status_code == 400
    said = response.json()["file"]
    assert said[0] == "line 3: the score 'high' is not a number"
    assert said[1].startswith("line 4: the item id is empty")
    assert len(said) == metrics.MAX_ERRORS + 1 and said[-1] == "and 6 more problems"
    assert not MetricUpload.objects.exists()


@pytest.mark.parametrize("text, says", [
    ("item,metric,score\nnope-1,clip,0.5\nnope-2,clip,0.1\n", "none of the 2 item ids is an item of this study"),
    ("", "empty"),
])
def test_a_file_of_no_item_of_the_study_is_refused_as_on_the_page(study, india, as_user, text, says):
    response = as_user(study.owner).post(uploads(study), {"file": csv_file(text)}, format="multipart")
    assert response.status_code == 400 and says in " ".join(response.json()["file"]), response.json()
    assert not MetricUpload.objects.exists()


def test_a_file_that_is_not_utf8_is_refused(study, india, as_user):
    bad = SimpleUploadedFile("m.csv", "item,metric,score\né,clip,1\n".encode("latin-1"), content_type="text/csv")
    response = as_user(study.owner).post(uploads(study), {"file": bad}, format="multipart")
    assert response.status_code == 400 and "not UTF-8" in response.json()["file"][0]


@pytest.mark.parametrize("data, field, says", [
    ({}, "file", "No file was submitted."),
    ({"file": "item,metric,score"}, "file", "not a file"),
    ({"file": SimpleUploadedFile("m.csv", b"x"), "name": "other"}, "name", "Unknown field."),
])
def test_a_form_without_a_file_is_a_400_naming_the_field(study, india, as_user, data, field, says):
    response = as_user(study.owner).post(uploads(study), data, format="multipart")
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()
    assert not MetricUpload.objects.exists()


def test_only_a_multipart_body_is_read(study, india, as_user):
    response = as_user(study.owner).post(uploads(study), {"file": "x"}, format="json")
    assert response.status_code == 415


def test_a_file_over_the_pages_limit_is_refused_and_a_larger_body_before_it_is_read(
    study, india, as_user, monkeypatch
):
    monkeypatch.setattr(metrics, "MAX_UPLOAD_BYTES", 1024 * 1024)
    client = as_user(study.owner)
    over = SimpleUploadedFile("big.csv", b"item,metric,score\n" + b"x" * (1024 * 1024), content_type="text/csv")
    response = client.post(uploads(study), {"file": over}, format="multipart")
    assert response.status_code == 400 and response.json()["file"] == ["the file is larger than 1 MB"]
    huge = SimpleUploadedFile("big.csv", b"x" * (2 * 1024 * 1024), content_type="text/csv")
    response = client.post(uploads(study), {"file": huge}, format="multipart")
    assert response.status_code == 413
    assert response.json()["detail"] == f"The upload is larger than the limit of {1024 * 1024 + 64 * 1024:,} bytes."
    assert not MetricUpload.objects.exists()


def test_a_declared_length_over_the_limit_is_refused_without_reading_the_body(study, as_user, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the body was read")

    monkeypatch.setattr("rest_framework.parsers.MultiPartParser.parse", never)
    response = as_user(study.owner).post(
        uploads(study), b"", content_type="multipart/form-data; boundary=x", CONTENT_LENGTH=str(10**9))
    assert response.status_code == 413


def test_a_viewer_reads_uploads_but_may_not_upload(study, india, viewer, as_user):
    mine = as_user(study.owner).post(uploads(study), {"file": csv_file(scores(india))}, format="multipart").json()
    client = as_user(viewer)
    refused = client.post(uploads(study), {"file": csv_file(scores(india))}, format="multipart")
    assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
    assert [u["id"] for u in client.get(uploads(study)).json()["results"]] == [mine["id"]]
    assert client.get(f"{uploads(study)}{mine['id']}/").json() == mine
    assert MetricUpload.objects.count() == 1


def test_another_researcher_a_checker_and_no_login_are_refused(
    study, india, other_researcher, checker, as_user, anonymous
):
    upload = as_user(study.owner).post(uploads(study), {"file": csv_file(scores(india))}, format="multipart").json()
    session = APIClient()
    session.force_login(checker)
    for client, code in ((as_user(other_researcher), 404), (session, 403), (anonymous, 401)):
        assert client.get(uploads(study)).status_code == code
        assert client.get(f"{uploads(study)}{upload['id']}/").status_code == code
        posted = client.post(uploads(study), {"file": csv_file(scores(india))}, format="multipart")
        assert posted.status_code == code
    assert MetricUpload.objects.count() == 1


def test_an_upload_of_another_study_is_not_found_in_this_studys_address(study, india, other_researcher, as_user):
    theirs = f.make_study(other_researcher, name="Theirs")
    f.make_pool(theirs, "IN", "India")
    their_items = f.make_items(theirs, "IN", 2)
    upload = as_user(other_researcher).post(uploads(theirs), {"file": csv_file(scores(their_items))},
                                            format="multipart").json()
    client = as_user(study.owner)
    assert client.get(f"{uploads(study)}{upload['id']}/").status_code == 404
    assert client.get(f"{uploads(study)}{'9' * 30}/").status_code == 404
    assert client.get(uploads(study)).json()["results"] == []


def test_the_list_is_newest_first_paged_by_a_cursor_at_a_fixed_cost(
    study, india, as_user, settings, django_assert_max_num_queries
):
    client = as_user(study.owner)
    made = [client.post(uploads(study), {"file": csv_file(scores(india), f"m{n}.csv")}, format="multipart").json()["id"]
            for n in range(5)]
    with django_assert_max_num_queries(3):  # the token, the study scoped, the page
        assert [u["id"] for u in client.get(uploads(study)).json()["results"]] == made[::-1]
    settings.API_PAGE_SIZE = 2
    page = client.get(uploads(study)).json()
    seen = [u["id"] for u in page["results"]]
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += [u["id"] for u in page["results"]]
    assert seen == made[::-1] and len(made) == 5

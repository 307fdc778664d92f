"""/api/v1/studies/{id}/prolific/submissions/, the review's actions (refresh, approve, reject, request
a return) as jobs, and the jobs polled, against the fake Prolific: the review page's forms, rules and
messages; the owner's only; another study's submission or job is not found."""

import pytest
from django.test import Client

from recruitment.models import ProlificBonus, ProlificJob, ProlificStudy, ProlificSubmission
from recruitment.payout_selectors import PARTICIPANTS_OWNER_ONLY
from tests import factories as f
from tests.recruitment.review_helpers import read_back, take_part

MESSAGE = "Your answers were given faster than anyone could read the items: " * 3


def url(study, rest=""):
    return f"/api/v1/studies/{study.pk}/prolific/{rest}"


@pytest.fixture
def waiting(fake_prolific, live, owner):  # noqa: F811
    """Two participants through the platform, one who never reached it; all awaiting review."""
    ids = [take_part(fake_prolific, live) for _ in range(2)] + [take_part(fake_prolific, live, annotate=False)]
    subs = read_back(live, owner)
    return [subs[i] for i in ids]


@pytest.fixture
def run_jobs(django_capture_on_commit_callbacks):
    """A request whose jobs run (eagerly) when its transaction commits, as in production."""

    def send(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    return send


def poll(client, started: dict) -> dict:
    response = client.get(started["url"])
    assert response.status_code == 200
    return response.json()


def test_the_submissions_are_listed_with_what_the_platform_knows(owner, study, live, waiting, as_user):
    first, second, stranger = waiting
    rows = as_user(owner).get(url(study, "submissions/")).json()["results"]
    assert [r["id"] for r in rows] == [stranger.pk, second.pk, first.pk]  # newest first
    row = rows[-1]
    assert (row["participant_id"], row["prolific_id"], row["status"]) == (
        first.participant_id, first.prolific_id, "AWAITING REVIEW")
    assert (row["study_code"], row["outcome"], row["pool"]) == (study.code_completed, "completed", live.pool_id)
    assert row["session"] == first.session_id is not None and rows[0]["session"] is None
    assert row["started_at"] and row["return_requested_at"] is None and "completed_at" in row


def test_the_submissions_are_filtered_and_paged(owner, study, live, waiting, other_pool, as_user, settings):
    client = as_user(owner)
    ProlificSubmission.objects.filter(pk=waiting[0].pk).update(status=ProlificSubmission.Status.APPROVED)
    approved = client.get(url(study, "submissions/"), {"status": "APPROVED"}).json()["results"]
    assert [r["id"] for r in approved] == [waiting[0].pk]
    assert client.get(url(study, "submissions/"), {"pool": other_pool.pk}).json()["results"] == []
    assert len(client.get(url(study, "submissions/"), {"pool": live.pool_id}).json()["results"]) == 3
    settings.API_PAGE_SIZE = 2
    page = client.get(url(study, "submissions/")).json()
    rest = client.get(page["next"]).json()
    assert len(page["results"]) == 2 and len(rest["results"]) == 1 and rest["next"] is None


@pytest.mark.parametrize("query, field", [
    ({"status": "LOST"}, "status"), ({"pool": "9" * 30}, "pool"), ({"pool": "x"}, "pool"),
])
def test_a_bad_filter_is_a_400_naming_it(owner, study, live, as_user, query, field):
    response = as_user(owner).get(url(study, "submissions/"), query)
    assert response.status_code == 400 and "Select a valid choice" in response.json()[field][0], response.json()


def test_a_pool_of_another_study_is_no_filter(owner, study, live, as_user):
    elsewhere = f.make_pool(f.make_study(owner, name="Another"), "KE", "Kenya")
    response = as_user(owner).get(url(study, "submissions/"), {"pool": elsewhere.pk})
    assert response.status_code == 400 and "pool" in response.json()


def test_the_list_costs_the_same_for_more_submissions(
    fake_prolific, owner, study, live, waiting, as_user, django_assert_max_num_queries  # noqa: F811
):
    client = as_user(owner)
    client.get(url(study, "submissions/"))
    with django_assert_max_num_queries(4):  # the token, the study scoped, the page, its pools
        assert len(client.get(url(study, "submissions/")).json()["results"]) == 3
    for _ in range(3):
        take_part(fake_prolific, live, annotate=False)
    read_back(live, owner)
    with django_assert_max_num_queries(4):
        assert len(client.get(url(study, "submissions/")).json()["results"]) == 6


def test_a_refresh_reads_the_submissions_as_a_job(fake_prolific, owner, study, live, as_user, run_jobs):  # noqa: F811
    sid = take_part(fake_prolific, live, annotate=False)
    client = as_user(owner)
    response = run_jobs(client.post, url(study, "refresh/"), {}, format="json")
    assert response.status_code == 202 and response["Retry-After"] == "2"
    (job,) = response.json()["jobs"]
    assert (job["kind"], job["status"], job["pool"]) == ("submissions", "queued", live.pool_id)
    done = poll(client, job)
    assert done["status"] == "done" and "1 submission read: 1 new" in done["outcome"] and "progress" not in done
    assert ProlificSubmission.objects.get(prolific_id=sid).status == "AWAITING REVIEW"


def test_a_study_not_on_prolific_has_nothing_to_refresh(fake_prolific, owner, study, pool, as_user):  # noqa: F811
    response = as_user(owner).post(url(study, "refresh/"), {}, format="json")
    assert response.status_code == 409 and response.json() == {"detail": "No pool of this study is on Prolific yet."}
    assert not ProlificJob.objects.exists()


def test_one_submission_is_approved_then_two_in_bulk(fake_prolific, owner, study, waiting, as_user, run_jobs):  # noqa: F811
    client = as_user(owner)
    response = run_jobs(client.post, url(study, "approve/"), {"submissions": [waiting[0].pk]}, format="json")
    assert response.status_code == 202
    (job,) = response.json()["jobs"]
    assert (job["kind"], job["submissions"]) == ("approve", 1)
    assert poll(client, job)["status"] == "done"
    assert ProlificSubmission.objects.get(pk=waiting[0].pk).status == "APPROVED"
    assert fake_prolific.submissions[waiting[0].prolific_id]["status"] == "APPROVED"
    both = [waiting[1].pk, waiting[2].pk]
    (bulk,) = run_jobs(client.post, url(study, "approve/"), {"submissions": both}, format="json").json()["jobs"]
    assert (bulk["kind"], bulk["submissions"]) == ("bulk_approve", 2) and poll(client, bulk)["status"] == "done"


def test_only_submissions_awaiting_review_are_approved(owner, study, waiting, as_user):
    ProlificSubmission.objects.filter(pk=waiting[0].pk).update(status=ProlificSubmission.Status.APPROVED)
    response = as_user(owner).post(url(study, "approve/"), {"submissions": [waiting[0].pk]}, format="json")
    assert response.status_code == 409
    pid = waiting[0].participant_id
    assert response.json()["detail"] == f"Only submissions awaiting review can be approved; not: {pid}."
    assert not ProlificJob.objects.filter(kind="approve").exists()


@pytest.mark.parametrize("body, says", [
    ({"submissions": []}, "at least 1"),
    ({"submissions": [1, "x"]}, "'Item 2: A valid integer is required.'"),
    ({"submissions": [10**40]}, "less than or equal to"),
    ({}, "required"),
])
def test_a_bad_approval_is_a_400_naming_submissions(owner, study, live, as_user, body, says):
    response = as_user(owner).post(url(study, "approve/"), body, format="json")
    assert response.status_code == 400 and says in str(response.json()["submissions"]), response.json()


def test_a_submission_of_another_study_is_not_approved(owner, study, waiting, as_user):
    elsewhere = f.make_pool(f.make_study(owner, name="Another"), "KE", "Kenya")
    row = ProlificStudy.objects.create(pool=elsewhere, reference="ref-ke", prolific_id="P-KE", places=5, reward=150,
                                       estimated_minutes=10)
    theirs = ProlificSubmission.objects.create(prolific_study=row, prolific_id="S-KE", participant_id="PID-KE",
                                               status=ProlificSubmission.Status.AWAITING_REVIEW)
    response = as_user(owner).post(url(study, "approve/"), {"submissions": [waiting[0].pk, theirs.pk]},
                                   format="json")
    assert response.status_code == 400
    assert response.json() == {"submissions": [f"Not submissions of this study: {theirs.pk}."]}
    assert not ProlificJob.objects.filter(kind="approve").exists()
    assert as_user(owner).post(url(study, f"submissions/{theirs.pk}/reject/"),
                               {"category": "OTHER", "message": MESSAGE}, format="json").status_code == 404


def test_a_rejection_is_checked_by_the_pages_form_then_sent(fake_prolific, owner, study, waiting, as_user, run_jobs):  # noqa: F811
    client, sub = as_user(owner), waiting[0]
    reject = url(study, f"submissions/{sub.pk}/reject/")
    short = client.post(reject, {"category": "TOO_QUICKLY", "message": "Too fast."}, format="json")
    assert short.status_code == 400 and short.json() == {
        "message": ["Prolific needs at least 100 characters; this message has 9."]}
    wrong = client.post(reject, {"category": "RUDE", "message": MESSAGE}, format="json")
    assert wrong.status_code == 400 and "Select a valid choice" in wrong.json()["category"][0]
    assert not ProlificJob.objects.exists()
    response = run_jobs(client.post, reject, {"category": "TOO_QUICKLY", "message": MESSAGE}, format="json")
    assert response.status_code == 202 and response["Location"] == response.json()["url"]
    job = poll(client, response.json())
    assert (job["kind"], job["status"], job["submissions"]) == ("reject", "done", 1)
    assert fake_prolific.submissions[sub.prolific_id]["status"] == "REJECTED"
    again = client.post(reject, {"category": "TOO_QUICKLY", "message": MESSAGE}, format="json")
    assert again.status_code == 409 and again.json()["detail"] == (
        "Only a submission awaiting review can be rejected; this one is rejected.")


def test_a_return_is_requested_with_its_reasons(fake_prolific, owner, study, waiting, as_user, run_jobs):  # noqa: F811
    client, sub = as_user(owner), waiting[2]
    ask = url(study, f"submissions/{sub.pk}/return/")
    assert client.post(ask, {"reasons": [" "]}, format="json").json() == {"reasons": ["This field is required."]}
    assert client.post(ask, {"reasons": "one"}, format="json").status_code == 400
    response = run_jobs(client.post, ask, {"reasons": ["Your device could not show the images"]}, format="json")
    assert response.status_code == 202
    job = poll(client, response.json())
    assert job["kind"] == "return" and job["status"] == "done", job
    assert ProlificJob.objects.get(pk=job["id"]).params == {"reasons": ["Your device could not show the images"]}


def test_the_jobs_are_listed_newest_first(owner, study, waiting, as_user):
    client = as_user(owner)
    client.post(url(study, "approve/"), {"submissions": [waiting[0].pk]}, format="json")
    client.post(url(study, "refresh/"), {}, format="json")
    rows = client.get(url(study, "jobs/")).json()["results"]
    assert [r["kind"] for r in rows] == ["submissions", "approve"]
    queued = client.get(rows[0]["url"])
    assert queued.json()["status"] == "queued" and queued["Retry-After"] == "2"


def test_another_studys_submission_or_job_is_not_found(owner, other_researcher, study, waiting, as_user):
    job = ProlificJob.objects.create(study=study, prolific_study=waiting[0].prolific_study, kind="submissions")
    theirs = f.make_study(other_researcher, name="Theirs")
    client = as_user(other_researcher)
    assert client.get(url(theirs, f"jobs/{job.pk}/")).status_code == 404
    assert client.post(url(theirs, f"submissions/{waiting[0].pk}/reject/"),
                       {"category": "OTHER", "message": MESSAGE}, format="json").status_code == 404
    assert as_user(owner).get(url(study, f"jobs/{job.pk + 1}/")).status_code == 404
    assert as_user(owner).get(url(study, f"jobs/{'9' * 30}/")).status_code == 404


@pytest.mark.parametrize("rest", ["submissions/", "jobs/", "jobs/{job}/", "bonuses/", "bonuses/{bonus}/"])
def test_a_member_reads_no_participant_by_the_pages_rule(study, waiting, viewer, editor, as_user, rest):
    """Who sees the participants' Prolific ids is one rule (``participants_study_for_user``): the API
    refuses a member what the review pages refuse them, with the same words."""
    job = ProlificJob.objects.create(study=study, prolific_study=waiting[0].prolific_study, kind="submissions")
    bonus = ProlificBonus.objects.create(prolific_study=waiting[0].prolific_study, amount=5,
                                         lines=[{"who": waiting[0].participant_id, "amount": 5}])
    for member in (viewer, editor):
        response = as_user(member).get(url(study, rest.format(job=job.pk, bonus=bonus.pk)))
        assert response.status_code == 403 and response.json() == {"detail": PARTICIPANTS_OWNER_ONLY}
        page = Client()
        page.force_login(member)
        assert page.get(f"/prolific/studies/{study.pk}/review/").context["exception"] == PARTICIPANTS_OWNER_ONLY


@pytest.mark.parametrize("method, rest", [
    ("get", "submissions/"), ("post", "refresh/"), ("post", "approve/"), ("post", "submissions/{sub}/reject/"),
    ("post", "submissions/{sub}/return/"), ("get", "jobs/"), ("get", "jobs/{job}/"),
])
def test_only_the_owner_reviews(
    fake_prolific, study, waiting, refuse_all_but_the_owner, method, rest,  # noqa: F811
):
    job = ProlificJob.objects.create(study=study, prolific_study=waiting[0].prolific_study, kind="submissions")
    address = url(study, rest.format(sub=waiting[0].pk, job=job.pk))
    body = {"submissions": [waiting[0].pk], "category": "OTHER", "message": MESSAGE, "reasons": ["x"]}
    before = len(fake_prolific.requests)
    refuse_all_but_the_owner(method, address, body)
    assert ProlificJob.objects.count() == 1 and len(fake_prolific.requests) == before

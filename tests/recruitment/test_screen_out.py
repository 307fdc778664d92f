"""Paid screen-outs: a launch that pays them is created with is_custom_screening, its reward checked
against Prolific's minimum; an eligibility "no" then ends on a page saying the participant is screened
out and paid, and a job screens their submission out on Prolific (once); elsewhere, the return stays."""

import re

import pytest
from django.urls import reverse

from annotation.models import Annotator
from recruitment.models import ProlificAction, ProlificJob, ProlificStudy, ProlificSubmission
from recruitment.rules import RuleBroken, screen_out_reward_check
from recruitment.services import (
    LaunchOptions,
    prolific_job_start,
    prolific_study_launch,
    prolific_study_transition,
)
from recruitment.services.body import outcome_table
from tests.helpers import enter

SCREEN_OUT = r"studies/[0-9a-f]{24}/screen-out-submissions/"
PID = "5f1a2b3c4d5e6f7a8b9c0d1e"


@pytest.fixture
def paying(fake_prolific, owner, pool, items):
    """India's pool published with paid screen-outs at £0.10: (row, submission id)."""
    options = LaunchOptions(reward=150, estimated_minutes=10, screen_out_reward=10)
    row = prolific_study_launch(pool=pool, user=owner, options=options).prolific_study
    prolific_study_transition(prolific_study=row, verb="publish", user=owner)
    row.refresh_from_db()
    return row, fake_prolific.submission_start(row.prolific_id, PID)


@pytest.fixture
def say_no(client, pool, django_capture_on_commit_callbacks):
    """Enter as the participant, consent, answer one eligibility question "no" (its job run on
    commit, as the worker would), and return the end page."""

    def answer(row, sub_id):
        enter(client, pool, pid=PID, study_id=row.prolific_id, session_id=sub_id)
        client.post(reverse("annotation:consent"), {"consent": "yes"})
        answers = {k: "yes" for k, _ in pool.eligibility_questions()} | {"childhood": "no"}
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("annotation:eligibility"), answers)
        return client.get(reverse("annotation:end")).content.decode()

    return answer


def test_the_launch_asks_prolific_for_custom_screening(fake_prolific, paying):
    row, _ = paying
    assert fake_prolific.studies[row.prolific_id]["is_custom_screening"] is True
    assert row.screen_out_reward == 10


def test_a_launch_without_screen_outs_sends_no_custom_screening(fake_prolific, on_prolific):
    assert "is_custom_screening" not in fake_prolific.studies[on_prolific.prolific_id]


@pytest.mark.parametrize(("reward", "currency", "said"), [
    (9, "GBP", "under Prolific's minimum of £0.10"),
    (13, "USD", "under Prolific's minimum of $0.14"),
    (50, "EUR", "known for GBP and USD only"),
])
def test_it_refuses_a_screen_out_reward_under_prolifics_minimum(reward, currency, said):
    with pytest.raises(RuleBroken, match=re.escape(said)):
        screen_out_reward_check(reward=reward, currency=currency)


def test_a_launch_under_the_minimum_creates_nothing(fake_prolific, owner, pool, items):
    from recruitment.services import RecruitmentRefused

    options = LaunchOptions(reward=150, estimated_minutes=10, screen_out_reward=5)
    with pytest.raises(RecruitmentRefused, match="£0.05 is under Prolific's minimum of £0.10"):
        prolific_study_launch(pool=pool, user=owner, options=options)
    assert not fake_prolific.studies


def test_a_no_ends_screened_out_and_paid(client, fake_prolific, paying, pool, say_no):
    row, sub_id = paying
    page = say_no(row, sub_id)
    assert "You have been screened out" in page and "paid £0.10" in page
    assert 'href="https://app.prolific.com/submissions"' in page
    assert "Return the study on Prolific" not in page and "completion-code" not in page
    assert fake_prolific.screen_outs == [{"submission_id": sub_id, "amount": "0.1"}]
    call = fake_prolific.calls("POST", SCREEN_OUT)[0]
    assert call.body == {"submission_ids": [sub_id], "bonus_per_submission": 0.1, "increase_places": False}
    assert ProlificSubmission.objects.get(prolific_id=sub_id).status == "SCREENED OUT"
    job = ProlificJob.objects.get(kind="screen_out")
    assert job.status == "done" and job.user == row.pool.study.owner
    assert ProlificAction.objects.filter(kind="screen_out", ok=True, target=sub_id).exists()
    assert Annotator.objects.get().outcome == "not_eligible"


def test_a_screened_out_participant_cannot_come_back(client, fake_prolific, paying, pool, say_no):
    row, sub_id = paying
    say_no(row, sub_id)
    again = enter(client, pool, pid=PID, study_id=row.prolific_id, session_id=sub_id)
    assert again.status_code == 400 and "no longer active" in again.content.decode()


def test_a_repeated_job_never_screens_out_twice(client, fake_prolific, paying, pool, say_no,
                                               django_capture_on_commit_callbacks):
    row, sub_id = paying
    say_no(row, sub_id)
    sub = ProlificSubmission.objects.get(prolific_id=sub_id)
    with django_capture_on_commit_callbacks(execute=True):
        job = prolific_job_start(prolific_study=row, user=row.pool.study.owner, kind="screen_out",
                                 submissions=[sub])
    job.refresh_from_db()
    assert job.status == "done" and "already screened out" in job.outcome
    assert len(fake_prolific.calls("POST", SCREEN_OUT)) == 1


def test_prolific_refusing_the_screen_out_fails_the_job_with_its_reason(client, fake_prolific, paying, pool, say_no):
    fake_prolific.screen_out_enabled = False  # the workspace does not have the feature
    row, sub_id = paying
    page = say_no(row, sub_id)
    assert "screened out" in page  # the participant's page does not wait for Prolific
    job = ProlificJob.objects.get(kind="screen_out")
    assert job.status == "failed" and "not enabled" in job.error
    assert ProlificAction.objects.filter(kind="screen_out", ok=False, status_code=403).exists()


def test_without_paid_screen_outs_a_no_still_asks_to_return(client, fake_prolific, participant, pool, study):
    pid, study_id, sub_id = participant
    enter(client, pool, pid=pid, study_id=study_id, session_id=sub_id)
    client.post(reverse("annotation:consent"), {"consent": "yes"})
    client.post(reverse("annotation:eligibility"), {k: "no" for k, _ in pool.eligibility_questions()})
    page = client.get(reverse("annotation:end")).content.decode()
    assert "Return the study on Prolific" in page and "screened out" not in page
    assert not fake_prolific.calls("POST", SCREEN_OUT) and not ProlificJob.objects.filter(kind="screen_out").exists()


def test_the_outcome_table_names_the_screen_out(owner):
    rows = {r["label"]: r for r in outcome_table()}
    assert rows["not eligible"]["action"] == "REQUEST_RETURN"
    paid = rows["not eligible, where the launch pays screen-outs"]
    assert "screen-out-submissions" in paid["action"] and "is_custom_screening" in paid["why"]


def test_the_study_page_shows_the_outcome_table(client, owner, study, fake_prolific):
    from tests.helpers import login

    login(client, owner)
    page = client.get(reverse("recruitment:study-prolific", args=[study.pk])).content.decode()
    assert "screen-out-submissions" in page and "REQUEST_RETURN" in page


def test_prolific_study_row_keeps_the_choice(paying):
    row, _ = paying
    assert ProlificStudy.objects.get(pk=row.pk).screen_out_reward == 10

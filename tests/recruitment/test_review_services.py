"""Review and pay, driven through the services and the job's task: reading submissions from
Prolific, approve (one, many), reject, request a return, bonuses set up then paid once; Prolific's
refusals, 429s, 5xx and time-outs; the local state never ahead of Prolific's."""

import pytest

from recruitment.models import ProlificAction, ProlificBonus, ProlificJob, ProlificSubmission
from recruitment.services.payouts import (
    prolific_bonus_draft,
    prolific_job_run,
    prolific_job_start,
)
from recruitment.services.sync import prolific_study_sync

from .review_helpers import go_live, read_back, take_part

Kind = ProlificAction.Kind
TRANSITION = r"submissions/[0-9a-f]+/transition/"
PAY = r"bulk-bonus-payments/[0-9a-f]+/pay/"
SETUP = r"submissions/bonus-payments/"


@pytest.fixture
def live(fake_prolific, owner, pool, items):
    return go_live(fake_prolific, owner, pool)


MESSAGE = "Your answers were given faster than anyone could read the items: " * 3


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    """Start a job the way the pages do; its task runs (eagerly) when the transaction commits."""

    def start(**kwargs) -> ProlificJob:
        with django_capture_on_commit_callbacks(execute=True):
            job = prolific_job_start(**kwargs)
        job.refresh_from_db()
        return job

    return start


def test_refresh_reads_every_page_and_ties_sessions(fake_prolific, live, owner):
    platform = [take_part(fake_prolific, live) for _ in range(2)]
    elsewhere = take_part(fake_prolific, live, annotate=False)
    result = prolific_study_sync(prolific_study=live, user=owner)
    assert (result.seen, result.created, result.changed) == (3, 3, [])
    # the fake's pages hold two: the client followed the next link
    assert len(fake_prolific.calls("GET", r"studies/[0-9a-f]+/submissions/")) == 2
    rows = {s.prolific_id: s for s in ProlificSubmission.objects.all()}
    assert all(rows[sid].session.prolific_session_id == sid for sid in platform)
    assert rows[elsewhere].session is None
    assert {s.status for s in rows.values()} == {"AWAITING REVIEW"}
    assert rows[platform[0]].study_code == live.pool.study.code_completed


def test_refresh_is_idempotent_and_follows_prolific(fake_prolific, live, owner):
    sid = take_part(fake_prolific, live)
    prolific_study_sync(prolific_study=live, user=owner)
    again = prolific_study_sync(prolific_study=live, user=owner)
    assert (again.seen, again.created, again.changed) == (1, 0, [])
    fake_prolific.submissions[sid]["status"] = "APPROVED"  # approved in Prolific's web app
    changed = prolific_study_sync(prolific_study=live, user=owner)
    assert changed.changed == [f"{sid}: status APPROVED"]
    assert ProlificSubmission.objects.get().status == "APPROVED"
    assert ProlificSubmission.objects.count() == 1


def test_approve_one(fake_prolific, live, owner, run):
    sid = take_part(fake_prolific, live)
    sub = read_back(live, owner)[sid]
    job = run(prolific_study=live, user=owner, kind=Kind.APPROVE, submissions=[sub])
    assert job.status == "done", job.error
    assert fake_prolific.submissions[sid]["status"] == "APPROVED"
    sub.refresh_from_db()
    assert sub.status == "APPROVED"
    call = job.calls.get()
    assert (call.kind, call.ok, call.user, call.target) == ("approve", True, owner, sid)
    assert call.answer["status"] == "APPROVED"


def test_approving_again_does_nothing_twice(fake_prolific, live, owner, run):
    sid = take_part(fake_prolific, live)
    sub = read_back(live, owner)[sid]
    run(prolific_study=live, user=owner, kind=Kind.APPROVE, submissions=[sub])
    # Prolific refuses to approve an approved submission (as the fake's stricter twin would): done
    fake_prolific.fail_next("POST", TRANSITION, 400, {"error": {"detail": "Submission is already approved."}})
    job = run(prolific_study=live, user=owner, kind=Kind.APPROVE, submissions=[sub])
    assert job.status == "done", job.error
    sub.refresh_from_db()
    assert sub.status == "APPROVED"


def test_a_redelivered_task_runs_the_job_once(fake_prolific, live, owner, run):
    sid = take_part(fake_prolific, live)
    job = run(prolific_study=live, user=owner, kind=Kind.APPROVE, submissions=[read_back(live, owner)[sid]])
    assert prolific_job_run(job_id=job.pk) is None  # the task delivered a second time
    assert len(fake_prolific.calls("POST", TRANSITION)) == 1


def test_bulk_approve(fake_prolific, live, owner, run):
    ids = [take_part(fake_prolific, live) for _ in range(3)]
    subs = read_back(live, owner)
    job = run(prolific_study=live, user=owner, kind=Kind.BULK_APPROVE, submissions=[subs[i] for i in ids])
    assert job.status == "done", job.error
    (call,) = fake_prolific.calls("POST", r"submissions/bulk-approve/")
    assert sorted(call.body["submission_ids"]) == sorted(ids)
    # Prolific approves asynchronously: nothing is approved here until it says so
    assert set(ProlificSubmission.objects.values_list("status", flat=True)) == {"AWAITING REVIEW"}
    fake_prolific.drain()
    read_back(live, owner)
    assert set(ProlificSubmission.objects.values_list("status", flat=True)) == {"APPROVED"}


def test_bulk_approve_goes_in_sequential_batches(fake_prolific, live, owner, run, monkeypatch):
    from recruitment.services import payouts as review

    monkeypatch.setattr(review, "BULK_BATCH", 2)
    ids = [take_part(fake_prolific, live, annotate=False) for _ in range(5)]
    subs = read_back(live, owner)
    job = run(prolific_study=live, user=owner, kind=Kind.BULK_APPROVE, submissions=[subs[i] for i in ids])
    assert job.status == "done", job.error
    batches = [c.body["submission_ids"] for c in fake_prolific.calls("POST", r"submissions/bulk-approve/")]
    assert [len(b) for b in batches] == [2, 2, 1] and sorted(sum(batches, [])) == sorted(ids)
    assert job.calls.filter(kind="bulk_approve", ok=True).count() == 3


def test_an_approval_whose_answer_was_lost_is_done_on_the_retry(fake_prolific, live, owner, run, settings):
    settings.PROLIFIC_API_RETRIES = 0
    sid = take_part(fake_prolific, live)
    # Prolific approved, but the answer came after the client's time-out: the job runs again and
    # Prolific ignores the repeat
    fake_prolific.hang_next("POST", TRANSITION, 3, after_processing=True)
    job = run(prolific_study=live, user=owner, kind=Kind.APPROVE, submissions=[read_back(live, owner)[sid]])
    assert job.status == "done", job.error
    assert job.attempt == 2 and len(fake_prolific.calls("POST", TRANSITION)) == 2
    assert ProlificSubmission.objects.get().status == "APPROVED"


def test_reject(fake_prolific, live, owner, run):
    sid = take_part(fake_prolific, live)
    sub = read_back(live, owner)[sid]
    job = run(prolific_study=live, user=owner, kind=Kind.REJECT, submissions=[sub],
              params={"category": "TOO_QUICKLY", "message": MESSAGE})
    assert job.status == "done", job.error
    (call,) = fake_prolific.calls("POST", TRANSITION)
    assert call.body == {"action": "REJECT", "message": MESSAGE, "rejection_category": "TOO_QUICKLY"}
    sub.refresh_from_db()
    assert sub.status == "REJECTED" == fake_prolific.submissions[sid]["status"]


def test_a_refusal_is_shown_with_prolifics_message_and_changes_nothing(fake_prolific, live, owner, run):
    sid = take_part(fake_prolific, live)
    sub = read_back(live, owner)[sid]
    fake_prolific.fail_next("POST", TRANSITION, 400,
                            {"error": {"title": "Bad Request", "detail": "This study's reviews are locked."}})
    job = run(prolific_study=live, user=owner, kind=Kind.REJECT, submissions=[sub],
              params={"category": "LOW_EFFORT", "message": MESSAGE})
    assert job.status == "failed"
    assert "This study's reviews are locked." in job.error
    sub.refresh_from_db()
    assert sub.status == "AWAITING REVIEW"  # read back from Prolific: not rejected
    failed = job.calls.filter(ok=False).get()
    assert failed.status_code == 400 and "locked" in failed.error


def test_a_429_is_retried(fake_prolific, live, owner, run, settings):
    settings.PROLIFIC_API_RETRIES = 0  # no retry inside the client: the job is queued again
    sid = take_part(fake_prolific, live)
    sub = read_back(live, owner)[sid]
    fake_prolific.fail_next("POST", TRANSITION, 429, headers={"Retry-After": "0"})
    job = run(prolific_study=live, user=owner, kind=Kind.APPROVE, submissions=[sub])
    assert job.status == "done", job.error
    assert job.attempt == 2
    assert [c.status for c in fake_prolific.calls("POST", TRANSITION)] == [429, 200]
    assert list(job.calls.order_by("pk").values_list("ok", "status_code")) == [(False, 429), (True, None)]


def test_a_job_gives_up_after_a_few_attempts(fake_prolific, live, owner, run, settings):
    settings.PROLIFIC_API_RETRIES = 0
    sid = take_part(fake_prolific, live)
    fake_prolific.fail_next("POST", TRANSITION, 503, times=10)
    job = run(prolific_study=live, user=owner, kind=Kind.APPROVE, submissions=[read_back(live, owner)[sid]])
    assert job.status == "failed" and "gave up after 4 attempts" in job.error and "503" in job.error
    assert len(fake_prolific.calls("POST", TRANSITION)) == 4
    assert ProlificSubmission.objects.get().status == "AWAITING REVIEW"


def test_request_return(fake_prolific, live, owner, run):
    sid = take_part(fake_prolific, live, annotate=False)
    sub = read_back(live, owner)[sid]
    job = run(prolific_study=live, user=owner, kind=Kind.RETURN, submissions=[sub],
              params={"reasons": ["You did not consent to the study."]})
    assert job.status == "done", job.error
    (call,) = fake_prolific.calls("POST", r"submissions/[0-9a-f]+/request-return/")
    assert call.body == {"request_return_reasons": ["You did not consent to the study."]}
    sub.refresh_from_db()
    assert sub.return_requested_at is not None


# --- bonuses ---------------------------------------------------------------------------------


def bonus_for(fake, live, owner, amounts=(150, 75)):
    ids = [take_part(fake, live) for _ in amounts]
    read_back(live, owner)
    return prolific_bonus_draft(prolific_study=live, user=owner, lines=list(zip(ids, amounts, strict=True)))


def test_bonus_set_up_then_paid_once(fake_prolific, live, owner, run):
    bonus = bonus_for(fake_prolific, live, owner)
    assert bonus.amount == 225 and bonus.state == "draft"
    setup = run(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)
    assert setup.status == "done", setup.error
    bonus.refresh_from_db()
    remote = fake_prolific.bonuses[bonus.prolific_id]
    assert (bonus.state, bonus.fees, bonus.total_amount) == ("set_up", remote["fees"], remote["total_amount"])
    assert bonus.total_amount == 225 + 75  # the fake's fee rate: 225 × 0.3333 = 75
    assert remote["payments"] == 0  # set up, not paid
    pay = run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus)
    assert pay.status == "done", pay.error
    bonus.refresh_from_db()
    assert bonus.state == "paid" and bonus.paid_at is not None
    assert remote["payments"] == 1
    again = run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus)
    assert again.status == "done" and again.outcome == "Already paid."
    assert remote["payments"] == 1 and len(fake_prolific.calls("POST", PAY)) == 1


def test_a_time_out_during_pay_never_pays_twice(fake_prolific, live, owner, run):
    bonus = bonus_for(fake_prolific, live, owner)
    run(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)
    # Prolific pays, but its answer comes after the client's time-out
    fake_prolific.hang_next("POST", PAY, 3, after_processing=True)
    job = run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus)
    assert job.status == "failed" and "will not send this payment again" in job.error
    bonus.refresh_from_db()
    assert bonus.state == "uncertain"
    retry = run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus)
    assert retry.status == "failed" and "not paid again" in retry.error
    assert len(fake_prolific.calls("POST", PAY)) == 1
    assert fake_prolific.bonuses[bonus.prolific_id]["payments"] == 1


def test_a_5xx_on_pay_is_not_retried_and_is_shown(fake_prolific, live, owner, run):
    bonus = bonus_for(fake_prolific, live, owner)
    run(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)
    fake_prolific.fail_next("POST", PAY, 502, {"error": {"title": "Bad Gateway", "detail": "Upstream failed."}})
    job = run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus)
    assert job.status == "failed" and "Upstream failed." in job.error
    assert job.attempt == 1 and len(fake_prolific.calls("POST", PAY)) == 1
    bonus.refresh_from_db()
    assert bonus.state == "uncertain"


def test_a_5xx_on_set_up_is_not_retried_and_is_shown(fake_prolific, live, owner, run):
    bonus = bonus_for(fake_prolific, live, owner)
    fake_prolific.fail_next("POST", SETUP, 500)
    job = run(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)
    assert job.status == "failed" and "500" in job.error
    assert len(fake_prolific.calls("POST", SETUP)) == 1
    bonus.refresh_from_db()
    assert (bonus.state, bonus.prolific_id) == ("draft", "")  # set up again later, by a person


def test_a_refused_pay_can_be_paid_later(fake_prolific, live, owner, run):
    bonus = bonus_for(fake_prolific, live, owner)
    run(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)
    balance = fake_prolific.user["available_balance"]
    fake_prolific.user["available_balance"] = 10
    job = run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus)
    assert job.status == "failed" and "Insufficient balance" in job.error
    bonus.refresh_from_db()
    assert bonus.state == "set_up"  # Prolific refused: nothing paid, it may be paid later
    fake_prolific.user["available_balance"] = balance
    assert run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus).status == "done"
    assert fake_prolific.bonuses[bonus.prolific_id]["payments"] == 1


def test_a_429_on_pay_is_retried_once_refused(fake_prolific, live, owner, run):
    bonus = bonus_for(fake_prolific, live, owner)
    run(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)
    fake_prolific.fail_next("POST", PAY, 429, headers={"Retry-After": "0"})
    job = run(prolific_study=live, user=owner, kind=Kind.BONUS_PAY, bonus=bonus)
    assert job.status == "done", job.error
    assert [c.status for c in fake_prolific.calls("POST", PAY)] == [429, 202]
    bonus.refresh_from_db()
    assert bonus.state == "paid"
    assert fake_prolific.bonuses[bonus.prolific_id]["payments"] == 1
    assert ProlificBonus.objects.count() == 1

"""Payouts: the researcher's actions on a pool's submissions (approve one or many, reject,
request a return, set up and pay bonuses, refresh from Prolific), each run as a job
(``ProlificJob`` on ``jobs.lifecycle``: queued once the transaction commits, claimed by a conditional
UPDATE so a redelivered task never runs it twice, its lease renewed at each call), every call it
makes to Prolific logged (``ProlificAction``: who, when, what, Prolific's answer).

Errors: a refusal (4xx) ends the job with Prolific's message. A 429, a 5xx or no answer is retried
(the client retries at once; the job waits and runs again, a few times, with the wait Prolific
asks: ``job_wait``) only where a repeat is harmless: reads, submission transitions and bulk approval
(idempotent on Prolific), and a refused (429) bonus set-up or pay, which Prolific did not process. A
bonus set-up or pay that failed with a 5xx or got no answer is never repeated by the platform: the
job fails and says so. Prolific's pay call is not idempotent; see ``ProlificBonus``.

Local state follows Prolific's answers only: a submission's status is written from the answer to a
transition or a read, never from what was asked.

A worker that dies mid-job, or a message lost before any worker claimed it, is the one reaper's
(``jobs.lifecycle.jobs_reap``), by the rules the model declares: the kinds a repeat leaves harmless
(``ProlificJob.repeatable``) are queued again while attempts remain; a bonus set-up goes back to a
draft (an unrecorded set-up is never paid) and a payment to "uncertain" (never sent again), their
job failed with the reason (``ProlificJob.when_lost``). Every write of a running job names its
attempt, so a worker that outlived its lease cannot overwrite the reaper's outcome, nor queue a
reaped job again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from jobs.lifecycle import job_claim, job_end, job_enqueue_on_commit, job_finish, job_heartbeat, job_wait

from ..models import ProlificAction, ProlificBonus, ProlificJob, ProlificStudy, ProlificSubmission
from ..prolific import (
    ProlificClient,
    ProlificError,
    ProlificRateLimited,
    ProlificRequestError,
    ProlificServerError,
    ProlificUnavailable,
    Submission,
)
from ..rules import money
from ..tokens import ProlificNotConfigured, client_for
from .launch import RecruitmentRefused, action_log
from .submissions import submission_mirror
from .sync import prolific_study_sync

logger = logging.getLogger(__name__)

Kind = ProlificAction.Kind
BonusState = ProlificBonus.State

BULK_BATCH = 100  # submissions per bulk approval, sent one batch after the other
RETRY_WAIT = (5.0, 30.0, 120.0)  # seconds before the 2nd, 3rd, 4th attempt when Prolific names none


# --- starting a job --------------------------------------------------------------------------


def prolific_job_start(
    *,
    prolific_study: ProlificStudy,
    user: AbstractBaseUser | None,
    kind: str,
    submissions: Iterable[ProlificSubmission] = (),
    params: dict[str, Any] | None = None,
    bonus: ProlificBonus | None = None,
) -> ProlificJob:
    """Record the action and queue its task once the transaction commits."""
    if kind not in RUNNERS:
        raise ValueError(f"no job for {kind!r}")
    job = ProlificJob.objects.create(
        study_id=prolific_study.pool.study_id,
        prolific_study=prolific_study,
        user=user if user is not None and user.is_authenticated else None,
        kind=kind,
        params=params or {},
        bonus=bonus,
    )
    chosen = list(submissions)
    if chosen:
        job.submissions.set(chosen)
    job_enqueue_on_commit(ProlificJob, job.pk)
    return job


# --- running a job ---------------------------------------------------------------------------


class Retry(Exception):
    """Prolific is busy or failed on a step that is safe to repeat: run the job again later."""

    def __init__(self, error: ProlificError):
        super().__init__(error.message)
        self.error = error


def prolific_job_run(*, job_id: int) -> None:
    """The body of a job's task: claimed (``jobs.lifecycle``), run, and ended done, failed, or
    waiting to run again after Prolific's wait (a retry, queued with that countdown)."""
    attempt = job_claim(ProlificJob, job_id)
    if attempt is None:
        return
    job = ProlificJob.objects.select_related("prolific_study__pool", "user", "bonus").get(pk=job_id)
    try:
        with client_for(user=job.user) as client:
            outcome = RUNNERS[job.kind](job, client)
    except Retry as retry:
        if attempt < ProlificJob.max_attempts:
            job_wait(ProlificJob, job_id, seconds=_wait_for(retry.error, attempt),
                     error=f"{retry.error.message} (attempt {attempt}; trying again)")
            return
        job_end(ProlificJob, job_id, error=f"{retry.error.message} (gave up after {attempt} attempts)")
    except (ProlificError, ProlificNotConfigured, RecruitmentRefused) as exc:
        job_end(ProlificJob, job_id, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - the row records every failure; the worker stays up
        logger.exception("Prolific job %s failed", job_id)
        job_end(ProlificJob, job_id, error=f"An unexpected error stopped the job ({type(exc).__name__}).")
    else:
        job_finish(ProlificJob, job_id, outcome=outcome)


def _wait_for(error: ProlificError, attempt: int) -> float:
    if isinstance(error, ProlificRateLimited) and error.retry_after is not None:
        return error.retry_after
    return RETRY_WAIT[min(attempt, len(RETRY_WAIT)) - 1]


def _log(job: ProlificJob, kind: str, *, target: str, ok: bool, answer: Any = None,
         error: ProlificError | None = None) -> None:
    """Log a call, and renew the job's lease when due (a call takes seconds)."""
    action = action_log(row=job.prolific_study, kind=kind, user=job.user, target=target, ok=ok, answer=answer,
                        error=error)
    ProlificAction.objects.filter(pk=action.pk).update(job=job)
    job_heartbeat(ProlificJob, job.pk)


SAFE_TO_REPEAT = (ProlificRateLimited, ProlificServerError, ProlificUnavailable)


def _safe_call(job: ProlificJob, kind: str, target: str, call: Callable[[], Any]) -> Any:
    """A call that Prolific treats as idempotent: logged; a 429, 5xx or no answer retries the job."""
    try:
        answer = call()
    except SAFE_TO_REPEAT as exc:
        _log(job, kind, target=target, ok=False, error=exc)
        raise Retry(exc) from None
    except ProlificError as exc:
        _log(job, kind, target=target, ok=False, error=exc)
        raise
    return answer


def _submissions_of(job: ProlificJob) -> list[ProlificSubmission]:
    return list(job.submissions.order_by("pk"))


def _run_refresh(job: ProlificJob, client: ProlificClient) -> str:
    row = job.prolific_study
    result = _safe_call(job, Kind.SUBMISSIONS, row.prolific_id,
                        lambda: prolific_study_sync(prolific_study=row, user=job.user, client=client))
    _log(job, Kind.SUBMISSIONS, target=row.prolific_id, ok=True,
         answer={"seen": result.seen, "created": result.created, "changed": result.changed, "places": result.places})
    return result.summary


def _transition(job: ProlificJob, client: ProlificClient, kind: str, done: str,
                send: Callable[[str], Submission]) -> str:
    """Approve or reject one submission. A refusal whose reason is that the submission is already
    where it was sent (a repeat, or a retry after a time-out that had worked) counts as done: the
    status is read back from Prolific."""
    subs = _submissions_of(job)
    if len(subs) != 1:
        raise RecruitmentRefused("this action takes one submission")
    sub = subs[0]
    try:
        remote = _safe_call(job, kind, sub.prolific_id, lambda: send(sub.prolific_id))
    except ProlificRequestError:
        current = client.submission_get(sub.prolific_id)
        submission_mirror(sub, current)
        if current.status != done:
            raise
        remote = current
    submission_mirror(sub, remote)
    _log(job, kind, target=sub.prolific_id, ok=True, answer=remote.raw)
    return f"{sub.participant_id}: {sub.get_status_display().lower()} on Prolific."


def _run_approve(job: ProlificJob, client: ProlificClient) -> str:
    return _transition(job, client, Kind.APPROVE, "APPROVED", client.submission_approve)


def _run_reject(job: ProlificJob, client: ProlificClient) -> str:
    category, message = str(job.params.get("category")), str(job.params.get("message"))
    return _transition(
        job, client, Kind.REJECT, "REJECTED",
        lambda sid: client.submission_reject(sid, message=message, category=category),
    )


def _run_bulk_approve(job: ProlificJob, client: ProlificClient) -> str:
    """Prolific approves a bulk asynchronously; statuses here change when it reports them (refresh,
    webhooks, sync). Approving an approved submission again changes nothing on Prolific."""
    ids = [s.prolific_id for s in _submissions_of(job)]
    for start in range(0, len(ids), BULK_BATCH):
        batch = ids[start:start + BULK_BATCH]
        _safe_call(job, Kind.BULK_APPROVE, f"{len(batch)} submissions",
                   lambda batch=batch: client.submissions_bulk_approve(batch))
        _log(job, Kind.BULK_APPROVE, target=f"{len(batch)} submissions", ok=True, answer={"submission_ids": batch})
    return (f"Prolific accepted the approval of {len(ids)} submission{'s' if len(ids) != 1 else ''}; "
            "it approves them within minutes (refresh to see their status).")


def _run_return(job: ProlificJob, client: ProlificClient) -> str:
    subs = _submissions_of(job)
    if len(subs) != 1:
        raise RecruitmentRefused("this action takes one submission")
    sub = subs[0]
    reasons = [str(r) for r in job.params.get("reasons") or []]
    answer = _safe_call(job, Kind.RETURN, sub.prolific_id,
                        lambda: client.submission_request_return(sub.prolific_id, reasons))
    submission_mirror(sub, answer)
    _log(job, Kind.RETURN, target=sub.prolific_id, ok=True, answer=answer)
    return f"{sub.participant_id}: Prolific asked them to return the study."


# --- bonuses ---------------------------------------------------------------------------------


def prolific_bonus_draft(
    *, prolific_study: ProlificStudy, user: AbstractBaseUser | None, lines: list[tuple[str, int]]
) -> ProlificBonus:
    """Bonuses written down, not yet sent: the preview's total is their sum (minor units)."""
    return ProlificBonus.objects.create(
        prolific_study=prolific_study,
        lines=[{"who": who, "amount": amount} for who, amount in lines],
        amount=sum(amount for _, amount in lines),
        currency=prolific_study.currency,
        created_by=user if user is not None and user.is_authenticated else None,
    )


def _bonus_state(bonus: ProlificBonus, frm: str, to: str, **fields: Any) -> bool:
    """Move the bonus from one state to another, if it is still in the first (one row changed)."""
    return bool(ProlificBonus.objects.filter(pk=bonus.pk, state=frm).update(state=to, **fields))


def _run_bonus_setup(job: ProlificJob, client: ProlificClient) -> str:
    """Set the bonuses up on Prolific (not paid): Prolific answers their fees, VAT and total."""
    bonus = _job_bonus(job)
    if not _bonus_state(bonus, BonusState.DRAFT, BonusState.SETTING_UP):
        bonus.refresh_from_db()
        if bonus.prolific_id:
            return f"Already set up on Prolific ({bonus.get_state_display().lower()})."
        raise RecruitmentRefused("these bonuses are being set up by another job")
    amounts = [(str(line["who"]), int(line["amount"])) for line in bonus.lines]
    target = job.prolific_study.prolific_id
    try:
        setup = client.bonus_setup(target, amounts)
    except ProlificRateLimited as exc:  # refused, nothing set up: safe to ask again
        _bonus_state(bonus, BonusState.SETTING_UP, BonusState.DRAFT)
        _log(job, Kind.BONUS_SETUP, target=target, ok=False, error=exc)
        raise Retry(exc) from None
    except ProlificError as exc:
        # A 5xx or no answer may have set a bonus up on Prolific; unpaid, it costs nothing, and
        # only a set-up whose id is recorded here is ever paid. Not repeated by the platform.
        _bonus_state(bonus, BonusState.SETTING_UP, BonusState.DRAFT)
        _log(job, Kind.BONUS_SETUP, target=target, ok=False, error=exc)
        raise
    ProlificBonus.objects.filter(pk=bonus.pk).update(
        state=BonusState.SET_UP, prolific_id=setup.id, fees=setup.fees, vat=setup.vat,
        total_amount=setup.total_amount,
    )
    _log(job, Kind.BONUS_SETUP, target=setup.id, ok=True,
         answer={"id": setup.id, "amount": setup.amount, "fees": setup.fees, "vat": setup.vat,
                 "total_amount": setup.total_amount})
    cur = bonus.currency
    return (f"Set up on Prolific, not paid yet: {money(setup.amount, cur)} + fees {money(setup.fees, cur)} "
            f"+ VAT {money(setup.vat, cur)} = {money(setup.total_amount, cur)}.")


def _run_bonus_pay(job: ProlificJob, client: ProlificClient) -> str:
    """Pay a set-up bonus, at most once: the state moves to ``paying`` (committed) before the
    call is sent, and only a clear refusal (a 4xx or a 429, which Prolific did not process) moves
    it back. No answer or a 5xx leaves it ``uncertain``: never sent again from here."""
    bonus = _job_bonus(job)
    if not bonus.prolific_id:
        raise RecruitmentRefused("set the bonuses up on Prolific first")
    if not _bonus_state(bonus, BonusState.SET_UP, BonusState.PAYING):
        bonus.refresh_from_db()
        if bonus.state == BonusState.PAID:
            return "Already paid."
        raise RecruitmentRefused(
            f"not paid again: the bonus is {bonus.get_state_display().lower()}"
        )
    try:
        client.bonus_pay(bonus.prolific_id)
    except (ProlificRateLimited, ProlificRequestError) as exc:
        _bonus_state(bonus, BonusState.PAYING, BonusState.SET_UP)
        _log(job, Kind.BONUS_PAY, target=bonus.prolific_id, ok=False, error=exc)
        if isinstance(exc, ProlificRateLimited):
            raise Retry(exc) from None
        raise
    except ProlificError as exc:
        _bonus_state(bonus, BonusState.PAYING, BonusState.UNCERTAIN)
        _log(job, Kind.BONUS_PAY, target=bonus.prolific_id, ok=False, error=exc)
        raise ProlificError(
            f"{exc.message}. Prolific may or may not have paid: the platform will not send this payment "
            "again. Check the participants' bonuses on Prolific before paying them by other means.",
            status=exc.status, body=exc.body,
        ) from None
    _bonus_state(bonus, BonusState.PAYING, BonusState.PAID, paid_at=timezone.now())
    _log(job, Kind.BONUS_PAY, target=bonus.prolific_id, ok=True, answer={"accepted": True})
    return "Paid: Prolific pays the bonuses within minutes."


def _job_bonus(job: ProlificJob) -> ProlificBonus:
    if job.bonus is None:
        raise RecruitmentRefused("no bonus given")
    return job.bonus


RUNNERS: dict[str, Callable[[ProlificJob, ProlificClient], str]] = {
    Kind.SUBMISSIONS: _run_refresh,
    Kind.APPROVE: _run_approve,
    Kind.BULK_APPROVE: _run_bulk_approve,
    Kind.REJECT: _run_reject,
    Kind.RETURN: _run_return,
    Kind.BONUS_SETUP: _run_bonus_setup,
    Kind.BONUS_PAY: _run_bonus_pay,
}

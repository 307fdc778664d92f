"""Starting the review page's actions (read the submissions, approve, reject, request a return) with
their rules, once for the page and the API: which submissions each action takes, and the jobs it
starts (``payouts.prolific_job_start``, one a pool; queued when the transaction commits)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from studies.models import CountryPool, Study

from ..models import ProlificAction, ProlificBonus, ProlificJob, ProlificStudy, ProlificSubmission
from .launch import RecruitmentRefused
from .payouts import prolific_job_start

Kind = ProlificAction.Kind
Status = ProlificSubmission.Status

NOT_LINKED = "No pool of this study is on Prolific yet."
RETURNABLE = {Status.ACTIVE, Status.AWAITING_REVIEW}


def prolific_refresh_start(
    *, study: Study, user: AbstractBaseUser | None, pool: CountryPool | None = None
) -> list[ProlificJob]:
    """A job reading the submissions from Prolific for every pool of the study on Prolific (or
    ``pool``'s); RecruitmentRefused when none is."""
    rows = ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").select_related("pool")
    if pool is not None:
        rows = rows.filter(pool=pool)
    with transaction.atomic():
        jobs = [prolific_job_start(prolific_study=row, user=user, kind=Kind.SUBMISSIONS) for row in rows]
    if not jobs:
        raise RecruitmentRefused(NOT_LINKED)
    return jobs


def prolific_approve_start(
    *, user: AbstractBaseUser | None, submissions: list[ProlificSubmission]
) -> list[ProlificJob]:
    """Approve submissions awaiting review (as last read from Prolific): one by its transition,
    several by Prolific's bulk approval, one job a pool. Any other status refuses them all."""
    if waiting := [s.participant_id for s in submissions if s.status != Status.AWAITING_REVIEW]:
        raise RecruitmentRefused(f"Only submissions awaiting review can be approved; not: {', '.join(waiting)}.")
    by_pool: dict[ProlificStudy, list[ProlificSubmission]] = {}
    for sub in submissions:
        by_pool.setdefault(sub.prolific_study, []).append(sub)
    with transaction.atomic():
        return [
            prolific_job_start(
                prolific_study=row, user=user, kind=Kind.APPROVE if len(subs) == 1 else Kind.BULK_APPROVE,
                submissions=subs,
            )
            for row, subs in by_pool.items()
        ]


def reject_refusal(sub: ProlificSubmission) -> str:
    """Why the submission cannot be rejected ("" when it can)."""
    if sub.status == Status.AWAITING_REVIEW:
        return ""
    return f"Only a submission awaiting review can be rejected; this one is {sub.get_status_display().lower()}."


def return_refusal(sub: ProlificSubmission) -> str:
    """Why a return cannot be requested of the submission ("" when it can)."""
    if sub.status in RETURNABLE:
        return ""
    return (
        f"A return can be requested of an active submission or one awaiting review; this one is "
        f"{sub.get_status_display().lower()}."
    )


def prolific_reject_start(
    *, submission: ProlificSubmission, user: AbstractBaseUser | None, category: str, message: str
) -> ProlificJob:
    """Reject one submission with Prolific's category and a message (the RejectForm's, checked)."""
    if refusal := reject_refusal(submission):
        raise RecruitmentRefused(refusal)
    return prolific_job_start(
        prolific_study=submission.prolific_study, user=user, kind=Kind.REJECT, submissions=[submission],
        params={"category": category, "message": message},
    )


def prolific_return_start(
    *, submission: ProlificSubmission, user: AbstractBaseUser | None, reasons: list[str]
) -> ProlificJob:
    """Ask the participant to return the study, with the reasons they are shown."""
    if refusal := return_refusal(submission):
        raise RecruitmentRefused(refusal)
    return prolific_job_start(
        prolific_study=submission.prolific_study, user=user, kind=Kind.RETURN, submissions=[submission],
        params={"reasons": reasons},
    )


# --- bonuses ---------------------------------------------------------------------------------

BONUS_STEPS = {  # a step: its job's kind, and the state the bonus must be in
    "setup": (Kind.BONUS_SETUP, ProlificBonus.State.DRAFT),
    "pay": (Kind.BONUS_PAY, ProlificBonus.State.SET_UP),
}
ACTIVE_JOB = (ProlificJob.Status.QUEUED, ProlificJob.Status.RUNNING, ProlificJob.Status.WAITING)


class AlreadyUnderway(RecruitmentRefused):
    """The same step of the bonus is a job still going: nothing new is started."""


def prolific_bonus_send_start(*, bonus: ProlificBonus, user: AbstractBaseUser | None, step: str) -> ProlificJob:
    """Set the bonuses up on Prolific (its fees come back), or pay them (once): a job, started only
    from the state the step needs and while no job of that step is going."""
    try:
        kind, needed = BONUS_STEPS[step]
    except KeyError:
        raise ValueError(f"unknown bonus step {step!r}") from None
    if bonus.state != needed:
        raise RecruitmentRefused(f"Nothing sent: the bonus is {bonus.get_state_display().lower()}.")
    if ProlificJob.objects.filter(bonus=bonus, kind=kind, status__in=ACTIVE_JOB).exists():
        raise AlreadyUnderway("Already under way.")
    return prolific_job_start(prolific_study=bonus.prolific_study, user=user, kind=kind, bonus=bonus)

"""Starting the review page's actions (read the submissions, approve, reject, request a return) with
their rules, once for the page and the API: which submissions each action takes, and the jobs it
starts (``review.prolific_job_start``, one a pool; queued when the transaction commits)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from studies.models import CountryPool, Study

from ..models import ProlificAction, ProlificJob, ProlificStudy, ProlificSubmission
from .launch import RecruitmentRefused
from .review import prolific_job_start

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

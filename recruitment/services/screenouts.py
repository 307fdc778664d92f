"""Paid screen-outs (issue 28, part 2): where a pool's launch chose to pay screen-outs, an annotator
whose eligibility answer ends the study is screened out on Prolific and paid the launch's fixed
reward, instead of being asked to return.

- Registered in annotation's extensions (``RecruitmentConfig.ready``): ``screen_out_offer`` tells the
  end page the reward (one query), ``screen_out_start`` is called once, when the "no" is recorded.
- The call is a job (``ProlificJob`` of kind ``screen_out``, with the study owner's token, logged as
  a ``ProlificAction``): Prolific's ``POST /studies/{id}/screen-out-submissions/`` with
  ``submission_ids`` and ``bonus_per_submission`` (the fixed reward, major units). A job that runs
  again (a 429, a 5xx, no answer, a lost worker) reads the submission first: one already screened
  out is done, one no longer active is left alone, so the participant is never screened out twice.
- ``increase_places`` is not sent: the platform raises places to its open slots itself
  (``prolific places``), which a screened-out participant never held.
"""

from __future__ import annotations

from annotation.extensions import ScreenOut
from annotation.models import Annotator

from ..models import ProlificAction, ProlificJob, ProlificSubmission
from ..prolific import ProlificClient, ProlificRequestError
from ..rules import money
from .launch import RecruitmentRefused
from .payouts import RUNNERS, _log, _safe_call, _submissions_of, prolific_job_start
from .submissions import submission_mirror

Kind = ProlificAction.Kind
SCREENED_OUT = ProlificSubmission.Status.SCREENED_OUT


def _submission_of(annotator: Annotator) -> ProlificSubmission | None:
    """The annotator's latest Prolific submission in a pool whose launch pays screen-outs."""
    return (
        ProlificSubmission.objects.filter(
            session__annotator=annotator, prolific_study__screen_out_reward__isnull=False
        )
        .exclude(prolific_study__prolific_id="")
        .select_related("prolific_study__pool__study")
        .order_by("-pk")
        .first()
    )


def screen_out_offer(annotator: Annotator) -> ScreenOut | None:
    """The fixed reward the annotator is paid on being screened out, or None (they return instead)."""
    row = (
        ProlificSubmission.objects.filter(
            session__annotator=annotator, prolific_study__screen_out_reward__isnull=False
        )
        .exclude(prolific_study__prolific_id="")
        .order_by("-pk")
        .values_list("prolific_study__screen_out_reward", "prolific_study__currency")
        .first()
    )
    if row is None:
        return None
    reward, currency = row
    return ScreenOut(reward=money(reward, currency or "GBP"))


def screen_out_start(annotator: Annotator) -> ProlificJob | None:
    """Queue the screen-out of the annotator's submission (once: not while a screen-out job of it exists)."""
    sub = _submission_of(annotator)
    if sub is None or sub.status == SCREENED_OUT:
        return None
    if ProlificJob.objects.filter(kind=Kind.SCREEN_OUT, submissions=sub).exists():
        return None
    row = sub.prolific_study
    return prolific_job_start(prolific_study=row, user=row.pool.study.owner, kind=Kind.SCREEN_OUT, submissions=[sub])


def _run_screen_out(job: ProlificJob, client: ProlificClient) -> str:
    subs = _submissions_of(job)
    if len(subs) != 1:
        raise RecruitmentRefused("a screen-out takes one submission")
    sub, row = subs[0], job.prolific_study
    if row.screen_out_reward is None:
        raise RecruitmentRefused("this pool's launch does not pay screen-outs")
    current = _safe_call(job, Kind.SCREEN_OUT, sub.prolific_id, lambda: client.submission_get(sub.prolific_id))
    submission_mirror(sub, current)
    if current.status == SCREENED_OUT:
        return f"{sub.participant_id}: already screened out on Prolific."
    if current.status != ProlificSubmission.Status.ACTIVE:
        raise RecruitmentRefused(
            f"{sub.participant_id} was not screened out: their submission is {sub.get_status_display().lower()} "
            "on Prolific (only an active one can be)"
        )
    reward = row.screen_out_reward
    try:
        answer = _safe_call(job, Kind.SCREEN_OUT, sub.prolific_id,
                            lambda: client.screen_out(row.prolific_id, [sub.prolific_id], reward=reward))
    except ProlificRequestError:
        current = client.submission_get(sub.prolific_id)  # a repeat after an answer lost on the way
        submission_mirror(sub, current)
        if current.status != SCREENED_OUT:
            raise
        answer = current.raw
    after = client.submission_get(sub.prolific_id)
    submission_mirror(sub, after)
    _log(job, Kind.SCREEN_OUT, target=sub.prolific_id, ok=True,
         answer={"answer": answer, "reward": reward, "status": after.status})
    return f"{sub.participant_id}: screened out on Prolific, paid {money(reward, row.currency or 'GBP')}."


RUNNERS[Kind.SCREEN_OUT] = _run_screen_out

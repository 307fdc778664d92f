"""A researcher walks their own study as Prolific sends it, before publishing (issue 28, part 2).

- **On Prolific** (``prolific_test_study_create``), where the workspace has Prolific's test
  participants (a beta: ``POST /researchers/participants/ {email}`` and ``POST
  /studies/{id}/test-study/``): the researcher's test participant (made once for their account's
  email, then reused) and a test copy of the pool's draft, published to test participants only. Its
  STUDY_ID is kept (``ProlificStudy.test_study_id``): the entry check answers "test" for it
  (``recruitment.entry``), and the entry link sends the test participant to the pool's path preview,
  where nothing is stored. Refused before anything is sent: a pool not on Prolific, a study that is
  no longer a draft (Prolific tests drafts only), an account without an email. Prolific's refusal
  (a 403 where the workspace does not have the feature) is raised with its message. Each call is
  logged (``ProlificAction`` ``test_study``).
- **Here, always**: the pool's test entry link (``annotation.trial_entry``), signed by the site, with
  test ids; walked in the same path preview.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from studies.models import CountryPool

from ..models import ProlificAction, ProlificStudy
from ..prolific import ProlificError
from ..tokens import client_for
from .launch import RecruitmentRefused, action_log

Kind = ProlificAction.Kind


@dataclass(frozen=True)
class TrialStudy:
    participant_id: str  # the researcher's Prolific test participant
    study_id: str  # Prolific's test copy of the draft
    study_url: str  # where the test participant takes it on Prolific


def _draft(pool: CountryPool) -> ProlificStudy:
    row = ProlificStudy.objects.filter(pool=pool).exclude(prolific_id="").select_related("pool").first()
    if row is None:
        raise RecruitmentRefused(f"{pool.country_name} is not on Prolific: launch it as a draft first.")
    if row.status != ProlificStudy.Status.UNPUBLISHED:
        raise RecruitmentRefused(
            f"{pool.country_name}'s study is {row.get_status_display().lower()} on Prolific: Prolific makes test "
            "studies of drafts only. Walk it with the test link here instead."
        )
    return row


def _known_participant(user: AbstractBaseUser) -> str:
    """The test participant made earlier for this researcher (on any of their pools), or ""."""
    return (
        ProlificStudy.objects.filter(pool__study__owner=user).exclude(test_participant_id="")
        .values_list("test_participant_id", flat=True).first() or ""
    )


def prolific_test_study_create(*, pool: CountryPool, user: AbstractBaseUser) -> TrialStudy:
    """The researcher's Prolific test participant (made or reused) and a test copy of the pool's draft."""
    row = _draft(pool)
    email = (getattr(user, "email", "") or "").strip()
    if not email:
        raise RecruitmentRefused("Your account has no email address: Prolific makes a test participant for an email.")
    participant = row.test_participant_id or _known_participant(user)
    with client_for(user=user) as client:
        if not participant:
            participant = _logged(row, user, "test participant",
                                  lambda: client.test_participant_create(email))
            if not participant:
                raise RecruitmentRefused("Prolific made no test participant (its answer named none).")
        answer = _logged(row, user, row.prolific_id, lambda: client.study_test_create(row.prolific_id))
    test_id = str(answer.get("study_id") or answer.get("id") or "")
    if not test_id:
        raise RecruitmentRefused("Prolific made no test study (its answer named none).")
    row.test_participant_id, row.test_study_id = participant, test_id
    row.save(update_fields=["test_participant_id", "test_study_id"])
    return TrialStudy(participant_id=participant, study_id=test_id, study_url=str(answer.get("study_url") or ""))


def _logged(row: ProlificStudy, user: AbstractBaseUser, target: str, call):
    try:
        answer = call()
    except ProlificError as exc:
        action_log(row=row, kind=Kind.TEST_STUDY, user=user, target=target, ok=False, error=exc)
        raise
    action_log(row=row, kind=Kind.TEST_STUDY, user=user, target=target, ok=True,
               answer=answer if isinstance(answer, dict) else {"participant_id": answer})
    return answer

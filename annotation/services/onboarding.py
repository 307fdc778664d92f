"""Onboarding: consent, eligibility screening, instructions and the practice test.

Each step's rule is a pure function over an annotator held in memory (``*_apply``, ``mock_grade``),
which the services here store and the researcher's path preview (``annotation.path_preview``) keeps
in its browser session instead: one rule, two keepers.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from studies.models import MockQuestion

from ..extensions import screen_out_request
from ..models import Annotator, MockAttempt


def consent_apply(annotator: Annotator, *, agree: bool, now: datetime) -> list[str]:
    """The consent answer's effect on ``annotator`` (in memory): the fields it changed. A pool that
    asks no eligibility question has no such step: its annotator is eligible on consenting."""
    if annotator.outcome or annotator.consented_at:
        return []
    if agree:
        annotator.consented_at = now
        if not annotator.pool.eligibility_questions():
            annotator.eligibility, annotator.eligible_at = {}, now
            return ["consented_at", "eligibility", "eligible_at"]
        return ["consented_at"]
    annotator.outcome = Annotator.Outcome.NO_CONSENT
    return ["outcome"]


def annotator_consent(*, annotator: Annotator, agree: bool, now: datetime | None = None) -> None:
    changed = consent_apply(annotator, agree=agree, now=now or timezone.now())
    if changed:
        annotator.save(update_fields=changed)


def screen_apply(annotator: Annotator, *, answers: dict[str, bool], now: datetime) -> list[str]:
    """The eligibility answers' effect on ``annotator`` (in memory): any "no" to a question the pool
    asks ends the study politely. Returns the fields it changed."""
    if annotator.outcome or annotator.eligible_at:
        return []
    asked = [key for key, _ in annotator.pool.eligibility_questions()]
    annotator.eligibility = {key: bool(answers[key]) for key in asked}
    if all(annotator.eligibility.values()):
        annotator.eligible_at = now
    else:
        annotator.outcome = Annotator.Outcome.NOT_ELIGIBLE
    return ["eligibility", "eligible_at", "outcome"]


def annotator_screen(*, annotator: Annotator, answers: dict[str, bool], now: datetime | None = None) -> bool:
    """Record the eligibility answers; any "no" to a question the pool asks ends the study politely
    (with a paid screen-out where the recruiting platform offers one: ``extensions.screen_out_request``)."""
    changed = screen_apply(annotator, answers=answers, now=now or timezone.now())
    if changed:
        annotator.save(update_fields=changed)
        if annotator.outcome == Annotator.Outcome.NOT_ELIGIBLE:
            screen_out_request(annotator)
    return annotator.eligible_at is not None


def instructions_apply(annotator: Annotator, *, now: datetime) -> list[str]:
    """Mark the instructions read (in memory); without a practice test to take, the annotator is
    cleared to annotate. Returns the fields it changed."""
    if annotator.instructions_read_at is not None:
        return []
    annotator.instructions_read_at = now
    changed = ["instructions_read_at"]
    if annotator.cleared_at is None and not annotator.study.mock_questions.exists():
        annotator.cleared_at = annotator.instructions_read_at
        changed.append("cleared_at")
    return changed


def annotator_read_instructions(*, annotator: Annotator, now: datetime | None = None) -> None:
    """Mark the instructions read; without a practice test to take, the annotator is cleared to annotate."""
    changed = instructions_apply(annotator, now=now or timezone.now())
    if changed:
        annotator.save(update_fields=changed)


def mock_grade(questions: Iterable[MockQuestion], answers: dict[int, str]) -> tuple[int, int, bool]:
    """One attempt at the practice test graded: (correct, total, passed); every answer must be right."""
    questions = list(questions)
    correct = sum(1 for q in questions if answers.get(q.id) == q.expected)
    return correct, len(questions), correct == len(questions)


def mock_attempt_apply(annotator: Annotator, *, passed: bool, now: datetime) -> list[str]:
    """An attempt's effect on ``annotator`` (in memory), once its attempt was counted: a pass clears
    them; the last allowed attempt failed ends the study. Returns the fields it may change."""
    if passed:
        annotator.mock_passed_at = annotator.cleared_at = now
    elif annotator.mock_attempts >= annotator.study.mock_attempts_allowed:
        annotator.outcome = Annotator.Outcome.FAILED_MOCK
    return ["mock_passed_at", "cleared_at", "outcome"]


def mock_submit(*, annotator: Annotator, answers: dict[int, str], questions=None) -> MockAttempt:
    """Grade one attempt at the practice test: every answer to ``questions`` (the attempt's draw; None:
    every question of the study) must be right; attempts are limited."""
    study = annotator.study
    correct, total, passed = mock_grade(study.mock_questions.all() if questions is None else questions, answers)
    with transaction.atomic():
        # The attempt counter is bumped conditionally so two tabs cannot both use the last attempt.
        taken = Annotator.objects.filter(
            pk=annotator.pk, outcome="", mock_passed_at__isnull=True, mock_attempts__lt=study.mock_attempts_allowed
        ).update(mock_attempts=F("mock_attempts") + 1)
        if not taken:
            annotator.refresh_from_db()
            return MockAttempt(annotator=annotator, answers={}, correct=0, total=total, passed=False)
        attempt = MockAttempt.objects.create(
            annotator=annotator,
            answers={str(k): v for k, v in answers.items()},
            correct=correct,
            total=total,
            passed=passed,
        )
        annotator.refresh_from_db()
        annotator.save(update_fields=mock_attempt_apply(annotator, passed=passed, now=timezone.now()))
    return attempt

"""Onboarding: consent, eligibility screening, instructions and the mock test."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from ..models import Annotator, MockAttempt


def annotator_consent(*, annotator: Annotator, agree: bool, now: datetime | None = None) -> None:
    if annotator.outcome or annotator.consented_at:
        return
    if agree:
        annotator.consented_at = now or timezone.now()
        annotator.save(update_fields=["consented_at"])
    else:
        annotator.outcome = Annotator.Outcome.NO_CONSENT
        annotator.save(update_fields=["outcome"])


def annotator_screen(*, annotator: Annotator, answers: dict[str, bool], now: datetime | None = None) -> bool:
    """Record the eligibility answers; any "no" to a question the pool asks ends the study politely."""
    if annotator.outcome or annotator.eligible_at:
        return annotator.eligible_at is not None
    asked = [key for key, _ in annotator.pool.eligibility_questions()]
    annotator.eligibility = {key: bool(answers[key]) for key in asked}
    if all(annotator.eligibility.values()):
        annotator.eligible_at = now or timezone.now()
    else:
        annotator.outcome = Annotator.Outcome.NOT_ELIGIBLE
    annotator.save(update_fields=["eligibility", "eligible_at", "outcome"])
    return annotator.eligible_at is not None


def annotator_read_instructions(*, annotator: Annotator, now: datetime | None = None) -> None:
    """Mark the instructions read; without a practice test to take, the annotator is cleared to annotate."""
    if annotator.instructions_read_at is None:
        annotator.instructions_read_at = now or timezone.now()
        fields = ["instructions_read_at"]
        if annotator.cleared_at is None and not annotator.study.mock_questions.exists():
            annotator.cleared_at = annotator.instructions_read_at
            fields.append("cleared_at")
        annotator.save(update_fields=fields)


def mock_submit(*, annotator: Annotator, answers: dict[int, str]) -> MockAttempt:
    """Grade one attempt at the mock test: every answer must be right; attempts are limited."""
    study = annotator.study
    questions = list(study.mock_questions.all())
    correct = sum(1 for q in questions if answers.get(q.id) == q.expected)
    passed = correct == len(questions)
    with transaction.atomic():
        # The attempt counter is bumped conditionally so two tabs cannot both use the last attempt.
        taken = Annotator.objects.filter(
            pk=annotator.pk, outcome="", mock_passed_at__isnull=True, mock_attempts__lt=study.mock_attempts_allowed
        ).update(mock_attempts=F("mock_attempts") + 1)
        if not taken:
            annotator.refresh_from_db()
            return MockAttempt(annotator=annotator, answers={}, correct=0, total=len(questions), passed=False)
        attempt = MockAttempt.objects.create(
            annotator=annotator,
            answers={str(k): v for k, v in answers.items()},
            correct=correct,
            total=len(questions),
            passed=passed,
        )
        annotator.refresh_from_db()
        if passed:
            annotator.mock_passed_at = annotator.cleared_at = timezone.now()
        elif annotator.mock_attempts >= study.mock_attempts_allowed:
            annotator.outcome = Annotator.Outcome.FAILED_MOCK
        annotator.save(update_fields=["mock_passed_at", "cleared_at", "outcome"])
    return attempt

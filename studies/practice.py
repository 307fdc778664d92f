"""The practice test (``MockQuestion``): its rules and its state changes. A question asks about one
of the study's example items; its expected answer is one of its choices; its feedback, shown after
a wrong answer, should not name the right choice (the next attempt would only copy it)."""

from __future__ import annotations

import re

from django.db import transaction
from django.db.models import Max

from .models import Item, ItemQuota, MockQuestion, Study
from .protocol.schedule import schedule_rng
from .services import WorkspaceError, quotas_for_items

MAX_ATTEMPTS = 10
MAX_PER_ATTEMPT = 50


def attempt_questions(questions: list, *, per_attempt: int | None, seed: object, attempt: int) -> list:
    """The practice questions of attempt ``attempt`` (0 for the first) of one annotator (``seed``):
    every question when ``per_attempt`` is empty or not fewer than them; else ``per_attempt`` of them,
    drawn afresh for each attempt, those no earlier attempt asked first (while there are enough), in
    the questions' order. The same for the same seed and attempt: a reload asks the same questions."""
    if not per_attempt or per_attempt >= len(questions):
        return list(questions)
    asked: set = set()
    drawn: list = []
    for n in range(attempt + 1):
        rng = schedule_rng(f"{seed}:{n}", "practice")
        fresh = [q for q in questions if q.pk not in asked]
        if len(fresh) >= per_attempt:
            drawn = rng.sample(fresh, per_attempt)
        else:
            seen = [q for q in questions if q.pk in asked]
            drawn = fresh + rng.sample(seen, per_attempt - len(fresh))
        asked |= {q.pk for q in drawn}
    chosen = {q.pk for q in drawn}
    return [q for q in questions if q.pk in chosen]


def shown_feedback(question: MockQuestion) -> str:
    """The note an annotator reads after getting ``question`` wrong: its feedback, unless the feedback
    names the expected answer (the next attempt would only copy it); then none."""
    if feedback_names_answer(question.explanation, question.expected):
        return ""
    return question.explanation


def feedback_names_answer(feedback: str, expected: str) -> bool:
    """Does the feedback name the expected choice: its text as a whole word or phrase, in any case
    and spacing ("completely" names "Completely"; "incompletely" does not)?"""
    words = expected.split()
    if not words or not feedback:
        return False
    phrase = r"\s+".join(re.escape(w) for w in words)
    return re.search(rf"(?<!\w){phrase}(?!\w)", feedback, flags=re.IGNORECASE) is not None


def choices_problem(choices: list[str]) -> str | None:
    """Why these choices cannot make a question, or None: two at least, none empty, none twice."""
    if len(choices) < 2:
        return "Give at least two choices, one per line."
    if any(not c for c in choices):
        return "A choice cannot be empty."
    if len({c.casefold() for c in choices}) != len(choices):
        return "Each choice must differ from the others."
    return None


def mock_question_save(
    *, study: Study, item: Item, text: str, choices: list[str], expected: str, explanation: str,
    question: MockQuestion | None = None,
) -> MockQuestion:
    """Add a practice question to the study, or change ``question``. The item must be one of the
    study's example items; the expected answer one of the choices (``WorkspaceError`` names the
    field, and nothing changes)."""
    if item.study_id != study.pk or not item.is_example:
        raise WorkspaceError("Choose one of this study's example items.", field="item")
    if problem := choices_problem(choices):
        raise WorkspaceError(problem, field="choices")
    if expected not in choices:
        raise WorkspaceError("The expected answer must be one of the choices.", field="expected")
    assert question is None or question.study_id == study.pk
    with transaction.atomic():
        if question is None:
            last = study.mock_questions.aggregate(last=Max("position"))["last"]
            question = MockQuestion(study=study, position=(last or 0) + 1)
        question.item, question.text, question.choices = item, text, list(choices)
        question.expected, question.explanation = expected, explanation
        question.save()
    return question


def mock_question_delete(*, question: MockQuestion) -> None:
    """Remove a practice question; attempts already graded keep their counts."""
    question.delete()


def study_set_mock_attempts(*, study: Study, attempts: int, per_attempt: int | None = None) -> Study:
    """How many attempts an annotator has at the practice test (1 to ``MAX_ATTEMPTS``), and how many
    questions each draws (None: every question)."""
    if not 1 <= attempts <= MAX_ATTEMPTS:
        raise WorkspaceError(f"Allow from 1 to {MAX_ATTEMPTS} attempts.", field="attempts")
    if per_attempt is not None and not 1 <= per_attempt <= MAX_PER_ATTEMPT:
        raise WorkspaceError(f"Ask from 1 to {MAX_PER_ATTEMPT} questions an attempt, or leave it empty.",
                             field="per_attempt")
    study.mock_attempts_allowed = attempts
    study.mock_questions_per_attempt = per_attempt
    study.save(update_fields=["mock_attempts_allowed", "mock_questions_per_attempt"])
    return study


def item_set_example(*, item: Item, example: bool) -> Item:
    """Make an item an example of the practice test (never assigned) or an item annotators answer.

    An item already leased to an annotator stays what it is: it is in their data. An example an
    annotator never saw loses its quotas; an item made answerable again gets one per pool it is
    routed to. An example a practice question uses stays an example.
    """
    if example == item.is_example:
        return item
    if example and item.check_kind:
        raise WorkspaceError(f"Item {item.external_id} is a quality check item: make it ordinary first.", field="item")
    with transaction.atomic():
        if example:
            # ``assignments`` is the reverse of annotation.Assignment.item: asked, never imported.
            if item.assignments.exists():
                raise WorkspaceError(
                    f"Item {item.external_id} was given to annotators already, so it cannot become an example.",
                    field="item",
                )
            # Only quotas with nothing done or leased go; one leased meanwhile is kept and refuses.
            ItemQuota.objects.filter(item=item, done=0, leased=0).delete()
            if ItemQuota.objects.filter(item=item).exists():
                raise WorkspaceError(f"Item {item.external_id} was just given to an annotator.", field="item")
        elif MockQuestion.objects.filter(item=item).exists():
            raise WorkspaceError(
                f"Item {item.external_id} is the example of a practice question: remove the question first.",
                field="item",
            )
        Item.objects.filter(pk=item.pk).update(is_example=example)
        item.is_example = example
        if not example:
            quotas_for_items(items=[item])
    return item

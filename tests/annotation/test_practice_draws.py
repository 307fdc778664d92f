"""The practice test no longer gives the right answer away: after a wrong answer it shows the rule
(never feedback that names the option, never which option was wrong), and a retry draws other
questions when the study asks fewer per attempt than it has."""

from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotator, MockAttempt
from studies.models import MockQuestion, Study
from studies.practice import attempt_questions
from tests import factories as f
from tests.helpers import as_annotator, login


def questions(study, n=4):
    return [
        MockQuestion.objects.create(
            study=study, item=f.make_item(study, example=True), position=i, text=f"Question {i}?",
            choices=["No", "Partially", "Completely"], expected="Completely",
            explanation=f"Rule {i}: look at every element of the prompt.",
        )
        for i in range(n)
    ]


def on_practice(client, pool):
    annotator = f.make_annotator(pool, onboarded=False)
    Annotator.objects.filter(pk=annotator.pk).update(consented_at=timezone.now(), eligible_at=timezone.now(),
                                                     instructions_read_at=timezone.now())
    as_annotator(client, f.make_session(annotator))
    return annotator


def asked(page: str, qs) -> list[int]:
    return [q.pk for q in qs if f'name="q{q.pk}"' in page]


def test_every_question_every_attempt_by_default(study):
    qs = questions(study)
    assert attempt_questions(qs, per_attempt=None, seed=1, attempt=0) == qs
    assert attempt_questions(qs, per_attempt=9, seed=1, attempt=3) == qs


def test_a_retry_draws_questions_not_asked_before_while_there_are_enough(study):
    qs = questions(study, 5)
    for seed in range(20):
        first = attempt_questions(qs, per_attempt=2, seed=seed, attempt=0)
        second = attempt_questions(qs, per_attempt=2, seed=seed, attempt=1)
        third = attempt_questions(qs, per_attempt=2, seed=seed, attempt=2)
        assert len(first) == len(second) == len(third) == 2
        assert not {q.pk for q in first} & {q.pk for q in second}
        # one fresh question is left for the third: it is asked, with one asked before
        assert len({q.pk for q in third} - {q.pk for q in first + second}) == 1
        assert first == attempt_questions(qs, per_attempt=2, seed=seed, attempt=0)  # a reload asks the same
    draws = {tuple(q.pk for q in attempt_questions(qs, per_attempt=2, seed=s, attempt=0)) for s in range(20)}
    assert len(draws) > 3  # annotators get different questions


def test_a_failed_attempt_shows_the_rules_and_new_blank_questions(client, study, pool, items):
    study.mock_questions_per_attempt = 2
    study.save()
    qs = questions(study)
    on_practice(client, pool)
    page = client.get(reverse("annotation:mock")).content.decode()
    first = asked(page, qs)
    assert len(first) == 2
    wrong, right = first
    response = client.post(reverse("annotation:mock"), {f"q{wrong}": "Partially", f"q{right}": "Completely"})
    page = response.content.decode()
    assert response.status_code == 422 and "You answered 1 of 2 correctly" in page
    rule = MockQuestion.objects.get(pk=wrong)
    assert f"{rule.text}</strong> <span dir=\"auto\">{rule.explanation}</span>" in page
    assert MockQuestion.objects.get(pk=right).explanation not in page  # only the wrong one's rule
    second = asked(page, qs)
    assert len(second) == 2 and not set(second) & set(first)  # other questions
    assert " checked" not in page.split('id="practice-feedback"')[1]  # nothing pre-selected
    assert MockAttempt.objects.get().answers == {str(wrong): "Partially", str(right): "Completely"}


def test_feedback_that_names_the_right_option_is_never_shown(client, study, pool, items):
    (q,) = questions(study, 1)
    q.explanation = "The right answer is Completely."
    q.save()
    on_practice(client, pool)
    page = client.post(reverse("annotation:mock"), {f"q{q.pk}": "No"}).content.decode()
    assert "The right answer is Completely" not in page
    assert "Read what the instructions say about this question again." in page


def test_only_the_attempt_s_questions_are_graded(client, study, pool, items):
    study.mock_questions_per_attempt = 2
    study.save()
    qs = questions(study)
    annotator = on_practice(client, pool)
    page = client.get(reverse("annotation:mock")).content.decode()
    response = client.post(reverse("annotation:mock"), {f"q{pk}": "Completely" for pk in asked(page, qs)})
    assert response.status_code == 302
    annotator.refresh_from_db()
    assert annotator.mock_passed_at is not None and annotator.mock_attempts == 1


def test_the_researcher_sets_the_questions_per_attempt(client, owner, study):
    login(client, owner)
    url = reverse("studies:practice-attempts", args=[study.pk])
    assert client.post(url, {"attempts": "3", "per_attempt": "2"}).status_code == 302
    assert Study.objects.get(pk=study.pk).mock_questions_per_attempt == 2
    assert client.post(url, {"attempts": "3", "per_attempt": ""}).status_code == 302
    assert Study.objects.get(pk=study.pk).mock_questions_per_attempt is None
    response = client.post(url, {"attempts": "3", "per_attempt": "0"})
    assert response.status_code == 400 and "per_attempt" in response.context["attempts_form"].errors
    assert Study.objects.get(pk=study.pk).mock_questions_per_attempt is None

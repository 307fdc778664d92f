"""The practice-test editor: questions on this study's example items, the expected answer one of
the choices, feedback that names it saved only once confirmed, attempts, examples; owner only."""

import pytest
from django.conf import settings
from django.urls import reverse

from studies.models import ItemQuota, MockQuestion, Study
from studies.practice import feedback_names_answer
from tests import factories as f
from tests.helpers import as_annotator, login


def url(name, study, *args) -> str:
    return reverse(f"studies:{name}", args=[study.pk, *args])


def question_data(item, **overrides) -> dict:
    data = {
        "item": str(item.pk),
        "text": "Does the image match the prompt?",
        "choices": "No\nPartially\n  Completely  \n\n",
        "expected": "partially",
        "explanation": "The bicycle is there, but it is blue, not red.",
    }
    data.update(overrides)
    return data


@pytest.fixture
def example(study):
    return f.make_item(study, example=True, prompt="A red bicycle")


@pytest.fixture
def question(study):
    return f.make_mock_question(study)


# --- the rule (pure) -------------------------------------------------------------------------------


@pytest.mark.parametrize("feedback, expected, names", [
    ("The answer is Completely: everything is shown.", "Completely", True),
    ("it is COMPLETELY shown", "completely", True),
    ("It is shown only incompletely.", "Completely", False),
    ("Look for the   red  bicycle", "Red Bicycle", True),
    ("Nothing to see.", "No", False),
    ("No: the bicycle is blue.", "No", True),
    ("", "No", False),
])
def test_feedback_names_the_answer_as_a_whole_word_or_phrase(feedback, expected, names):
    assert feedback_names_answer(feedback, expected) is names


# --- the pages ---------------------------------------------------------------------------------------


def test_the_list_shows_the_questions_the_attempts_and_the_examples(client, owner, study, question):
    response = login(client, owner).get(url("practice", study))
    page = response.content.decode()
    assert response.status_code == 200
    assert question.text in page and "No, Partially, Completely" in page
    assert url("practice-edit", study, question.pk) in page and url("practice-delete", study, question.pk) in page
    assert response.context["attempts_form"].initial["attempts"] == 2
    assert question.item.external_id in page


def test_it_adds_a_question_with_choices_one_per_line(client, owner, study, example):
    response = login(client, owner).post(url("practice-add", study), question_data(example))
    assert response.status_code == 302 and response.url == url("practice", study)
    q = MockQuestion.objects.get(study=study)
    assert q.item == example and q.choices == ["No", "Partially", "Completely"]
    assert q.expected == "Partially"  # as the choice is spelled
    assert q.explanation.startswith("The bicycle is there")


def test_it_edits_a_question(client, owner, study, question):
    login(client, owner)
    assert client.get(url("practice-edit", study, question.pk)).context["form"].initial["choices"] == (
        "No\nPartially\nCompletely"
    )
    data = question_data(question.item, text="Is it a bicycle?", choices="Yes\nNo", expected="Yes", explanation="")
    assert client.post(url("practice-edit", study, question.pk), data).status_code == 302
    question.refresh_from_db()
    assert (question.text, question.choices, question.expected) == ("Is it a bicycle?", ["Yes", "No"], "Yes")
    assert MockQuestion.objects.count() == 1


def test_it_removes_a_question(client, owner, study, question):
    response = login(client, owner).post(url("practice-delete", study, question.pk))
    assert response.status_code == 302 and not MockQuestion.objects.exists()


@pytest.mark.parametrize("field, overrides, message", [
    ("expected", {"expected": "Maybe"}, "must be one of the choices"),
    ("choices", {"choices": "Only one"}, "at least two choices"),
    ("choices", {"choices": "Yes\nyes"}, "must differ"),
    ("text", {"text": ""}, "This field is required."),
])
def test_it_refuses_bad_input_next_to_the_field(client, owner, study, example, field, overrides, message):
    response = login(client, owner).post(url("practice-add", study), question_data(example, **overrides))
    assert response.status_code == 400
    assert any(message in e for e in response.context["form"].errors[field])
    assert not MockQuestion.objects.exists()


def test_it_refuses_an_item_of_another_study(client, owner, other_researcher, study):
    theirs = f.make_item(f.make_study(other_researcher, name="Theirs"), example=True)
    mine_elsewhere = f.make_item(f.make_study(owner, name="My other study"), example=True)
    login(client, owner)
    for item in (theirs, mine_elsewhere):
        response = client.post(url("practice-add", study), question_data(item))
        assert response.status_code == 400 and "item" in response.context["form"].errors
    assert not MockQuestion.objects.exists()


def test_it_refuses_an_item_that_is_not_an_example(client, owner, study, items):
    response = login(client, owner).post(url("practice-add", study), question_data(items[0]))
    assert response.status_code == 400 and "item" in response.context["form"].errors


def test_an_edit_keeps_the_question_when_refused(client, owner, study, question):
    data = question_data(question.item, expected="Maybe")
    assert login(client, owner).post(url("practice-edit", study, question.pk), data).status_code == 400
    question.refresh_from_db()
    assert question.expected == "No"


def test_feedback_naming_the_answer_is_warned_and_saved_only_once_confirmed(client, owner, study, example):
    login(client, owner)
    data = question_data(example, explanation="It is partially right: the bicycle is blue.")
    response = client.post(url("practice-add", study), data)
    page = response.content.decode()
    assert response.status_code == 400
    assert "The feedback names the expected answer (“Partially”)" in page
    assert 'name="confirm_feedback"' in page
    assert not MockQuestion.objects.exists()
    assert client.post(url("practice-add", study), {**data, "confirm_feedback": "on"}).status_code == 302
    assert MockQuestion.objects.get().explanation.startswith("It is partially right")
    assert "annotators are shown a general note instead" in client.get(url("practice", study)).content.decode()


def test_it_sets_the_attempts_allowed_and_refuses_nonsense(client, owner, study):
    login(client, owner)
    assert client.post(url("practice-attempts", study), {"attempts": "3"}).status_code == 302
    response = client.post(url("practice-attempts", study), {"attempts": "0"})
    assert response.status_code == 400 and "attempts" in response.context["attempts_form"].errors
    assert Study.objects.get(pk=study.pk).mock_attempts_allowed == 3


def test_an_item_made_an_example_loses_its_quotas_and_back(client, owner, study, items, pool):
    item = items[0]
    login(client, owner)
    response = client.post(url("practice-example", study), {"item": item.external_id, "example": "1"})
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.is_example and not ItemQuota.objects.filter(item=item).exists()
    client.post(url("practice-example", study), {"item": item.external_id, "example": "0"})
    item.refresh_from_db()
    assert not item.is_example and ItemQuota.objects.filter(item=item, pool=pool).exists()


def test_an_item_given_to_annotators_cannot_become_an_example(client, owner, study, items, annotated):
    item = items[0]
    response = login(client, owner).post(url("practice-example", study), {"item": item.external_id, "example": "1"})
    assert response.status_code == 400
    assert "given to annotators already" in " ".join(response.context["example_form"].errors["item"])
    item.refresh_from_db()
    assert not item.is_example and ItemQuota.objects.filter(item=item).exists()


def test_an_example_in_use_stays_an_example(client, owner, study, question):
    data = {"item": question.item.external_id, "example": "0"}
    response = login(client, owner).post(url("practice-example", study), data)
    assert response.status_code == 400 and "remove the question first" in response.content.decode()


def test_an_item_of_another_study_cannot_be_named(client, owner, other_researcher, study):
    theirs = f.make_item(f.make_study(other_researcher, name="Theirs"), external_id="theirs-1")
    response = login(client, owner).post(url("practice-example", study), {"item": theirs.external_id, "example": "1"})
    assert response.status_code == 400 and "no item “theirs-1”" in response.content.decode()
    theirs.refresh_from_db()
    assert not theirs.is_example


# --- access ------------------------------------------------------------------------------------------


def every_request(study, question, example):
    return [
        ("get", url("practice", study), {}),
        ("get", url("practice-add", study), {}),
        ("post", url("practice-add", study), question_data(example)),
        ("get", url("practice-edit", study, question.pk), {}),
        ("post", url("practice-edit", study, question.pk), question_data(example, text="Changed?")),
        ("post", url("practice-delete", study, question.pk), {}),
        ("post", url("practice-attempts", study), {"attempts": "5"}),
        ("post", url("practice-example", study), {"item": example.external_id, "example": "0"}),
    ]


def unchanged(study, question):
    question.refresh_from_db()
    assert MockQuestion.objects.count() == 1 and question.text == "Does this image match the prompt?"
    assert Study.objects.get(pk=study.pk).mock_attempts_allowed == 2


def test_another_researcher_gets_404_everywhere(client, other_researcher, study, question, example):
    login(client, other_researcher)
    for method, path, data in every_request(study, question, example):
        assert getattr(client, method)(path, data).status_code == 404, path
    unchanged(study, question)


def test_an_annotator_gets_nothing(client, study, question, example, session):
    as_annotator(client, session)
    for method, path, data in every_request(study, question, example):
        response = getattr(client, method)(path, data)
        assert response.status_code == 302 and response.url.startswith(reverse(settings.LOGIN_URL)), path
    unchanged(study, question)


def test_a_question_of_another_study_is_404(client, owner, study, question):
    other = f.make_study(owner, name="Another")
    assert login(client, owner).get(url("practice-edit", other, question.pk)).status_code == 404


def test_the_list_reads_in_a_fixed_number_of_queries(client, owner, study, question, django_assert_num_queries):
    f.make_mock_question(study, text="And this one?")
    login(client, owner)
    with django_assert_num_queries(5):  # session, user, study, questions with their items, examples
        client.get(url("practice", study))


def test_a_viewer_reads_the_practice_test_and_the_protocol_without_their_buttons(client, study):
    f.make_mock_question(study)
    login(client, f.make_member(study, "viewer", "viewer"))
    page = client.get(reverse("studies:practice", args=[study.pk])).content.decode()
    assert "Does this image match the prompt?" in page and "Your role on this study is read-only" in page
    assert "Add a practice question" not in page and "Save the attempts" not in page and ">Remove<" not in page
    editor = client.get(reverse("studies:protocol-edit", args=[study.pk])).content.decode()
    assert "Save the protocol" not in editor and "you may try changes here, not save them" in editor

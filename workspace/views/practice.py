"""The practice-test editor: a study's practice questions listed, added, changed and removed, the
attempts allowed, and items made examples (or answerable again). Owner only (``study_for_user``);
every form refuses bad input next to its field and changes nothing."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from studies import practice
from studies.practice_forms import AttemptsForm, ExampleForm, MockQuestionForm
from studies.selectors import mock_question_for_user, study_for_user
from studies.services import WorkspaceError


@login_required
@require_GET
def practice_list(request, pk: int):
    study = study_for_user(request.user, pk)
    return _list_page(request, study)


@login_required
@require_http_methods(["GET", "POST"])
def practice_add(request, pk: int):
    study = study_for_user(request.user, pk, write=request.method == "POST")
    form = MockQuestionForm(request.POST or None, study=study)
    if request.method == "POST" and _saved(form, study):
        messages.success(request, "The practice question is added.")
        return redirect("studies:practice", study.pk)
    return _form_page(request, study, form)


@login_required
@require_http_methods(["GET", "POST"])
def practice_edit(request, pk: int, question_pk: int):
    question = mock_question_for_user(request.user, pk, question_pk, write=request.method == "POST")
    study = question.study
    initial = {
        "item": question.item_id, "text": question.text, "choices": "\n".join(map(str, question.choices)),
        "expected": question.expected, "explanation": question.explanation,
    }
    form = MockQuestionForm(request.POST or None, initial=initial, study=study)
    if request.method == "POST" and _saved(form, study, question):
        messages.success(request, "The practice question is saved.")
        return redirect("studies:practice", study.pk)
    return _form_page(request, study, form, question=question)


@login_required
@require_POST
def practice_delete(request, pk: int, question_pk: int):
    question = mock_question_for_user(request.user, pk, question_pk, write=True)
    practice.mock_question_delete(question=question)
    messages.success(request, "The practice question is removed.")
    return redirect("studies:practice", pk)


@login_required
@require_POST
def practice_attempts(request, pk: int):
    study = study_for_user(request.user, pk, write=True)
    form = AttemptsForm(request.POST)
    if not form.is_valid():
        return _list_page(request, study, attempts_form=form)
    practice.study_set_mock_attempts(study=study, attempts=form.cleaned_data["attempts"],
                                     per_attempt=form.cleaned_data.get("per_attempt"))
    each = (f", {study.mock_questions_per_attempt} question(s) each" if study.mock_questions_per_attempt
            else ", every question in each")
    messages.success(request, f"Annotators have {study.mock_attempts_allowed} attempt(s) at the practice test{each}.")
    return redirect("studies:practice", study.pk)


@login_required
@require_POST
def practice_example(request, pk: int):
    study = study_for_user(request.user, pk, write=True)
    form = ExampleForm(request.POST, study=study)
    if form.is_valid():
        try:
            item = practice.item_set_example(item=form.cleaned_data["item"], example=form.cleaned_data["example"])
        except WorkspaceError as refused:
            form.add_error("item", str(refused))
        else:
            state = "an example" if item.is_example else "an item to annotate"
            messages.success(request, f"Item {item.external_id} is {state}.")
            return redirect("studies:practice", study.pk)
    return _list_page(request, study, example_form=form)


def _saved(form: MockQuestionForm, study, question=None) -> bool:
    if not form.is_valid():
        return False
    try:
        practice.mock_question_save(study=study, question=question, **form.values())
    except WorkspaceError as refused:
        form.add_error(refused.field, str(refused))
        return False
    return True


def _list_page(request, study, *, attempts_form=None, example_form=None):
    questions = list(study.mock_questions.select_related("item"))
    rows = [(q, practice.feedback_names_answer(q.explanation, q.expected)) for q in questions]
    return render(request, "studies/practice_list.html", {
        "study": study,
        "rows": rows,
        "examples": study.items.filter(is_example=True).order_by("external_id"),
        "attempts_form": attempts_form or AttemptsForm(initial={
            "attempts": study.mock_attempts_allowed, "per_attempt": study.mock_questions_per_attempt}),
        "example_form": example_form or ExampleForm(study=study),
    }, status=400 if (attempts_form or example_form) else 200)


def _form_page(request, study, form: MockQuestionForm, *, question=None):
    return render(
        request, "studies/practice_form.html", {"study": study, "form": form, "question": question},
        status=400 if form.errors else 200,
    )

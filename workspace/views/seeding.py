"""The researcher's page of a study that feeds another (``annotation.seeding``): a question study
makes answer items in one of the researcher's answer studies; a prompt filter's kept prompts are
counted and downloaded as a CSV to complete with images and import. What a study can feed is read
from its protocol (``seeding.study_feeds``). Members read the page and download; the owner and
editors create answer items, in a study they may change."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from annotation import seeding
from studies.models import Study
from studies.selectors import study_for_user

MIN_YES_DEFAULT = 2
KEPT_SHOWN = 20  # kept prompts listed on the page; the download has them all


class AnswerItemsForm(forms.Form):
    target = forms.ModelChoiceField(
        queryset=Study.objects.none(), label="Answer study", empty_label="Choose a study",
        help_text="One of your studies (owner or editor) that shows an item's question and asks for a written answer.",
        error_messages={"invalid_choice": "Choose one of your answer studies."},
    )

    def __init__(self, *args, user, source: Study, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["target"].queryset = seeding.answer_targets(user=user, source=source)


class KeptPromptsForm(forms.Form):
    min_yes = forms.IntegerField(
        label="Yes votes that keep a prompt", min_value=1, max_value=1000, initial=MIN_YES_DEFAULT,
        help_text="A prompt is kept once this many of its annotators said Yes.",
    )

    def min_yes_or_default(self) -> int | None:
        """The number asked for (the default before one is asked), or None while it is invalid."""
        if not self.is_bound:
            return MIN_YES_DEFAULT
        return self.cleaned_data["min_yes"] if self.is_valid() else None


@login_required
@require_GET
def seed(request, pk: int):
    study = study_for_user(request.user, pk)
    form = KeptPromptsForm(request.GET or None)
    return _page(request, study, kept_form=form, status=200 if form.min_yes_or_default() else 400)


@login_required
@require_POST
def seed_answer_items(request, pk: int):
    study = study_for_user(request.user, pk, write=True)
    form = AnswerItemsForm(request.POST, user=request.user, source=study)
    if seeding.study_feeds(study.spec).answer_items and form.is_valid():
        target = form.cleaned_data["target"]
        try:
            created = seeding.seed_answer_items(source=study, target=target)
        except seeding.SeedError as refused:
            form.add_error(None, f"Nothing was created: {refused}.")
        else:
            messages.success(request, f"Created {created} answer item(s) in “{target.name}”." if created else
                             f"Nothing new: every question written is already an item of “{target.name}”.")
            return redirect("annotation:seed", study.pk)
    return _page(request, study, answers_form=form, status=400)


@login_required
@require_GET
def seed_kept_prompts(request, pk: int):
    study = study_for_user(request.user, pk)
    form = KeptPromptsForm(request.GET)
    if not seeding.study_feeds(study.spec).kept_prompts or not form.is_valid():
        return _page(request, study, kept_form=form, status=400)
    kept = seeding.kept_prompts(source=study, min_yes=form.cleaned_data["min_yes"])
    name = f"{slugify(study.name) or 'study'}_kept-prompts_{timezone.localdate().isoformat()}.csv"
    response = StreamingHttpResponse(seeding.kept_prompts_lines(kept.rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _page(request, study: Study, *, answers_form=None, kept_form=None, status: int = 200):
    """The page, with what the study's protocol lets it feed: its forms (a refused one as it was
    sent) and their figures."""
    feeds = seeding.study_feeds(study.spec)
    context = {"study": study, "feeds": feeds}
    if feeds.answer_items:
        if answers_form is None:
            answers_form = AnswerItemsForm(user=request.user, source=study)
        context["answers_form"] = answers_form
        context["questions"] = seeding.questions_written(source=study)
    if feeds.kept_prompts:
        if kept_form is None:
            kept_form = KeptPromptsForm()
        min_yes = kept_form.min_yes_or_default()
        context["kept_form"] = kept_form
        context["kept"] = seeding.kept_prompts(source=study, min_yes=min_yes) if min_yes else None
        context["kept_shown"] = KEPT_SHOWN
    return render(request, "annotation/seed.html", context, status=status)

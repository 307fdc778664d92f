"""The researcher makes an item a quality check from its page: an attention check (a question of the
item tells which answer to give, in one of the offered wordings or their own) or a gold item (its
known answers given in the annotator's own form for the item, its field templates), or an ordinary
item again. Editors and the owner change; viewers see; anyone else gets 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.preview import item_preview_context
from annotation.views.items import form_data
from studies.checks import (
    INSTRUCTION_TEMPLATES,
    instructable_fields,
    instruction_of,
    item_set_attention,
    item_set_gold,
    item_unset_check,
)
from studies.protocol import bind, validate
from studies.selectors import study_for_user
from studies.services import WorkspaceError

GOLD_FIELDS = "_gold_fields"  # the form's list of the questions whose answers are compared


def check_card_context(study, item) -> dict:
    """What the item page's "Quality check" card shows: the item's kind, its instruction or known
    answers, and the attention check's choices (questions with fixed answers, the wordings)."""
    spec = study.spec
    answers = []
    for key, value in (item.expected or {}).items():
        f = next((f for f in spec.fields if f.key == key), None)
        if f is not None:
            answers.append((f.label, f.kind.show_answer(f, value).text))
    return {
        "check_instruction": instruction_of(item),
        "check_answers": answers,
        "instructable": [
            (f, [(c.value, c.label) for c in f.choices]) for f in instructable_fields(spec)
        ],
        "wordings": list(enumerate(INSTRUCTION_TEMPLATES)),
    }


def _item(request, pk: int, item_pk: int):
    study = study_for_user(request.user, pk, write=True)
    return study, get_object_or_404(study.items, pk=item_pk)


def _back(study, item):
    return redirect(reverse("annotation:study-item", args=[study.pk, item.pk]) + "#quality-check")


@login_required
@require_POST
def item_attention(request, pk: int, item_pk: int):
    """Make the item an attention check: the question, the answer it asks for, and its wording."""
    study, item = _item(request, pk, item_pk)
    field_key, _, value = request.POST.get("answer", "").partition(":")
    wording = request.POST.get("wording", "0")
    try:
        item_set_attention(item=item, field_key=field_key, value=value, text=request.POST.get("text", ""),
                           wording=int(wording) if wording.isdigit() else -1)
    except WorkspaceError as refused:
        messages.error(request, str(refused))
        return _back(study, item)
    messages.success(request, f"Item {item.external_id} is an attention check: sessions get it by their schedule.")
    return _back(study, item)


@login_required
@require_http_methods(["GET", "POST"])
def item_gold(request, pk: int, item_pk: int):
    """The annotator's form for the item: the researcher gives its known answers and ticks the
    questions to compare (free texts are not ticked at first: they rarely match word for word)."""
    study = study_for_user(request.user, pk, write=request.method == "POST")
    item = get_object_or_404(study.items.prefetch_related("documents"), pk=item_pk)
    spec, context = study.spec, item_preview_context(item)
    # This page loads no annotator script: boxes are typed as the numbers the box script would post;
    # a field that needs its script otherwise (a list of web addresses) is not offered.
    comparable = [
        f for f in spec.fields if f.kind.gold_problem(f) is None and (not f.kind.script or f.kind.draws_boxes)
    ]
    errors, data = None, {}
    if request.method == "POST":
        data = form_data(request)
        ticked = set(request.POST.getlist(GOLD_FIELDS))
        validation = validate(spec, data, context)
        if validation.ok:
            expected = {k: v for k, v in validation.answers.items() if k in ticked and v not in (None, "", [])}
            try:
                item_set_gold(item=item, expected=expected)
            except WorkspaceError as refused:
                messages.error(request, str(refused) if expected else "Tick at least one answered question to compare.")
            else:
                messages.success(request, f"Item {item.external_id} is a gold item with {len(expected)} known "
                                 f"answer{'s' if len(expected) != 1 else ''}.")
                return _back(study, item)
        else:
            errors = validation.errors
    else:
        ticked = set(item.expected or {}) or {f.key for f in comparable if not f.kind.free_text}
        data = {}
    return render(request, "annotation/item_gold.html", {
        "study": study, "item": item, "spec": spec,
        "fields": bind(spec, data, context, errors),
        "comparable": [(f, f.key in ticked) for f in comparable],
        "texts": context.texts,
        "image_url": reverse("studies:item-image", args=[study.pk, item.pk]) if item.image else "",
        "errors": errors,
    }, status=422 if errors else 200)


@login_required
@require_POST
def item_ordinary(request, pk: int, item_pk: int):
    study, item = _item(request, pk, item_pk)
    try:
        item_unset_check(item=item)
    except WorkspaceError as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, f"Item {item.external_id} is an ordinary item again, with its quotas.")
    return _back(study, item)

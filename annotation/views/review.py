"""The quality check's pages: the pools a user reviews, and a pool's next annotation to review,
swapped in by htmx (plain form posts and redirects without JavaScript)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from studies.files import image_response
from studies.selectors import pool_for_user, study_for_user

from ..context import shown_images
from ..effort import effort_summary
from ..models import Annotation, Review
from ..reviews import selectors, services
from ..reviews.access import ReviewScope, annotation_for_reviewer, pools_for_reviewer, scope_for_reviewer
from .items import ShownImage, display_parts

NOT_QUESTIONS = ("csrfmiddlewaretoken", services.OUTCOME, services.NOTE)


@login_required
@require_GET
def review_home(request):
    """Every pool the user reviews, in every study."""
    rows = selectors.pools_progress(pools_for_reviewer(request.user), request.user)
    return render(request, "annotation/review_list.html", {"rows": rows, "study": None})


@login_required
@require_GET
def review_study(request, pk: int):
    """The pools of one study the user reviews (the owner: all of them)."""
    rows = selectors.pools_progress(pools_for_reviewer(request.user).filter(study_id=pk), request.user)
    if not rows:
        raise Http404
    study = rows[0].pool.study
    try:  # a checker of one pool is no member: they review, they set nothing
        can_edit = study_for_user(request.user, pk).access.can_edit
    except Http404:
        can_edit = False
    return render(request, "annotation/review_list.html", {"rows": rows, "study": study, "can_edit": can_edit})


@login_required
@require_POST
def review_target(request, pk: int, pool_pk: int):
    """The pool's review target, set by an editor or the owner of the study."""
    pool = pool_for_user(request.user, pk, pool_pk, write=True)
    try:
        percent = int(request.POST.get("percent", ""))
        services.review_target_set(pool=pool, percent=percent)
    except (ValueError, services.ReviewTargetRefused):
        messages.error(request, f"{pool.country_name}: a review target is a whole percentage from 1 to 100.")
    else:
        messages.success(request, f"{pool.country_name}: the checkers aim to review {percent}% of its annotations.")
    return redirect("annotation:review-study", pk)


@login_required
@require_GET
def review_pool(request, pk: int, pool_pk: int):
    """The pool's next annotation to review, drawn at random; a clear page when none is left."""
    scope = scope_for_reviewer(request.user, pk, pool_pk)
    return _panel(request, scope, selectors.review_next(scope))


@login_required
@require_POST
def review_submit(request, pk: int, pool_pk: int, annotation_pk: int):
    scope = scope_for_reviewer(request.user, pk, pool_pk)
    annotation = annotation_for_reviewer(scope, annotation_pk)
    data = {k: request.POST.getlist(k) for k in request.POST if k not in NOT_QUESTIONS}
    note = request.POST.get(services.NOTE, "")
    result = services.review_submit(
        annotation=annotation, reviewer=request.user, outcome=request.POST.get(services.OUTCOME, ""), data=data,
        note=note,
    )
    if not result.ok:
        return _panel(request, scope, annotation, data=data, note=note, errors=result.errors, status=422)
    level, notice = _notice(result, request.user)
    if not request.headers.get("HX-Request"):
        messages.add_message(request, level, notice)
        return redirect("annotation:review-pool", pk=scope.study.pk, pool_pk=scope.pool.pk)
    return _panel(request, scope, selectors.review_next(scope), notice=(level, notice))


@login_required
def review_image(request, pk: int, pool_pk: int, annotation_pk: int):
    annotation = annotation_for_reviewer(scope_for_reviewer(request.user, pk, pool_pk), annotation_pk)
    image = annotation.item.image_at(request.GET.get("n", ""))  # ?n=: one of a comparison's several images
    if image is None:
        raise Http404
    return image_response(image)


@login_required
def review_upload_image(request, pk: int, pool_pk: int, annotation_pk: int, token):
    annotation = annotation_for_reviewer(scope_for_reviewer(request.user, pk, pool_pk), annotation_pk)
    return image_response(get_object_or_404(annotation.assignment.uploads, token=token).file)


# --- the panel --------------------------------------------------------------------------------


def _notice(result: services.ReviewResult, user) -> tuple[int, str]:
    review = result.review
    pseudonym = review.annotation.annotator.pseudonym
    if result.duplicate:
        who = "you" if review.reviewer_id == user.pk else review.reviewer.get_username()
        return messages.WARNING, (
            f"Not stored: the annotation by {pseudonym} had already been reviewed by {who} "
            f"({review.get_outcome_display().lower()}). Here is the next one."
        )
    if review.outcome == Review.Outcome.FLAGGED:
        extra = "" if review.annotation.surplus else " One more annotation of this item is now wanted from the pool."
        return messages.SUCCESS, f"Flagged the annotation by {pseudonym} for re-annotation.{extra}"
    return messages.SUCCESS, f"Accepted the annotation by {pseudonym}."


def _panel(request, scope: ReviewScope, annotation: Annotation | None, *, data=None, note: str = "",
           errors: dict[str, str] | None = None, notice: tuple[int, str] | None = None, status: int = 200):
    """Render the review panel of ``annotation`` (None: nothing left to review in the pool)."""
    errors = errors or {}
    context: dict[str, Any] = {
        "study": scope.study,
        "pool": scope.pool,
        "progress": selectors.review_progress(scope.pool),
        "annotation": annotation,
        "notice": notice and {"level": "warning" if notice[0] == messages.WARNING else "success", "text": notice[1]},
    }
    if annotation is not None:
        context |= _annotation_context(scope, annotation, data=data, note=note, errors=errors)
    template = "annotation/_review_panel.html" if request.headers.get("HX-Request") else "annotation/review.html"
    return render(request, template, context, status=status)


def _annotation_context(scope: ReviewScope, annotation: Annotation, *, data, note: str, errors: dict[str, str]):
    form = selectors.review_form_for(annotation, scope.study)
    display = form.protocol.display
    given = form.initial(annotation.answers)
    blocks = form.blocks(given if data is None else data, given, errors)
    in_fields = form.reviewed.item_parts()  # the item parts its questions show themselves
    shown = {*display.show, *display.collapsed}
    urls = _urls(scope, annotation)
    return {
        "noun": display.noun.lower(),
        "item": annotation.item,
        "show_image": "image" in shown and bool(annotation.item.image),
        "compare_images": _compare_images(annotation, form.protocol, urls["image"]),
        "parts": display_parts(
            display, form.context.texts, documents=form.documents, candidates=form.candidates,
            has_pick_one="candidates" in in_fields, has_per_document="documents" in in_fields,
        ),
        "documents": form.documents,
        "document_texts": "documents" in shown,
        "candidates": form.candidates,
        "blocks": blocks,
        "n_questions": sum(1 if b.question else sum(len(qs) for _, qs in b.documents) for b in blocks),
        "answers": _answer_rows(form, annotation, urls),
        "effort": effort_summary(annotation.effort),
        "note": note,
        "errors": errors,
        "outcome_error": errors.get(services.OUTCOME),
        "note_error": errors.get(services.NOTE),
        "field_errors": len([k for k in errors if not k.startswith("_")]),
        "urls": urls,
        "outcome_name": services.OUTCOME,
        "note_name": services.NOTE,
        "note_max": services.NOTE_MAX_CHARS,
    }


def _compare_images(annotation: Annotation, protocol, url: str) -> list[ShownImage]:
    """A comparison's several images as its annotator saw them, in their order, each labelled by
    the number the answers name it by and its place on their screen; never the model (the check is
    as blind as the comparison)."""
    images = shown_images(annotation.assignment, protocol)
    sides = ("left", "right") if len(images) == 2 else None
    return [
        ShownImage(image.ref_id, f"{url}?n={image.ref_id}", image.width, image.height,
                   f"Image {image.ref_id}, shown {sides[n] if sides else f'{n + 1} of {len(images)}'}")
        for n, image in enumerate(images)
    ]


def _urls(scope: ReviewScope, annotation: Annotation) -> dict[str, Any]:
    args = [scope.study.pk, scope.pool.pk, annotation.pk]
    return {
        "submit": reverse("annotation:review-submit", args=args),
        "image": reverse("annotation:review-image", args=args),
        "args": args,
    }


# --- the annotator's other answers, as read-only text -----------------------------------------


@dataclass
class AnswerRow:
    label: str
    text: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)
    image_url: str = ""


def _answer_rows(form: selectors.ReviewForm, annotation: Annotation, urls: dict[str, Any]) -> list[AnswerRow]:
    """The annotator's answers the review form does not ask again (texts, words, boxes, uploads…),
    so the checker sees the whole annotation."""
    reviewed = {f.key for f in form.reviewed.fields}
    answers = annotation.answers if isinstance(annotation.answers, dict) else {}
    rows = []
    for f in form.protocol.fields:
        value = answers.get(f.key)
        if f.key in reviewed or value is None or f.kind.container:
            continue
        rows.append(_answer_row(f, value, form, urls))
    return rows


def _answer_row(f, value, form: selectors.ReviewForm, urls: dict[str, Any]) -> AnswerRow:
    shown = f.kind.show_answer(f, value, candidates=form.context.candidates)
    image_url = reverse("annotation:review-upload-image", args=[*urls["args"], shown.upload]) if shown.upload else ""
    return AnswerRow(label=f.label, text=shown.text, links=list(shown.links), image_url=image_url)

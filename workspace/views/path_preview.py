"""The researcher's preview of a pool's whole annotator path: the annotator's own pages (consent,
eligibility, instructions, practice test, items, end) under a "Preview — nothing is saved" banner,
each step's rule the real one, applied to the walk kept in the researcher's browser session
(``annotation.path_preview``). Every member of the study reaches it, a viewer too: nothing is stored."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.context import assignment_context
from annotation.languages import annotator_language, language_response
from annotation.models import MockAttempt
from annotation.path_preview import PathPreview, preview_load, preview_save, preview_start
from annotation.selectors import ending_for
from annotation.services import DraftRefused, draft_check
from annotation.services.onboarding import (
    consent_apply,
    instructions_apply,
    mock_attempt_apply,
    mock_grade,
    screen_apply,
)
from annotation.views.flow import (
    eligibility_answers,
    eligibility_page,
    hx_navigate,
    mock_answers,
    mock_page,
    practice_draw,
    practice_feedback,
    step_of,
)
from annotation.views.items import NO_ITEMS_LEFT, form_data, panel_context, panel_template, refused_data
from studies.protocol import validate
from studies.selectors import pool_for_user
from studies.translations import (
    LANGUAGE_NAMES,
    PAGE_CONSENT,
    PAGE_INSTRUCTIONS,
    PAGE_ITEMS,
    fallback_summary,
    localized,
    page_language,
    shown_study,
)

STEP_URLS = {
    "consent": "annotation:path-preview-consent",
    "eligibility": "annotation:path-preview-eligibility",
    "instructions": "annotation:path-preview-instructions",
    "mock": "annotation:path-preview-mock",
    "items": "annotation:path-preview-items",
    "end": "annotation:path-preview-end",
}


def _url(name: str, preview: PathPreview, *args) -> str:
    return reverse(name, args=[preview.study.pk, preview.pool.pk, *args])


def _step_redirect(preview: PathPreview):
    return redirect(_url(STEP_URLS[preview.step], preview))


def _banner(preview: PathPreview, *pages: str) -> dict:
    """The banner's context, on every page of the walk; ``pages``: which of the researcher's texts the
    page shows (``studies.translations.PAGE_*``), those shown in the study's language for lack of a
    translation into the page's then listed, with the way to their translation (the researcher's
    eyes only: the annotator's own pages never say it)."""
    study, language = preview.study, page_language()
    missing = localized(study, language).fallbacks_on(*pages) if pages else []
    return {"path_preview": {
        "pool": preview.pool,
        "exit_url": reverse("studies:pool-list", args=[study.pk]),
        "restart_url": _url("annotation:path-preview", preview),
        "fallbacks": fallback_summary(missing),
        "source_name": LANGUAGE_NAMES.get(study.language, study.language),
        "language_name": LANGUAGE_NAMES.get(language, language),
        "translate_url": reverse("studies:translation-edit", args=[study.pk, language]) if missing else "",
    }}


def preview_required(step: str | None = None):
    """The owner's walk of the pool (404 for anyone else); sent to the walk's current step if this is not it."""

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, pk, pool_pk, *args, **kwargs):
            pool = pool_for_user(request.user, pk, pool_pk)
            preview = preview_load(request, pool)
            if preview is None:
                return redirect("annotation:path-preview", pk, pool.pk)
            if step is not None and preview.step != step:
                return _step_redirect(preview)
            with annotator_language(request, pool) as code:  # as the pool's annotators see it
                return language_response(view(request, preview, *args, **kwargs), code)

        return wrapped

    return decorator


@login_required
@require_GET
def start(request, pk, pool_pk):
    """A new walk from the first step (an earlier one of this pool forgotten)."""
    return _step_redirect(preview_start(request, pool_for_user(request.user, pk, pool_pk)))


@require_http_methods(["GET", "POST"])
@preview_required("consent")
def consent(request, preview):
    if request.method == "POST":
        consent_apply(preview.annotator, agree=request.POST.get("consent") == "yes", now=timezone.now())
        preview_save(request, preview)
        return _step_redirect(preview)
    return render(request, "annotation/consent.html", {
        "study": shown_study(preview.study), "step": step_of("consent", pool=preview.pool),
        **_banner(preview, PAGE_CONSENT)})


@require_http_methods(["GET", "POST"])
@preview_required("eligibility")
def eligibility(request, preview):
    questions = preview.pool.eligibility_questions()
    errors = {}
    if request.method == "POST":
        answers, errors = eligibility_answers(request.POST, questions)
        if not errors:
            screen_apply(preview.annotator, answers=answers, now=timezone.now())
            preview_save(request, preview)
            return _step_redirect(preview)
    return eligibility_page(request, study=preview.study, pool=preview.pool, questions=questions, errors=errors,
                            extra=_banner(preview))


@require_http_methods(["GET", "POST"])
@preview_required("instructions")
def instructions(request, preview):
    if request.method == "POST":
        instructions_apply(preview.annotator, now=timezone.now())
        preview_save(request, preview)
        return _step_redirect(preview)
    return render(request, "annotation/instructions.html", {
        "study": shown_study(preview.study), "step": step_of("instructions", pool=preview.pool),
        **_banner(preview, PAGE_INSTRUCTIONS)})


@require_http_methods(["GET", "POST"])
@preview_required("mock")
def mock(request, preview):
    study, annotator = preview.study, preview.annotator
    every = list(study.mock_questions.select_related("item"))
    seed = f"preview:{preview.pool.pk}"
    questions = practice_draw(study, every, seed=seed, attempt=annotator.mock_attempts)
    chosen, errors, attempt, feedback = {}, {}, None, []
    if request.method == "POST":
        chosen, errors = mock_answers(request.POST, questions)
        if not errors:
            correct, total, passed = mock_grade(questions, chosen)
            attempt = MockAttempt(correct=correct, total=total, passed=passed)  # shown, never stored
            annotator.mock_attempts += 1
            mock_attempt_apply(annotator, passed=passed, now=timezone.now())
            preview_save(request, preview)
            if passed or preview.step != "mock":
                return _step_redirect(preview)
            feedback = practice_feedback(questions, chosen)
            questions = practice_draw(study, every, seed=seed, attempt=annotator.mock_attempts)
            chosen = {}
    return mock_page(request, study=study, pool=preview.pool, questions=questions, chosen=chosen, errors=errors,
                     attempt=attempt, attempts_used=annotator.mock_attempts, feedback=feedback,
                     image_url=lambda q: reverse("studies:item-image", args=[study.pk, q.item_id]),
                     extra=_banner(preview, PAGE_INSTRUCTIONS))


def _panel(request, preview: PathPreview, item, data=None, errors=None, status=200):
    """The item page of the walk's current item: the annotator's panel, with the walk's addresses."""
    assignment = preview.assignment(item)
    context = panel_context(
        preview.study, assignment, raw=data if data is not None else assignment.draft, errors=errors,
        done=preview.done, total=min(preview.session.items_target, len(preview.items)),
    )
    position = preview.position
    context.update(
        image_url=reverse("studies:item-image", args=[preview.study.pk, item.pk]) if item.image else "",
        submit_url=_url("annotation:path-preview-item-submit", preview, position),
        draft_url=_url("annotation:path-preview-item-draft", preview, position),
        upload_url=_url("annotation:path-preview-item-upload", preview, position),
        **_banner(preview, PAGE_ITEMS),
    )
    return render(request, panel_template(request), context, status=status)


def _next(request, preview: PathPreview):
    """The next item's panel, or the way out once the session's worth is done (as ``items._next``)."""
    item = preview.current_item()
    if item is not None:
        return _panel(request, preview, item)
    if preview.done == 0:
        return render(request, "annotation/problem.html", {**NO_ITEMS_LEFT, **_banner(preview)}, status=410)
    if preview.session.completed_at is None:
        preview.session.completed_at = timezone.now()
        preview_save(request, preview)
    return hx_navigate(request, _url("annotation:path-preview-end", preview))


@require_GET
@preview_required("items")
def items(request, preview):
    if preview.session.completed_at:
        return hx_navigate(request, _url("annotation:path-preview-end", preview))
    return _next(request, preview)


@require_POST
@preview_required("items")
def item_submit(request, preview, position):
    """The item's answers validated by the engine, as a submit is; kept nowhere."""
    item = preview.current_item()
    if item is None or position != preview.position:  # a repeat of a submit already taken
        return _next(request, preview)
    spec, data = preview.study.spec, form_data(request)
    assignment = preview.assignment(item)
    validation = validate(spec, data, assignment_context(assignment, spec))
    if not validation.ok:
        return _panel(request, preview, item, data=refused_data(data, assignment.draft), errors=validation.errors,
                      status=422)
    preview.drafts.pop(str(position), None)
    preview.done += 1
    preview_save(request, preview)
    return _next(request, preview)


@require_POST
@preview_required("items")
def item_draft(request, preview, position):
    """What was typed, kept with the walk (in the browser session) so a reload restores it."""
    data = form_data(request)
    if position != preview.position:
        return JsonResponse({"saved": False}, status=409)
    try:
        draft_check(protocol=preview.study.spec, data=data)
    except DraftRefused as refused:
        return JsonResponse({"saved": False, "error": str(refused)}, status=400)
    preview.drafts[str(position)] = data
    preview_save(request, preview)
    return JsonResponse({"saved": True})


@require_POST
@preview_required("items")
def item_upload(request, preview, position):
    return JsonResponse({"error": "A preview keeps no file: uploads work on the annotators' own pages."}, status=400)


@require_GET
@preview_required()
def end(request, preview):
    ending = ending_for(preview.annotator, preview.session)
    if ending is None:
        return _step_redirect(preview)
    return render(request, "annotation/end.html", {"ending": ending, "study": preview.study, **_banner(preview)})

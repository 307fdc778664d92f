"""The annotator's way in and out: entry link, consent, eligibility, instructions, practice test, end."""

from functools import wraps

from django.core import signing
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_http_methods, require_POST

from studies.models import CountryPool, MockQuestion, panel_of
from studies.practice import attempt_questions, shown_feedback
from studies.translations import shown_study

from .. import services
from ..browser import code_shown
from ..entry_problems import BLOCKED, entry_problem
from ..languages import annotator_language, in_annotator_language, language_response
from ..selectors import (
    NoAnnotatorSession,
    SessionElsewhere,
    StepCount,
    annotator_cookie_set,
    annotator_step,
    browser_key,
    ending_for,
    example_item_for_annotator,
    path_step,
    session_for_request,
)
from ..trial_entry import TRIAL_PARAM, TrialLinkRefused, trial_link_check


def annotator_required(step: str | None = None, *, assignment: str | None = None, switch: bool = False):
    """Load the browser's annotator session; send them to their current step if this is not it.

    ``assignment``: the view's argument naming an assignment; the request is then answered by
    whichever of the browser's sessions holds it (two studies open in two tabs of one browser each
    keep working). ``switch``: that session becomes the browser's current one (what a reload, the
    next step and the end page show): a submit does, a draft or an image does not."""

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            try:
                session = session_for_request(request, assignment_pk=kwargs.get(assignment) if assignment else None)
            except SessionElsewhere as elsewhere:
                annotator = elsewhere.session.annotator
                with annotator_language(request, annotator.pool, annotator.study) as code:
                    return language_response(resume_page(request, elsewhere.session.pk, taken_over=True), code)
            except NoAnnotatorSession:
                with annotator_language(request) as code:
                    return language_response(render(request, "annotation/problem.html", {
                        "title": gettext("Please open the study from Prolific"),
                        "message": gettext(
                            "We could not find your session in this browser. Open the study link from "
                            "Prolific again: your work is kept and you will continue where you stopped."
                        ),
                    }, status=403), code)
            with annotator_language(request, session.annotator.pool, session.annotator.study) as code:
                return language_response(respond(request, session, *args, **kwargs), code)

        def respond(request, session, *args, **kwargs):
            if session.annotator.blocked_at is not None:
                return blocked_page(request)
            if step is not None and annotator_step(session.annotator) != step:
                return step_redirect(session.annotator)
            if not session.browser_hash:  # begun before sessions were bound: bound to this browser now
                return _bound_here(request, session, lambda: view(request, session, *args, **kwargs))
            response = view(request, session, *args, **kwargs)
            if switch and _switched(request):
                annotator_cookie_set(response, request.annotator_key)
            return response

        return wrapped

    return decorator


def _switched(request) -> bool:
    """Did the request's key switch to another of the browser's sessions than its cookie's current one?"""
    cookie = browser_key(request)
    return cookie is not None and cookie.session_pk != request.annotator_key.session_pk


def _bound_here(request, session, respond) -> HttpResponse:
    """Bind a session of before the binding to the browser whose cookie names it (once: a write off the
    hot path), so that the first browser to open its link later cannot take it."""
    admission = services.session_admit(session=session, browser=request.annotator_key)
    if admission.key is None:  # another browser bound it a moment ago
        return resume_page(request, session.pk, taken_over=True)
    request.resume_code = code_shown(admission.key.code)
    response = respond()
    annotator_cookie_set(response, admission.key.joined(request.annotator_key))
    return response


def blocked_page(request) -> HttpResponse:
    """What a blocked annotator sees on any page; an htmx request (a submit) reloads the page to show it."""
    title, message = BLOCKED
    response = render(request, "annotation/problem.html", {"title": title, "message": message}, status=403)
    if request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"
    return response


@require_http_methods(["GET"])
def entry(request, key):
    pool = get_object_or_404(CountryPool.objects.select_related("study", "panel"), entry_key=key)
    with annotator_language(request, pool, pool.study) as code:  # the pool read once, for both
        return language_response(_entry(request, pool), code)


def _entry(request, pool):
    params = services.entry_params(pool=pool, query=request.GET)
    try:
        if TRIAL_PARAM in request.GET:  # a researcher's test link: checked, then walked without a trace
            trial_link_check(pool, params, request.GET[TRIAL_PARAM])
            raise services.EntryIsTrial()
        admission = services.annotator_arrive(pool=pool, params=params, browser=browser_key(request))
    except services.EntryIsTrial:
        return redirect("annotation:path-preview", pool.study_id, pool.pk)
    except TrialLinkRefused as refused:
        return _entry_problem(request, services.EntryRefused("bad_test_link", str(refused)), pool)
    except services.EntryRefused as refused:
        return _entry_problem(request, refused, pool)
    if admission.key is None:
        return resume_page(request, admission.session.pk, taken_over=False)
    if admission.rebound:
        response = render(request, "annotation/rebound.html", {
            "study": pool.study, "resume_code": code_shown(admission.key.code)})
    else:
        response = step_redirect(admission.session.annotator)
    annotator_cookie_set(response, admission.key.joined(browser_key(request)))  # its other studies kept
    return response


def _entry_problem(request, refused: services.EntryRefused, pool: CountryPool) -> HttpResponse:
    title, message = entry_problem(refused.reason, detail=refused.detail, panel=panel_of(pool))
    status = {"closed": 410, "full": 410, "blocked": 403}.get(refused.reason, 400)
    return render(request, "annotation/problem.html", {"title": title, "message": message}, status=status)


RESUME_SALT = "tessera.annotation.resume"
RESUME_FORM_AGE = 24 * 3600  # seconds a resume page's form stays good


def resume_page(request, session_pk: int, *, taken_over: bool, error: str = "", status: int = 403) -> HttpResponse:
    """The question for the session's resume code: to a browser that opened the link of a session bound
    to another browser, or (``taken_over``) to one whose session was continued in another. Nothing of
    the session is shown; the form names it by a signed token. An htmx request reloads the page."""
    if request.headers.get("HX-Request"):
        response = HttpResponse(status=403)
        response["HX-Refresh"] = "true"
        return response
    return render(request, "annotation/resume.html", {
        "token": signing.dumps(session_pk, salt=RESUME_SALT), "taken_over": taken_over, "error": error,
    }, status=status)


def resume_stale(request) -> HttpResponse:
    return render(request, "annotation/problem.html", {
        "title": gettext("Please open the study from Prolific"),
        "message": gettext("This form is too old. Open the study link from Prolific again to be asked for your code."),
    }, status=400)


@require_POST
@in_annotator_language()
def resume(request):
    """A resume code typed: the right one binds this browser to the session and goes on where it stood."""
    try:
        session_pk = signing.loads(request.POST.get("token", ""), salt=RESUME_SALT, max_age=RESUME_FORM_AGE)
    except signing.BadSignature:
        return resume_stale(request)
    try:
        key = services.session_resume(session_pk=session_pk, typed=request.POST.get("code", ""),
                                      browser=browser_key(request))
    except services.ResumeRefused as refused:
        if refused.reason == "gone":
            return resume_stale(request)
        if refused.reason == "locked":
            minutes = max(1, round((refused.until - timezone.now()).total_seconds() / 60))
            error = ngettext(
                "Too many wrong codes: this session's code is locked for {minutes} more minute. "
                "Please wait, then try again.",
                "Too many wrong codes: this session's code is locked for {minutes} more minutes. "
                "Please wait, then try again.",
                minutes,
            ).format(minutes=minutes)
            return resume_page(request, session_pk, taken_over=False, error=error, status=429)
        error = ngettext(
            "That is not this session's code. {tries} try left before it is locked for a while.",
            "That is not this session's code. {tries} tries left before it is locked for a while.",
            refused.tries_left,
        ).format(tries=refused.tries_left)
        return resume_page(request, session_pk, taken_over=False, error=error, status=422)
    response = redirect("annotation:next")
    annotator_cookie_set(response, key.joined(browser_key(request)))
    return response


@require_POST
def switch(request, session_pk):
    """Go on with another study this browser holds a session of (the bar's "Also open" list): that
    session becomes the current one, and its current step is shown."""
    key = browser_key(request)
    response = redirect("annotation:next")
    if key is not None and session_pk in dict(key.others):
        annotator_cookie_set(response, key.switched(session_pk))
    return response


def step_redirect(annotator):
    """Straight to the annotator's current step: one request, not a second one through ``next``."""
    step = annotator_step(annotator)
    return redirect("annotation:end" if step == "end" else f"annotation:{step}")


@annotator_required()
def next_step(request, session):
    return step_redirect(session.annotator)


@require_http_methods(["GET", "POST"])
@annotator_required("consent")
def consent(request, session):
    annotator = session.annotator
    if request.method == "POST":
        services.annotator_consent(annotator=annotator, agree=request.POST.get("consent") == "yes")
        return step_redirect(annotator)
    return render(request, "annotation/consent.html", {
        "study": shown_study(annotator.study), "step": step_of("consent", pool=annotator.pool)})


def step_of(step: str, *, pool) -> StepCount:
    """Where ``step`` stands on the path of ``pool``'s annotators ("Step 2 of 3"), its study's
    practice test counted when it has one (asked by the pool's study id: the study itself is not
    read again)."""
    return path_step(step, pool=pool, has_practice=MockQuestion.objects.filter(study_id=pool.study_id).exists())


def eligibility_answers(post, questions) -> tuple[dict[str, bool], dict[str, str]]:
    """The eligibility form read: (answers, errors), each question answered yes or no."""
    answers, errors = {}, {}
    for key, _ in questions:
        value = post.get(key)
        if value in ("yes", "no"):
            answers[key] = value == "yes"
        else:
            errors[key] = gettext("Please answer yes or no.")
    return answers, errors


def eligibility_page(request, *, study, pool, questions, errors, extra=None) -> HttpResponse:
    """The eligibility questions, each refused answer marked; ``extra``: more of the page's context."""
    rows = [{"key": k, "text": t, "value": request.POST.get(k), "error": errors.get(k)} for k, t in questions]
    return render(request, "annotation/eligibility.html", {
        "study": study, "pool": pool, "questions": rows, "step": step_of("eligibility", pool=pool),
        **(extra or {}),
    }, status=422 if errors else 200)


@require_http_methods(["GET", "POST"])
@annotator_required("eligibility")
def eligibility(request, session):
    annotator = session.annotator
    questions = annotator.pool.eligibility_questions()
    errors = {}
    if request.method == "POST":
        answers, errors = eligibility_answers(request.POST, questions)
        if not errors:
            services.annotator_screen(annotator=annotator, answers=answers)
            return step_redirect(annotator)
    return eligibility_page(request, study=annotator.study, pool=annotator.pool, questions=questions, errors=errors)


@require_http_methods(["GET", "POST"])
@annotator_required("instructions")
def instructions(request, session):
    annotator = session.annotator
    if request.method == "POST":
        services.annotator_read_instructions(annotator=annotator)
        return step_redirect(annotator)
    return render(request, "annotation/instructions.html", {
        "study": shown_study(annotator.study), "step": step_of("instructions", pool=annotator.pool)})


def mock_answers(post, questions) -> tuple[dict[int, str], dict[int, str]]:
    """The practice test's form read: (chosen, errors), one of its choices per question."""
    chosen, errors = {}, {}
    for q in questions:
        value = post.get(f"q{q.pk}")
        if value in q.choices:
            chosen[q.pk] = value
        else:
            errors[q.pk] = gettext("Please choose an answer.")
    return chosen, errors


def practice_draw(study, questions: list, *, seed, attempt: int) -> list:
    """The questions of the annotator's attempt ``attempt`` (``practice.attempt_questions``)."""
    return attempt_questions(questions, per_attempt=study.mock_questions_per_attempt, seed=seed, attempt=attempt)


def practice_feedback(asked: list, chosen: dict[int, str]) -> list[tuple]:
    """After a failed attempt, the questions answered wrongly with the rule to apply (their feedback,
    never one that names the expected answer): which option is right is never said, nor marked."""
    return [(q, shown_feedback(q)) for q in asked if chosen.get(q.pk) != q.expected]


def mock_page(
    request, *, study, pool, questions, chosen, errors, attempt, attempts_used, image_url, extra=None, feedback=()
) -> HttpResponse:
    """The practice test: after a failed attempt, the rules of the questions answered wrongly
    (``feedback``) above the next attempt's questions, blank; ``image_url(q)`` is the address of a
    question's example image; ``extra``: more of the page's context."""
    rows = [{
        "q": q, "value": chosen.get(q.pk), "error": errors.get(q.pk),
        "image_url": image_url(q) if q.item_id else "",
    } for q in questions]
    return render(request, "annotation/mock.html", {
        "study": shown_study(study), "rows": rows, "attempt": attempt, "feedback": feedback,
        "attempts_left": study.mock_attempts_allowed - attempts_used,
        "step": path_step("mock", pool=pool, has_practice=True), **(extra or {}),
    }, status=422 if errors or attempt else 200)


@require_http_methods(["GET", "POST"])
@annotator_required("mock")
def mock(request, session):
    annotator = session.annotator
    study = annotator.study
    every = list(study.mock_questions.select_related("item"))
    questions = practice_draw(study, every, seed=annotator.pk, attempt=annotator.mock_attempts)
    chosen, errors, attempt, feedback = {}, {}, None, []
    if request.method == "POST":
        chosen, errors = mock_answers(request.POST, questions)
        if not errors:
            attempt = services.mock_submit(annotator=annotator, answers=chosen, questions=questions)
            if attempt.passed or annotator_step(annotator) != "mock":
                return step_redirect(annotator)
            # failed: the rules of the wrong ones, then the next attempt's questions, blank
            feedback = practice_feedback(questions, chosen)
            questions = practice_draw(study, every, seed=annotator.pk, attempt=annotator.mock_attempts)
            chosen = {}
    return mock_page(request, study=study, pool=annotator.pool, questions=questions, chosen=chosen, errors=errors,
                     attempt=attempt, attempts_used=annotator.mock_attempts, feedback=feedback,
                     image_url=lambda q: reverse("annotation:example-image", args=[q.item_id]))


@annotator_required()
def example_image(request, session, item_pk):
    from studies.files import image_response

    return image_response(example_item_for_annotator(session.annotator, item_pk).image)


@annotator_required()
def end(request, session):
    ending = ending_for(session.annotator, session)
    if ending is None:
        return step_redirect(session.annotator)
    return render(request, "annotation/end.html", {"ending": ending, "study": session.annotator.study})


def hx_redirect(request, url_name: str) -> HttpResponse:
    """Redirect a plain request, or tell htmx to navigate the whole page."""
    return hx_navigate(request, reverse(url_name))


def hx_navigate(request, url: str) -> HttpResponse:
    """``hx_redirect`` to an address."""
    if request.headers.get("HX-Request"):
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)

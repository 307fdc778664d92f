"""The payouts page of a study's Prolific submissions (/prolific/studies/<pk>/review/): what the
platform knows of each participant; approve one or many, reject, request a return, refresh from
Prolific, bonuses with a preview then set-up and pay. Every action is a job (a Celery task) whose
progress the page polls. Every page is the owner's only (403 for a member, 404 for anyone else): the
pages show the participants' Prolific ids beside the annotators' pseudonyms
(``payout_selectors.participants_study_for_user``, the API's rule too), and the actions use the
owner's Prolific token and money."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.models import Session
from recruitment import payout_selectors as selectors
from recruitment.models import ProlificBonus, ProlificStudy, ProlificSubmission
from recruitment.payout_forms import CATEGORY_LABELS, BonusForm, RejectForm, ReturnForm, ReviewFilterForm
from recruitment.services import RecruitmentRefused, payouts, payouts_start
from recruitment.tokens import token_state
from studies.selectors import study_for_user


def _submission_for(study, sub_pk: int) -> ProlificSubmission:
    """One submission of the study's pools, or 404."""
    return get_object_or_404(
        ProlificSubmission.objects.select_related("prolific_study__pool", "session__annotator"),
        pk=sub_pk, prolific_study__pool__study=study,
    )


def _session_of(study, sub: ProlificSubmission) -> Session | None:
    """The session the submission opened: linked, else found by its SESSION_ID in this study."""
    if sub.session is not None:
        return sub.session
    return Session.objects.filter(annotator__study=study, prolific_session_id=sub.prolific_id).first()


def _payouts_url(study) -> str:
    return reverse("recruitment:review", args=[study.pk])


@login_required
@require_GET
def payouts_page(request, pk: int):
    study = selectors.participants_study_for_user(request.user, pk)
    # awaiting review unless the researcher chose otherwise
    filters = ReviewFilterForm(request.GET or {"status": ProlificSubmission.Status.AWAITING_REVIEW}, study=study)
    chosen = filters.cleaned_data if filters.is_valid() else {}
    page, rows = selectors.payouts_page(
        study=study, pool=chosen.get("pool"), status=chosen.get("status") or "", page=chosen.get("page") or 1
    )
    # the pages' links keep the filters in force (the default status included)
    query = urlencode({"pool": chosen["pool"].pk if chosen.get("pool") else "", "status": chosen.get("status") or ""})
    context = {
        "study": study,
        "filters": filters,
        "page": page,
        "rows": rows,
        "query": query,
        "pools": ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").select_related("pool"),
        "jobs": selectors.payout_jobs_of(study=study)[:10],
        "bonuses": selectors.bonuses_of(study=study)[:5],
        "token": token_state(user=request.user),
        "categories": CATEGORY_LABELS,
    }
    return render(request, "recruitment/payouts.html", context)


@login_required
@require_POST
def payouts_refresh(request, pk: int):
    """Read every pool's submissions (or the posted pool's) from Prolific."""
    study = study_for_user(request.user, pk, owner_only=True)
    pool = get_object_or_404(study.pools.all(), pk=request.POST["pool"]) if request.POST.get("pool") else None
    try:
        payouts_start.prolific_refresh_start(study=study, user=request.user, pool=pool)
    except RecruitmentRefused as refused:
        messages.info(request, str(refused))
    else:
        messages.info(request, "Reading the submissions from Prolific: the jobs below show the progress.")
    return redirect(_payouts_url(study))


@login_required
@require_POST
def payouts_approve(request, pk: int):
    """Approve the submissions ticked: one by its transition, several by Prolific's bulk approval
    (one job a pool). Only submissions awaiting review, as last read from Prolific."""
    study = study_for_user(request.user, pk, owner_only=True)
    ids = [i for i in request.POST.getlist("submission") if i.isdigit()]
    chosen = list(
        ProlificSubmission.objects.filter(prolific_study__pool__study=study, pk__in=ids)
        .select_related("prolific_study__pool")
    )
    if not chosen or len(chosen) != len(set(ids)):
        messages.error(request, "Tick the submissions to approve (of this study).")
        return redirect(_payouts_url(study))
    try:
        payouts_start.prolific_approve_start(user=request.user, submissions=chosen)
    except RecruitmentRefused as refused:
        messages.error(request, str(refused))
        return redirect(_payouts_url(study))
    messages.info(request, f"Approving {len(chosen)} submission{'s' if len(chosen) != 1 else ''} on Prolific.")
    return redirect(_payouts_url(study))


@login_required
@require_http_methods(["GET", "POST"])
def payouts_reject(request, pk: int, sub_pk: int):
    study = selectors.participants_study_for_user(request.user, pk)
    sub = _submission_for(study, sub_pk)
    # A session ended by failed attention checks: Prolific's category and a message naming the checks,
    # pre-filled for the researcher to read, change and confirm (never sent by itself).
    prefilled = selectors.failed_check_rejection(study=study, session=_session_of(study, sub))
    form = RejectForm(request.POST or None, initial=prefilled or {})
    refusal = payouts_start.reject_refusal(sub)
    if request.method == "POST" and not refusal and form.is_valid():
        payouts_start.prolific_reject_start(
            submission=sub, user=request.user,
            category=form.cleaned_data["category"], message=form.cleaned_data["message"],
        )
        messages.info(request, f"Rejecting {sub.participant_id} on Prolific.")
        return redirect(_payouts_url(study))
    status = 400 if request.method == "POST" else 200
    return render(request, "recruitment/payouts_reject.html",
                  {"study": study, "sub": sub, "form": form, "refusal": refusal, "prefilled": prefilled},
                  status=status)


@login_required
@require_http_methods(["GET", "POST"])
def payouts_return(request, pk: int, sub_pk: int):
    study = selectors.participants_study_for_user(request.user, pk)
    sub = _submission_for(study, sub_pk)
    form = ReturnForm(request.POST or None)
    refusal = payouts_start.return_refusal(sub)
    if request.method == "POST" and not refusal and form.is_valid():
        payouts_start.prolific_return_start(submission=sub, user=request.user, reasons=form.cleaned_data["reasons"])
        messages.info(request, f"Asking {sub.participant_id} to return the study.")
        return redirect(_payouts_url(study))
    status = 400 if request.method == "POST" else 200
    return render(request, "recruitment/payouts_return.html",
                  {"study": study, "sub": sub, "form": form, "refusal": refusal}, status=status)


# --- bonuses ---------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def bonus_new(request, pk: int):
    """The bonus form; a valid one is written down (nothing sent) and its preview shown."""
    study = selectors.participants_study_for_user(request.user, pk)
    form = BonusForm(request.POST or None, study=study)
    if request.method == "POST" and form.is_valid():
        bonus = payouts.prolific_bonus_draft(
            prolific_study=form.cleaned_data["prolific_study"], user=request.user, lines=form.cleaned_data["parsed"]
        )
        return redirect("recruitment:bonus", pk=study.pk, bonus_pk=bonus.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "recruitment/payouts_bonus_form.html", {"study": study, "form": form}, status=status)


def _bonus_for(study, bonus_pk: int) -> ProlificBonus:
    return get_object_or_404(
        ProlificBonus.objects.select_related("prolific_study__pool"), pk=bonus_pk, prolific_study__pool__study=study
    )


@login_required
@require_GET
def bonus_page(request, pk: int, bonus_pk: int):
    study = selectors.participants_study_for_user(request.user, pk)
    bonus = _bonus_for(study, bonus_pk)
    jobs = selectors.payout_jobs_of(study=study).filter(bonus=bonus)[:5]
    return render(request, "recruitment/payouts_bonus.html", {
        "study": study, "bonus": bonus, "preview": selectors.BonusPreview(bonus), "jobs": jobs,
    })


@login_required
@require_POST
def bonus_send(request, pk: int, bonus_pk: int, step: str):
    """Set the bonuses up on Prolific (its fees come back), or pay them (once)."""
    study = study_for_user(request.user, pk, owner_only=True)
    bonus = _bonus_for(study, bonus_pk)
    if step not in payouts_start.BONUS_STEPS:
        raise Http404
    try:
        payouts_start.prolific_bonus_send_start(bonus=bonus, user=request.user, step=step)
    except payouts_start.AlreadyUnderway as refused:
        messages.info(request, str(refused))
    except RecruitmentRefused as refused:
        messages.error(request, str(refused))
    return redirect("recruitment:bonus", pk=study.pk, bonus_pk=bonus.pk)


# --- a job's progress (htmx) -----------------------------------------------------------------


@login_required
@require_GET
def payouts_job(request, pk: int, job_pk: int):
    study = selectors.participants_study_for_user(request.user, pk)
    job = get_object_or_404(selectors.payout_jobs_of(study=study), pk=job_pk)
    return render(request, "recruitment/_payouts_job.html", {"study": study, "job": job})

"""Researcher pages of recruitment: the Prolific token settings (the logged-in researcher's own
token only, no id in the address, never rendered back) and a study's pools on Prolific (launch,
preview, publish, pause, resume, stop). The study's members read its page, but not who its participants
are (``payout_selectors.may_see_participants``: the entries not verified, the review, the owner's
only); what calls Prolific is the owner's only (their token, their money), and the returned-participant
choice is an editor's too."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.debug import sensitive_post_parameters, sensitive_variables
from django.views.decorators.http import require_GET, require_POST

from recruitment import selectors, services, tokens
from recruitment.forms import LaunchForm, MessageForm, PolicyForm, TokenForm
from recruitment.models import ProlificStudy
from recruitment.payout_selectors import ACTIONS_ON_PARTICIPANTS, may_see_participants
from recruitment.prolific import ProlificAuthError, ProlificError
from recruitment.rules import RuleBroken
from recruitment.services.body import outcome_table
from studies.selectors import study_for_user

from .prolific_trials import trial_rows


def _page(request, form: TokenForm, *, status: int = 200):
    state = tokens.token_state(user=request.user)
    return render(request, "recruitment/token_settings.html", {"form": form, "state": state}, status=status)


@login_required
@require_GET
def token_settings(request):
    return _page(request, TokenForm())


@sensitive_variables("token")
@sensitive_post_parameters("token")
@login_required
@require_POST
def token_save(request):
    """Check the token with Prolific, then store it (encrypted); a token Prolific refuses is not stored."""
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    token = form.cleaned_data["token"]
    try:
        with tokens.client_for(user=request.user, token=token) as client:
            client.me()
    except ProlificAuthError:
        form.add_error(
            "token", "Prolific refused this token: check that you copied all of it and that it is not deleted."
        )
        return _page(request, form, status=400)
    except ProlificError:
        tokens.token_set(user=request.user, token=token)
        messages.warning(
            request, "Token stored, but Prolific could not be reached to check it; it is checked at first use."
        )
        return redirect("recruitment:token-settings")
    tokens.token_set(user=request.user, token=token)
    messages.success(request, "Your Prolific token is stored (encrypted). It will not be shown again.")
    return redirect("recruitment:token-settings")


@login_required
@require_POST
def token_remove(request):
    if tokens.token_remove(user=request.user):
        messages.success(request, "Your Prolific token is removed.")
    else:
        messages.info(request, "You had no Prolific token stored.")
    return redirect("recruitment:token-settings")


# --- a study's pools on Prolific -------------------------------------------------------------

VERBS = ("publish", "pause", "resume", "stop")
PROLIFIC_FAILURES = (tokens.ProlificNotConfigured, services.RecruitmentRefused, ProlificError)


def _study_page(request, study, form: LaunchForm, *, status: int = 200):
    unverified = selectors.entries_unverified_of(study=study)
    actions = selectors.prolific_actions_of(study=study)
    sees_participants = may_see_participants(study)
    if not sees_participants:
        actions = actions.exclude(kind__in=ACTIONS_ON_PARTICIPANTS)
    pools = selectors.prolific_pools(study=study)
    context = {
        "study": study,
        "form": form,
        "pools": pools,
        "budget": selectors.study_budget(study=study),
        "token": tokens.token_state(user=request.user),
        "refusal": services.launch_refusal(),
        "actions": actions[:10],
        "sees_participants": sees_participants,
        # who they are for the owner; how many for a member
        "unverified": unverified[:50] if sees_participants else [],
        "unverified_count": 0 if sees_participants else unverified.count(),
        "policy_form": PolicyForm(initial={"count_returned": selectors.count_returned_of(study=study)}),
        "webhooks": selectors.webhooks_set_up(),
        "webhook_url": services.webhook_target_url(),
        # issue 28, part 2
        "outcomes": outcome_table(),
        "message_form": MessageForm(pools=[p.pool for p in pools]) if sees_participants else None,
        "trials": trial_rows(pools) if sees_participants else [],
    }
    return render(request, "recruitment/study.html", context, status=status)


@login_required
@require_GET
def study_prolific(request, pk: int):
    study = study_for_user(request.user, pk)
    return _study_page(request, study, LaunchForm(user=request.user, study=study))


@login_required
@require_POST
def study_launch(request, pk: int):
    """Create the Prolific draft of every pool not on Prolific yet (or of the one posted)."""
    study = study_for_user(request.user, pk, owner_only=True)
    form = LaunchForm(request.POST, user=request.user, study=study)
    if not form.is_valid():
        return _study_page(request, study, form, status=400)
    pools = _pools_posted(request, study)
    try:
        results = services.prolific_studies_launch(study=study, user=request.user, options=form.options(), pools=pools)
    except PROLIFIC_FAILURES as exc:
        messages.error(request, str(exc))
        return _study_page(request, study, form, status=400)
    created = [r.prolific_study.pool.country_name for r in results if r.created and r.prolific_study]
    if created:
        messages.success(request, f"Created as Prolific drafts: {', '.join(created)}. Check each pool's eligible "
                                  "participants and cost, then publish.")
    for failed in (r for r in results if not r.ok):
        messages.error(request, f"Not launched: {failed.error} (the pool's Retry button tries it again).")
    if results and all(r.ok and not r.created for r in results):
        messages.success(request, "Every pool was already on Prolific.")
    if results and not any(r.ok for r in results):  # nothing launched: the form stays as it was sent
        return _study_page(request, study, form, status=400)
    return redirect("recruitment:study-prolific", pk=study.pk)


@login_required
@require_POST
def study_transition(request, pk: int, verb: str):
    """Publish, pause, resume or stop one pool's study (``pool`` posted) or every pool's."""
    study = study_for_user(request.user, pk, owner_only=True)
    if verb not in VERBS:
        raise Http404
    pools = _pools_posted(request, study)
    try:
        results = services.prolific_studies_transition(study=study, verb=verb, user=request.user, pools=pools)
    except tokens.ProlificNotConfigured as exc:
        messages.error(request, str(exc))
        return redirect("recruitment:study-prolific", pk=study.pk)
    for result in results:
        (messages.success if result.ok else messages.error)(request, result.message)
    if not results:
        messages.info(request, "No pool of this study is on Prolific yet.")
    return redirect("recruitment:study-prolific", pk=study.pk)


@login_required
@require_POST
def study_webhooks(request, pk: int):
    """Create the workspace's signing secret and the status-change subscriptions (idempotent)."""
    study_for_user(request.user, pk, owner_only=True)
    try:
        results = services.prolific_webhooks_setup(user=request.user)
    except PROLIFIC_FAILURES as exc:
        messages.error(request, str(exc))
        return redirect("recruitment:study-prolific", pk=pk)
    for r in results:
        made = ", ".join(r.subscribed) or "nothing new"
        messages.success(request, f"Webhooks of workspace {r.workspace_id}: subscribed {made}.")
    return redirect("recruitment:study-prolific", pk=pk)


@login_required
@require_POST
def study_policy(request, pk: int):
    """Whether the study counts the annotations of participants who returned."""
    study = study_for_user(request.user, pk, write=True)
    form = PolicyForm(request.POST)
    form.is_valid()  # a checkbox: always valid
    count = bool(form.cleaned_data.get("count_returned"))
    changed = services.recruitment_policy_set(study=study, count_returned=count, user=request.user)
    said = "count" if count else "do not count"
    messages.success(request, f"Returned participants' annotations {said} ({changed} annotation(s) changed).")
    return redirect("recruitment:study-prolific", pk=pk)


@login_required
@require_GET
def pool_preview(request, pk: int, pool_pk: int):
    """The htmx fragment with a pool's eligible participants and cost, asked of Prolific."""
    study = study_for_user(request.user, pk, owner_only=True)
    row = get_object_or_404(ProlificStudy, pool__study=study, pool__pk=pool_pk)
    try:
        preview, error = selectors.prolific_preview(prolific_study=row, user=request.user), ""
    except PROLIFIC_FAILURES as exc:
        preview, error = None, str(exc)
    return render(request, "recruitment/_preview.html", {"preview": preview, "error": error})


@login_required
@require_GET
def pool_countries(request, pk: int):
    """The htmx fragment with each pool's country as Prolific's list has it, and a pick by hand."""
    study = study_for_user(request.user, pk, owner_only=True)
    try:
        rows, choices = selectors.prolific_countries(study=study, user=request.user)
        error = ""
    except (*PROLIFIC_FAILURES, RuleBroken) as exc:
        rows, choices, error = [], {}, str(exc)
    launched = set(
        ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").values_list("pool_id", flat=True)
    )
    context = {"study": study, "rows": rows, "choices": choices, "error": error, "launched": launched}
    return render(request, "recruitment/_countries.html", context)


@login_required
@require_POST
def pool_country(request, pk: int, pool_pk: int):
    """Pick Prolific's country of residence for one pool by hand (or go back to finding it)."""
    study = study_for_user(request.user, pk, owner_only=True)
    pool = get_object_or_404(study.pools.all(), pk=pool_pk)
    key = request.POST.get("choice", "").strip()
    try:
        choices = selectors.residence_filter(user=request.user).choices if key else {}
        pick = services.prolific_country_pick(pool=pool, key=key, choices=choices, user=request.user)
    except (*PROLIFIC_FAILURES, RuleBroken) as exc:
        messages.error(request, str(exc))
        return redirect("recruitment:study-prolific", pk=study.pk)
    if pick is None:
        messages.success(request, f"{pool.country_name}: Prolific's country is found by its names again.")
    else:
        messages.success(request, f"{pool.country_name}: recruited on Prolific as {pick.choice_label!r}.")
    return redirect("recruitment:study-prolific", pk=study.pk)


def _pools_posted(request, study):
    """The pool posted (one of the study's, else 404), or None for every pool."""
    pool_pk = request.POST.get("pool")
    if not pool_pk:
        return None
    return [get_object_or_404(study.pools.all(), pk=pool_pk)]

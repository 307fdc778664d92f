"""Rounds on Prolific (``recruitment.services.rounds``): invite a finished study's annotators who met
a bar back as a participant group (the study owner's: their token, and the participants' Prolific
ids), the researcher's groups, and their block list (applied to every launch of theirs). The bar's
scores come from the analysis through the reader the workspace registers (``workspace/rounds_scores.py``)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from recruitment import tokens
from recruitment.forms import BlockForm, InviteBackForm
from recruitment.prolific import ProlificError
from recruitment.services import RecruitmentRefused, rounds
from studies.selectors import is_researcher, study_for_user

FAILURES = (tokens.ProlificNotConfigured, RecruitmentRefused, ProlificError)


def _researcher(request) -> None:
    """Groups and block lists are researchers' (a checker's account has none: 404)."""
    if not is_researcher(request.user):
        raise Http404


@login_required
@require_http_methods(["GET", "POST"])
def invite_back(request, pk: int):
    """The bar (previewed: how many meet it), then the group made on Prolific."""
    study = study_for_user(request.user, pk, owner_only=True)
    form = InviteBackForm(request.POST or None)
    preview = None
    if request.method == "POST" and form.is_valid():
        try:
            preview = rounds.invite_preview(study=study, bar=form.bar())
            if "create" in request.POST:
                group = rounds.invite_back(study=study, bar=form.bar(), name=form.cleaned_data["name"],
                                           user=request.user, participant_ids=preview.participant_ids)
                messages.success(request, f"The group {group.name!r} is on Prolific with {preview.count} "
                                          "participant(s): restrict a launch to it on the study's Prolific page.")
                return redirect("recruitment:rounds-groups")
        except FAILURES as exc:
            form.add_error(None, str(exc))
    status = 400 if request.method == "POST" and form.errors else 200
    return render(request, "recruitment/rounds_invite.html", {"study": study, "form": form, "preview": preview},
                  status=status)


@login_required
@require_GET
def groups(request):
    _researcher(request)
    return render(request, "recruitment/rounds_groups.html", {"groups": rounds.groups_of(user=request.user)})


@login_required
@require_POST
def group_sync(request, group_pk: int):
    """An invite-back group brought up to date after a later round: newcomers added, nobody removed."""
    _researcher(request)
    group = rounds.group_for_user(user=request.user, pk=group_pk)
    try:
        done = rounds.group_sync(group=group, user=request.user)
    except FAILURES as exc:
        messages.error(request, f"{group.name!r} was not brought up to date: {exc}")
        return redirect("recruitment:rounds-groups")
    kept = (f" {len(done.no_longer)} member(s) no longer meet the bar: kept (a group never loses anyone)."
            if done.no_longer else "")
    messages.success(request, f"{group.name!r}: {len(done.added)} participant(s) newly meeting the bar added.{kept}")
    return redirect("recruitment:rounds-groups")


def _blocked_page(request, form: BlockForm, *, status: int = 200):
    return render(request, "recruitment/rounds_blocked.html", {
        "form": form, "blocked": rounds.blocked_of(user=request.user),
    }, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def blocked(request):
    """The researcher's block list: listed, and one participant added with a reason."""
    _researcher(request)
    if request.method == "GET":
        return _blocked_page(request, BlockForm())
    form = BlockForm(request.POST)
    if form.is_valid():
        try:
            rounds.participant_block(user=request.user, **form.cleaned_data)
        except RecruitmentRefused as exc:
            form.add_error("participant_id", str(exc))
    if form.errors:
        return _blocked_page(request, form, status=400)
    messages.success(request, "Blocked: none of your launches will recruit this participant.")
    return redirect("recruitment:rounds-blocked")


@login_required
@require_POST
def unblock(request):
    _researcher(request)
    if rounds.participant_unblock(user=request.user, participant_id=request.POST.get("participant_id", "")):
        messages.success(request, "Unblocked: your next launches may recruit this participant again.")
    else:
        messages.info(request, "This participant was not on your block list.")
    return redirect("recruitment:rounds-blocked")

"""The members page's actions that may touch a checker (``annotation.Checker``): invite by username
or email with any role, remove a checker; and the invitation link's page, where a logged-in user
accepts, or a new person creates an account and accepts. The page itself is
``workspace/views/members.py``; inviting and removing are the owner's only."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation import members
from annotation.models import Checker
from studies import members as study_members
from studies.forms import InviteForm
from studies.members import MemberRefused
from studies.selectors import study_for_user
from workspace.views.members import members_page


@login_required
@require_POST
def member_invite(request, pk: int):
    study = study_for_user(request.user, pk, owner_only=True)
    form = InviteForm(request.POST, study=study)
    if form.is_valid():
        data = form.cleaned_data
        try:
            result = members.member_invite(
                study=study, by=request.user, who=data["who"], role=data["role"], pool=data["pool"],
                grants_researcher=data["may_create_studies"],
            )
        except MemberRefused as refused:
            form.add_error(refused.field if refused.field in form.fields else None, str(refused))
        else:
            if result.added:
                messages.success(request, f"{result.name} is added.")
            else:
                mailed = " It was sent by email;" if result.mailed else ""
                messages.success(
                    request, f"{result.name} is invited.{mailed} Send them this link (shown once, valid for "
                    f"{study_members.INVITATION_DAYS} days, usable once): {result.link}"
                )
            return redirect("studies:members", study.pk)
    return members_page(request, study, invite_form=form, status=400)


@login_required
@require_POST
def checker_remove(request, pk: int, checker_pk: int):
    study = study_for_user(request.user, pk, owner_only=True)
    checker = get_object_or_404(Checker.objects.select_related("user", "pool"), pool__study=study, pk=checker_pk)
    members.checker_remove(checker=checker)
    messages.success(request, f"{checker.user.get_username()} no longer checks {checker.pool.country_name}.")
    return redirect("studies:members", study.pk)


class SignUpForm(UserCreationForm):
    """A new account for an invited person: a username and a password (twice)."""


@require_http_methods(["GET", "POST"])
def invitation(request, token: str):
    """Accept an invitation: as the logged-in user, or as a new account made here. A spent,
    revoked, expired or unknown link changes nothing and says why."""
    invitation = study_members.invitation_by_token(token)
    refusal = study_members.invitation_refusal(invitation)
    if refusal:
        status = 404 if invitation is None else 410
        return render(request, "annotation/invitation.html", {"refusal": refusal}, status=status)
    form = None if request.user.is_authenticated else SignUpForm(request.POST or None)
    if form is None:  # said before the button, not only after a click
        refusal = study_members.invitation_addressee_refusal(invitation, request.user)
    if request.method == "POST" and not refusal:
        try:
            with transaction.atomic():
                if form is not None:
                    if not form.is_valid():
                        raise MemberRefused("")
                    user = form.save(commit=False)
                    user.email = invitation.email
                    user.save()
                else:
                    user = request.user
                members.invitation_accept(invitation=invitation, user=user)
        except MemberRefused as refused:
            refusal = str(refused)
        else:
            if form is not None:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"You joined “{invitation.study.name}”.")
            if invitation.grants_researcher:
                messages.success(request, "You may also create studies of your own: Studies → New study.")
            if invitation.pool is not None:
                return redirect("annotation:review-study", invitation.study.pk)
            return redirect("analysis:study-dashboard", invitation.study.pk)
    context = {"invitation": invitation, "form": form, "refusal": refusal, "token": token}
    status = 403 if refusal and form is None else 400 if request.method == "POST" else 200
    return render(request, "annotation/invitation.html", context, status=status)

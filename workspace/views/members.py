"""The members page of a study (/studies/<pk>/members): its members, pending invitations and (drawn
by annotation's ``study_checkers`` tag) its checkers. Every member may read it; only the owner
changes it. Inviting (which may make a checker, an annotation row) and accepting are
``workspace/views/invitations.py``."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from studies import members
from studies.forms import InviteForm, MemberRoleForm
from studies.models import Role, Study
from studies.selectors import study_for_user


def members_page(request, study: Study, *, invite_form: InviteForm | None = None, status: int = 200):
    """The page, with the invite form as posted (its errors next to its fields) or blank."""
    context = {
        "study": study,
        "members": members.members_of(study=study),
        "invitations": members.invitations_pending(study=study),
        "invite_form": invite_form or InviteForm(study=study),
        "member_roles": [(r.value, r.label) for r in (Role.VIEWER, Role.EDITOR)],
    }
    return render(request, "studies/members.html", context, status=status)


@login_required
@require_GET
def member_list(request, pk: int):
    return members_page(request, study_for_user(request.user, pk))


@login_required
@require_POST
def member_role(request, pk: int, member_pk: int):
    study = study_for_user(request.user, pk, owner_only=True)
    member = get_object_or_404(study.members.select_related("user"), pk=member_pk)
    form = MemberRoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose viewer or editor.")
        return redirect("studies:members", study.pk)
    members.member_role_set(member=member, role=form.cleaned_data["role"])
    messages.success(request, f"{member.user.get_username()} is now {Role(member.role).label.lower()}.")
    return redirect("studies:members", study.pk)


@login_required
@require_POST
def member_remove(request, pk: int, member_pk: int):
    study = study_for_user(request.user, pk, owner_only=True)
    member = get_object_or_404(study.members.select_related("user"), pk=member_pk)
    members.member_remove(member=member)
    messages.success(request, f"{member.user.get_username()} no longer sees this study.")
    return redirect("studies:members", study.pk)


@login_required
@require_POST
def invitation_revoke(request, pk: int, invitation_pk: int):
    study = study_for_user(request.user, pk, owner_only=True)
    invitation = get_object_or_404(study.invitations, pk=invitation_pk)
    if members.invitation_revoke(invitation=invitation):
        messages.success(request, f"The invitation of {invitation.email} is withdrawn: its link opens nothing now.")
    else:
        messages.info(request, "That invitation was already used or withdrawn.")
    return redirect("studies:members", study.pk)

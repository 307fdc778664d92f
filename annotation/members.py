"""A study's members with its checkers: inviting by username or email with any role, accepting an
invitation, a pool's checkers listed and removed. It lives in annotation because a checker is an
``annotation.Checker`` row; viewers and editors are ``studies.members``' (called from here)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.urls import reverse

from studies import members
from studies.members import MemberRefused
from studies.models import CountryPool, Role, Study, StudyInvitation
from studies.selectors import may_create_studies
from studies.services import researcher_grant

from .models import Checker


@dataclass(frozen=True)
class InviteResult:
    """What an invitation did: ``added`` (an account was found and given the role) or an
    invitation made, with its link (shown to the owner once) and whether it was mailed."""

    added: bool
    name: str
    link: str = ""
    mailed: bool = False


def invitation_link(token: str) -> str:
    return f"{settings.SITE_URL}{reverse('annotation:invitation', args=[token])}"


def checkers_of(*, study: Study) -> QuerySet[Checker]:
    return Checker.objects.filter(pool__study=study).select_related("user", "pool").order_by(
        "pool__country_name", "user__username"
    )


def checker_add(*, pool: CountryPool, user: AbstractBaseUser) -> Checker:
    if user.pk == pool.study.owner_id:
        raise MemberRefused("The study's owner reviews every pool already.")
    try:
        with transaction.atomic():
            return Checker.objects.create(pool=pool, user=user)
    except IntegrityError:
        raise MemberRefused(f"{user.get_username()} checks {pool.country_name} already.") from None


def checker_remove(*, checker: Checker) -> None:
    checker.delete()


def member_invite(
    *, study: Study, by: AbstractBaseUser, who: str, role: str, pool: CountryPool | None,
    grants_researcher: bool = False,
) -> InviteResult:
    """Give ``who`` the role if they have an account, else invite their email address (a username
    nobody has is refused: an email address is needed to invite). ``grants_researcher`` also lets
    them create studies of their own (a researcher vouches for a new lab member: only a researcher
    may grant it). MemberRefused changes nothing."""
    if grants_researcher and not may_create_studies(by):
        raise MemberRefused("Only a researcher may let others create studies.", field="may_create_studies")
    user = members.user_find(who)
    if user is not None and user.pk == by.pk:
        raise MemberRefused("You cannot invite yourself.")
    if user is not None:
        with transaction.atomic():
            _grant(study=study, user=user, role=role, pool=pool, by=by, invited=False)
            if grants_researcher:
                researcher_grant(user=user)
        return InviteResult(added=True, name=user.get_username())
    if "@" not in who:
        raise MemberRefused(f"Nobody has the username “{who}”: enter their email address to invite them.")
    invitation, token = members.invitation_create(
        study=study, email=who, role=role, pool=pool, by=by, grants_researcher=grants_researcher
    )
    link = invitation_link(token)
    mailed = members.invitation_send(invitation=invitation, link=link)
    return InviteResult(added=False, name=invitation.email, link=link, mailed=mailed)


def invitation_accept(*, invitation: StudyInvitation, user: AbstractBaseUser) -> None:
    """The invitation's role given to ``user``, the invitation spent, both or neither
    (MemberRefused: spent, expired, sent to another address than ``user``'s, or the user owns the study)."""
    with transaction.atomic():
        if refusal := members.invitation_addressee_refusal(invitation, user):  # its owner, another address
            raise MemberRefused(refusal)
        if not members.invitation_claim(invitation=invitation, user=user):
            invitation.refresh_from_db()
            raise MemberRefused(members.invitation_refusal(invitation) or "This invitation cannot be used.")
        _grant(study=invitation.study, user=user, role=invitation.role, pool=invitation.pool,
               by=invitation.created_by, invited=True)
        if invitation.grants_researcher:
            researcher_grant(user=user)


def _grant(*, study: Study, user, role: str, pool: CountryPool | None, by, invited: bool) -> None:
    if role == Role.CHECKER:
        if pool is None or pool.study_id != study.pk:
            raise MemberRefused("Choose a pool of this study for a checker.", field="pool")
        if invited:
            Checker.objects.get_or_create(pool=pool, user=user)
        else:
            checker_add(pool=pool, user=user)
    elif invited:
        members.membership_grant(study=study, user=user, role=role, by=by)
    else:
        members.member_add(study=study, user=user, role=role, by=by)

"""A study's members and invitations: services and reads (the members page's, in studies).

The owner shares a study with a viewer (reads every page) or an editor (a co-researcher: everything
but the members and Prolific, see ``studies.selectors``), and invites by email someone without an
account (or with one the owner does not know). An invitation's token is random, only its SHA-256
is stored, it expires after ``INVITATION_DAYS`` and opens the study once: accepted, revoked or
expired, it is spent. It is bound to its address: only an account with that email address accepts
it (``invitation_addressee_refusal``), and an account made from the link is given that address, so
a forwarded or leaked link opens nothing for anyone else. Checkers (``annotation.Checker``) are granted by annotation
(``annotation.members``), which calls these services for the rest: studies cannot import it.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from .models import CountryPool, Role, Study, StudyInvitation, StudyMember

INVITATION_DAYS = 14


class MemberRefused(Exception):
    """A change the members page refuses, with the form field it belongs next to."""

    def __init__(self, message: str, *, field: str = "who"):
        super().__init__(message)
        self.field = field


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- reads ------------------------------------------------------------------------------------


def user_find(who: str) -> AbstractBaseUser | None:
    """The account named ``who`` (its username, else its email, case-insensitive), or None when
    there is none or the email is shared by several accounts."""
    users = get_user_model().objects.filter(is_active=True)
    user = users.filter(username=who).first()
    if user is None and "@" in who:
        matches = list(users.filter(email__iexact=who)[:2])
        user = matches[0] if len(matches) == 1 else None
    return user


def members_of(*, study: Study) -> QuerySet[StudyMember]:
    return study.members.select_related("user").order_by("user__username")


def invitations_pending(*, study: Study) -> QuerySet[StudyInvitation]:
    """The invitations that may still be accepted, newest first."""
    return study.invitations.filter(
        accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).select_related("pool").order_by("-created_at")


def invitation_by_token(token: str) -> StudyInvitation | None:
    return StudyInvitation.objects.select_related("study__owner", "pool").filter(token_hash=token_hash(token)).first()


def invitation_refusal(invitation: StudyInvitation | None) -> str:
    """Why an invitation opens nothing ("" when it may be accepted)."""
    if invitation is None:
        return "This invitation link is not known: check that you copied all of it."
    if invitation.accepted_at:
        return "This invitation has already been accepted; it cannot be used again."
    if invitation.revoked_at:
        return "This invitation was withdrawn by the study's owner."
    if invitation.expires_at <= timezone.now():
        return "This invitation has expired: ask the study's owner for a new one."
    return ""


# --- services ---------------------------------------------------------------------------------


def member_add(*, study: Study, user: AbstractBaseUser, role: str, by: AbstractBaseUser | None) -> StudyMember:
    """Share the study with ``user`` as a viewer or an editor (MemberRefused: the owner, a member)."""
    _check_role(role, allowed=StudyMember.MEMBER_ROLES)
    if user.pk == study.owner_id:
        raise MemberRefused("The study's owner has every right already.")
    try:
        with transaction.atomic():
            return StudyMember.objects.create(study=study, user=user, role=role, created_by=by)
    except IntegrityError:
        name = user.get_username()
        raise MemberRefused(f"{name} is already a member of this study: change their role below.") from None


def member_role_set(*, member: StudyMember, role: str) -> StudyMember:
    _check_role(role, allowed=StudyMember.MEMBER_ROLES, field="role")
    StudyMember.objects.filter(pk=member.pk).update(role=role)
    member.role = role
    return member


def member_remove(*, member: StudyMember) -> None:
    member.delete()


def invitation_addressee_refusal(invitation: StudyInvitation, user: AbstractBaseUser) -> str:
    """Why ``user`` may not accept ``invitation`` ("" when they may): it was sent to an address,
    and only the account with that address (case and spaces aside) accepts it; never its owner."""
    if user.pk == invitation.study.owner_id:
        return "You own this study already."
    mine = str(getattr(user, "email", "") or "").strip().lower()
    if mine == invitation.email.strip().lower():
        return ""
    who = user.get_username()
    if not mine:
        return (f"This invitation was sent to {invitation.email}, and your account ({who}) has no email address: "
                f"log out, then accept it by creating an account here, or ask the owner to invite {who} by name.")
    return (f"This invitation was sent to {invitation.email}, and you are logged in as {who} ({mine}): log out, "
            "then log in with the account of that address or create one here.")


def invitation_check(*, study: Study, email: str, role: str, pool: CountryPool | None) -> str:
    """The normalised email of a valid invitation, or MemberRefused."""
    _check_role(role, allowed=list(Role))
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise MemberRefused(f"“{email}” is not an email address.") from None
    if study.owner.email and email.lower() == study.owner.email.lower():
        raise MemberRefused("That is the study owner's address.")
    if (role == Role.CHECKER) != (pool is not None) or (pool is not None and pool.study_id != study.pk):
        raise MemberRefused("Choose a pool of this study for a checker (and only for a checker).", field="pool")
    if invitations_pending(study=study).filter(email__iexact=email).exists():
        raise MemberRefused(f"{email} has an invitation pending already: withdraw it to send a new one.")
    return email


def invitation_create(
    *, study: Study, email: str, role: str, pool: CountryPool | None = None, by: AbstractBaseUser | None,
    grants_researcher: bool = False,
) -> tuple[StudyInvitation, str]:
    """A pending invitation and its token (shown once, never stored: only its hash is)."""
    email = invitation_check(study=study, email=email, role=role, pool=pool)
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    try:
        with transaction.atomic():
            # an expired invitation of the address is closed, so the constraint lets a new one in
            study.invitations.filter(
                email__iexact=email, accepted_at__isnull=True, revoked_at__isnull=True, expires_at__lte=now
            ).update(revoked_at=now)
            invitation = StudyInvitation.objects.create(
                study=study, email=email, role=role, pool=pool, token_hash=token_hash(token), created_by=by,
                expires_at=now + timedelta(days=INVITATION_DAYS), grants_researcher=grants_researcher,
            )
    except IntegrityError:  # another request invited the address meanwhile
        raise MemberRefused(f"{email} has an invitation pending already: withdraw it to send a new one.") from None
    return invitation, token


def invitation_send(*, invitation: StudyInvitation, link: str) -> bool:
    """Mail the link when the deployment can send mail (``EMAIL_HOST`` set; the console in DEBUG);
    True if it was sent. The owner is shown the link either way."""
    if not (settings.EMAIL_HOST or settings.DEBUG):
        return False
    role = Role(invitation.role).label.lower()
    where = f" of the pool {invitation.pool.country_name}" if invitation.pool else ""
    own = ", and to create studies of your own" if invitation.grants_researcher else ""
    send_mail(
        subject=f"Invitation to the study “{invitation.study.name}” on Tessera",
        message=(
            f"You are invited to join the study “{invitation.study.name}” as {role}{where}{own}.\n\n"
            f"Open this link to accept (it expires in {INVITATION_DAYS} days and works once):\n{link}\n"
        ),
        from_email=None, recipient_list=[invitation.email], fail_silently=True,
    )
    return True


def invitation_claim(*, invitation: StudyInvitation, user: AbstractBaseUser) -> bool:
    """Mark the invitation accepted by ``user`` with one conditional UPDATE: True only for the one
    request that found it pending (a second click, a revoked or an expired one: False)."""
    now = timezone.now()
    claimed = StudyInvitation.objects.filter(
        pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
    ).update(accepted_at=now, accepted_by=user)
    return claimed == 1


def invitation_revoke(*, invitation: StudyInvitation) -> bool:
    return bool(
        StudyInvitation.objects.filter(pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True)
        .update(revoked_at=timezone.now())
    )


def membership_grant(*, study: Study, user: AbstractBaseUser, role: str, by: AbstractBaseUser | None) -> StudyMember:
    """An accepted invitation's viewer or editor role: added, or the member's role set to it."""
    if user.pk == study.owner_id:
        raise MemberRefused("You own this study already.")
    member, created = StudyMember.objects.get_or_create(
        study=study, user=user, defaults={"role": role, "created_by": by}
    )
    return member if created else member_role_set(member=member, role=role)


def _check_role(role: str, *, allowed, field: str = "role") -> None:
    if role not in {str(r) for r in allowed}:
        raise MemberRefused(f"Choose one of: {', '.join(Role(r).label for r in allowed)}.", field=field)

"""Who shares a study: its members with their roles, and pending invitations."""


from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from .study import CountryPool, Study


class Role(models.TextChoices):
    """What a study member may do: a viewer reads every page of the study; an editor is a full
    co-researcher except for what only the owner may do (members, Prolific: see ``studies.selectors``).
    A checker reviews one pool's annotations and sees nothing else (its row is ``annotation.Checker``;
    the role is named here for invitations)."""

    VIEWER = "viewer", "Viewer (read-only)"
    EDITOR = "editor", "Editor (co-researcher)"
    CHECKER = "checker", "Checker of a pool"


class StudyMember(models.Model):
    """A researcher who shares a study they do not own, with a role (viewer or editor)."""

    MEMBER_ROLES = (Role.VIEWER, Role.EDITOR)

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_memberships")
    role = models.CharField(max_length=10, choices=[(r.value, r.label) for r in MEMBER_ROLES])
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user"], name="study_member_unique"),
            models.CheckConstraint(condition=Q(role__in=["viewer", "editor"]), name="study_member_role_known"),
        ]

    def __str__(self):
        return f"{self.user} ({self.role}) of {self.study}"


class StudyInvitation(models.Model):
    """An invitation to join a study with a role, sent to an email address. Only the SHA-256 of its
    random token is stored; the link carries the token. Used once: accepted, revoked or expired, it
    opens nothing."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=10, choices=Role.choices)
    pool = models.ForeignKey(
        CountryPool, on_delete=models.CASCADE, null=True, blank=True, related_name="invitations",
        help_text="The pool a checker checks (checkers only).",
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    grants_researcher = models.BooleanField(
        default=False,
        help_text="Accepting it also makes the account a researcher's: it may create studies of its own.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(role="checker") & Q(pool__isnull=False)) | (~Q(role="checker") & Q(pool__isnull=True)),
                name="study_invitation_pool_iff_checker",
            ),
            # one open invitation per address and study (an expired one is closed before a new one)
            models.UniqueConstraint(
                Lower("email"), "study", condition=Q(accepted_at__isnull=True, revoked_at__isnull=True),
                name="study_invitation_one_open_per_email",
            ),
        ]

    def __str__(self):
        return f"{self.email} as {self.role} of {self.study}"

"""Rounds: the participant groups a researcher keeps on Prolific (invited back, or their block list
as Prolific sees it) and their block list (``recruitment/services/rounds.py``)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from studies.models import Study


class ParticipantGroup(models.Model):
    """A Prolific participant group a researcher keeps: the annotators of a finished study who met a
    bar (``kind=invite``, invited back to a later round), or the researcher's block list as Prolific
    sees it (``kind=blocklist``, one per researcher and workspace, mirrored at every launch).

    Owned by one researcher (their token made it; their launches use it): every lookup is scoped to
    ``owner``. The row is written before Prolific is asked, its ``prolific_id`` as soon as Prolific
    answers, so a re-run resumes instead of creating a second group."""

    class Kind(models.TextChoices):
        INVITE = "invite", "Invited back"
        BLOCKLIST = "blocklist", "Block list"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="participant_groups")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.INVITE)
    name = models.CharField(max_length=120)
    prolific_id = models.CharField(max_length=64, blank=True)
    workspace_id = models.CharField(max_length=64, blank=True)
    source_study = models.ForeignKey(
        Study, on_delete=models.SET_NULL, null=True, blank=True, related_name="participant_groups"
    )
    bar = models.JSONField(default=dict, blank=True, help_text="The bar its members met (min_quality, min_gold…).")
    created_at = models.DateTimeField(auto_now_add=True)
    synced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "kind", "name"], name="participant_group_name_unique"),
            models.UniqueConstraint(
                fields=["prolific_id"], condition=~Q(prolific_id=""), name="participant_group_prolific_id_unique"
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.prolific_id or 'not on Prolific yet'})"


class ParticipantGroupMember(models.Model):
    """A participant (Prolific id: personal data, shown to the group's owner only, never exported) of
    a group; ``added_at`` is set once Prolific has them."""

    group = models.ForeignKey(ParticipantGroup, on_delete=models.CASCADE, related_name="members")
    participant_id = models.CharField(max_length=64)
    added_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["group", "participant_id"], name="participant_group_member_unique"),
        ]

    def __str__(self):
        return f"member {self.pk} of group {self.group_id}"


class BlockedParticipant(models.Model):
    """A participant a researcher never recruits again, in any of their launches (why, who, when)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocked_participants")
    participant_id = models.CharField(max_length=64)
    reason = models.CharField(max_length=500)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "participant_id"], name="blocked_participant_unique"),
            models.CheckConstraint(condition=~Q(reason=""), name="blocked_participant_has_reason"),
        ]

    def __str__(self):
        return f"blocked participant {self.pk}"

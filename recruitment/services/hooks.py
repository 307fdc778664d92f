"""Prolific's webhooks set up for the token's workspaces: a signing secret (stored encrypted, to
verify deliveries) and subscriptions to submission and study status changes, delivered to
``SITE_URL/prolific/webhook/``. Idempotent: a workspace whose secret is stored keeps it (creating
one on Prolific replaces the old, which would break verification until stored), and a
subscription already there for the event and address is kept."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse

from ..models import ProlificWebhook
from ..prolific import ProlificClient
from ..rules import is_loopback_url
from ..tokens import client_for, encrypt
from .launch import RecruitmentRefused

EVENT_TYPES = ("submission.status.change", "study.status.change")


def webhook_target_url() -> str:
    return settings.SITE_URL + reverse("recruitment:webhook")


@dataclass
class HooksResult:
    workspace_id: str
    secret_created: bool = False
    subscribed: list[str] = field(default_factory=list)  # event types subscribed now
    kept: list[str] = field(default_factory=list)  # event types already subscribed


def prolific_webhooks_setup(*, user: AbstractBaseUser | None, rotate: bool = False) -> list[HooksResult]:
    """Set up the webhooks of every workspace the token sees; ``rotate`` makes a new secret."""
    target = webhook_target_url()
    # https, unless both ends are on this machine: a loopback Prolific (the fake, which lifts the
    # launch's https rule too) delivering to a loopback site (the demo's http://127.0.0.1).
    trial = is_loopback_url(target) and is_loopback_url(settings.PROLIFIC_API_URL)
    if not (target.startswith("https://") or trial):
        raise RecruitmentRefused(
            f"Prolific delivers webhooks to a public https address only, and this site's is {target}: "
            "set SITE_URL to the site's public https address"
        )
    with client_for(user=user) as client:
        return [
            _workspace_setup(client, str(w["id"]), target, user, rotate=rotate) for w in client.workspaces()
        ]


def _workspace_setup(
    client: ProlificClient, workspace_id: str, target: str, user: AbstractBaseUser | None, *, rotate: bool
) -> HooksResult:
    result = HooksResult(workspace_id)
    row = ProlificWebhook.objects.filter(workspace_id=workspace_id).first()
    who = user if user is not None and user.is_authenticated else None
    if row is None or rotate:
        secret = client.hook_secret_create(workspace_id)
        # stored at once: deliveries signed with it may start any moment
        row, _ = ProlificWebhook.objects.update_or_create(
            workspace_id=workspace_id,
            defaults={"secret_ciphertext": encrypt(str(secret["value"])), "target_url": target, "created_by": who},
        )
        result.secret_created = True
    existing = {
        str(s.get("event_type")): s
        for s in client.hook_subscriptions(workspace_id)
        if s.get("target_url") == target and s.get("is_enabled")
    }
    subscriptions = []
    for event_type in EVENT_TYPES:
        found = existing.get(event_type)
        if found is None:
            created, confirm = client.hook_subscribe(workspace_id, event_type, target)
            found = client.hook_confirm(str(created["id"]), confirm)
            result.subscribed.append(event_type)
        else:
            result.kept.append(event_type)
        subscriptions.append({"id": found.get("id"), "event_type": event_type, "is_enabled": found.get("is_enabled")})
    row.subscriptions = subscriptions
    row.target_url = target
    row.save(update_fields=["subscriptions", "target_url", "updated_at"])
    return result

"""Researchers' personal API tokens: made, revoked, and checked on each request.

A token reads ``tsr_<prefix>_<secret>``: the prefix (8 hex characters) names it in lists and finds its
row; only the SHA-256 of the secret is stored, compared in constant time. It is shown once, when made.
Who may hold one (``is_researcher``): an active account that makes studies (staff) or is a member of
one. Annotators have no account, so no token and no API."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils import timezone

from studies.protocol import text_problem
from studies.selectors import is_researcher as researcher

from .models import ApiToken

TOKEN_START = "tsr_"
PREFIX_CHARS = 8
NAME_MAX = 100
ACTIVE_MAX = 20  # live tokens per account: the settings page's list stays short
LAST_USED_EVERY = timedelta(minutes=1)  # last_used_at written at most this often (one UPDATE)
NOT_RESEARCHER = "The API is for researchers: this account neither makes studies nor is a member of one."
INACTIVE = "This account is inactive: it cannot hold API tokens."


class TokenRefused(ValueError):
    """A token not made; ``field`` names the form field ("name"), or None."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


class TokenInvalid(ValueError):
    """A token that does not authenticate; the message says why (malformed, unknown, revoked)."""


def is_researcher(user: AbstractBaseUser) -> bool:
    """Whether ``user`` may use the API: an active researcher (``studies.selectors.is_researcher``)."""
    return bool(user.is_authenticated and user.is_active and researcher(user))


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def api_token_create(*, user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """A new token of ``user`` named ``name``: (its row, the whole token, which nothing keeps)."""
    name = (name or "").strip()
    if not user.is_active:
        raise TokenRefused(INACTIVE)
    if not is_researcher(user):
        raise TokenRefused(NOT_RESEARCHER)
    if not name:
        raise TokenRefused("Name the token (e.g. the script or machine that uses it).", field="name")
    if len(name) > NAME_MAX or (problem := text_problem(name)):
        raise TokenRefused(problem or f"A name has at most {NAME_MAX} characters.", field="name")
    if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= ACTIVE_MAX:
        raise TokenRefused(f"You have {ACTIVE_MAX} live tokens: revoke one you no longer use first.")
    while True:
        prefix = secrets.token_hex(PREFIX_CHARS // 2)
        if not ApiToken.objects.filter(prefix=prefix).exists():
            break
    secret = secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=prefix, secret_hash=_digest(secret))
    return token, f"{TOKEN_START}{prefix}_{secret}"


def api_token_revoke(*, user: AbstractBaseUser, prefix: str) -> bool:
    """Revoke ``user``'s live token of that prefix; False when they have none (nothing changes)."""
    return bool(
        ApiToken.objects.filter(user=user, prefix=prefix, revoked_at__isnull=True).update(revoked_at=timezone.now())
    )


def api_token_authenticate(raw: str) -> ApiToken:
    """The live token ``raw`` is, its ``user`` loaded, or TokenInvalid saying why. Its last use is
    written at most once a minute, by a conditional UPDATE."""
    head, prefix, secret = raw[: len(TOKEN_START)], raw[len(TOKEN_START): len(TOKEN_START) + PREFIX_CHARS], ""
    if head == TOKEN_START and raw[len(TOKEN_START) + PREFIX_CHARS: len(TOKEN_START) + PREFIX_CHARS + 1] == "_":
        secret = raw[len(TOKEN_START) + PREFIX_CHARS + 1:]
    if not secret or not prefix.isalnum() or not prefix.isascii():
        raise TokenInvalid("Malformed API token: it reads tsr_<prefix>_<secret>, as shown when it was made.")
    token = ApiToken.objects.select_related("user").filter(prefix=prefix).first()
    stored = token.secret_hash if token else _digest("")
    if not hmac.compare_digest(_digest(secret), stored) or token is None:
        raise TokenInvalid("Unknown API token: check that you copied all of it.")
    if token.revoked_at is not None:
        raise TokenInvalid("This API token is revoked: make a new one on your API tokens page.")
    if not token.user.is_active:
        raise TokenInvalid("This API token's account is inactive.")
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lte=now - LAST_USED_EVERY)
        ).update(last_used_at=now)
        token.last_used_at = now
    return token

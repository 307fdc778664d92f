"""Prolific tokens: a researcher's own, encrypted at rest, and the one a call uses.

Encryption is Fernet (AES-128-CBC with HMAC-SHA256, from ``cryptography``). The keys come from
``TESSERA_ENCRYPTION_KEY`` (comma-separated Fernet keys: the first encrypts, all decrypt, so a new
key listed first rotates); without it, one key is derived from ``SECRET_KEY`` with HKDF-SHA256, so
a changed ``SECRET_KEY`` makes stored tokens unreadable and researchers enter theirs again.

A token is resolved as: the researcher's own, else ``PROLIFIC_API_TOKEN`` (the deployment's),
else ``ProlificNotConfigured`` with a message that says how to add one.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from .models import ProlificToken
from .prolific import ProlificClient

_HKDF_SALT = b"tessera.recruitment"
_HKDF_INFO = b"prolific-token-encryption-v1"


class ProlificNotConfigured(Exception):
    """No Prolific token for this researcher, and none for the deployment."""

    def __init__(self, message: str = ""):
        super().__init__(
            message
            or "No Prolific token: add yours on the Prolific settings page (/prolific/settings/), or set "
            "PROLIFIC_API_TOKEN for the whole deployment. Everything else works without Prolific."
        )


class TokenUnreadable(ProlificNotConfigured):
    """A stored token that the current keys cannot decrypt (the key changed)."""


def _fernet() -> MultiFernet:
    keys = list(settings.TESSERA_ENCRYPTION_KEY) or [derived_key(settings.SECRET_KEY)]
    return MultiFernet([Fernet(key) for key in keys])


def derived_key(secret: str) -> bytes:
    """A Fernet key derived from ``secret`` (SECRET_KEY) with HKDF-SHA256."""
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=_HKDF_INFO).derive(secret.encode())
    return base64.urlsafe_b64encode(raw)


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode("ascii")


def decrypt(ciphertext: str) -> str:
    try:
        return _fernet().decrypt(ciphertext.encode("ascii")).decode()
    except InvalidToken:
        raise TokenUnreadable(
            "Your stored Prolific token can no longer be read (the encryption key changed): enter it again "
            "on the Prolific settings page."
        ) from None


# --- services --------------------------------------------------------------------------------


def token_set(*, user: AbstractBaseUser, token: str) -> ProlificToken:
    """Store (or replace) the researcher's own token, encrypted."""
    token = token.strip()
    if not token:
        raise ValueError("an empty token")
    with transaction.atomic():
        row, _ = ProlificToken.objects.update_or_create(user=user, defaults={"ciphertext": encrypt(token)})
    return row


def token_remove(*, user: AbstractBaseUser) -> bool:
    """Forget the researcher's own token; True if there was one."""
    deleted, _ = ProlificToken.objects.filter(user=user).delete()
    return bool(deleted)


# --- selectors -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenState:
    """What the settings page may say of a researcher's token (never the token)."""

    own: ProlificToken | None
    deployment_fallback: bool

    @property
    def usable(self) -> bool:
        return self.own is not None or self.deployment_fallback


def token_state(*, user: AbstractBaseUser) -> TokenState:
    own = ProlificToken.objects.filter(user=user).only("id", "user_id", "created_at", "updated_at").first()
    return TokenState(own=own, deployment_fallback=bool(settings.PROLIFIC_API_TOKEN))


def token_for(*, user: AbstractBaseUser | None) -> str:
    """The token a call for ``user`` uses: theirs, else the deployment's, else ProlificNotConfigured."""
    if user is not None and user.is_authenticated:
        row = ProlificToken.objects.filter(user=user).first()
        if row is not None:
            return decrypt(row.ciphertext)
    if settings.PROLIFIC_API_TOKEN:
        return settings.PROLIFIC_API_TOKEN
    raise ProlificNotConfigured()


def client_for(*, user: AbstractBaseUser | None, token: str | None = None) -> ProlificClient:
    """A Prolific client with ``user``'s token (or the given one), on ``PROLIFIC_API_URL``."""
    return ProlificClient(
        token or token_for(user=user),
        base_url=settings.PROLIFIC_API_URL,
        timeout=float(settings.PROLIFIC_API_TIMEOUT),
        retries=settings.PROLIFIC_API_RETRIES,
    )

"""Prolific's secured study URL (issue 28, part 2): when a pool's launch chose it, Prolific adds a
signed token (an RS256 JWT) to the entry link, and the entry check refuses a link whose token is
missing, expired, for another audience, badly signed or naming another participant.

- The token is read from the query parameter ``settings.PROLIFIC_ENTRY_TOKEN_PARAM`` (default
  ``prolific_token``: Prolific's docs read so far do not name it; annotation's entry view passes it
  on because recruitment registers it, ``annotation.extensions.entry_param_register``).
- Its keys come from Prolific's JWKS (``GET /.well-known/study/jwks.json`` on the API's host),
  cached for an hour and fetched again once when a token names a key id not in the cache (a key
  rotation). Verified with PyJWT: RS256 only, ``exp`` and ``aud`` required; the audience is
  ``settings.PROLIFIC_ENTRY_TOKEN_AUDIENCE`` or else the pool's Prolific study id.
- The ``prolific`` claim must be there (an object); where it names the participant, the study or the
  submission (``participant_id``/``study_id``/``submission_id``, or the URL parameters' names), each
  must be the link's.
- When Prolific's keys cannot be fetched (no answer, a 5xx), the token cannot be checked: the entry
  goes on to the submission check (``recruitment.entry``), which asks Prolific itself.
"""

from __future__ import annotations

from typing import Any

import jwt
from django.conf import settings
from django.core.cache import cache

from .prolific import ProlificError, ProlificRequestError
from .tokens import ProlificNotConfigured, client_for

JWKS_CACHE_KEY = "tessera:prolific-study-jwks"
JWKS_TTL = 3600
LEEWAY = 30  # seconds of clock skew allowed on exp
CLAIM_NAMES = {
    "PROLIFIC_PID": ("participant_id", "PROLIFIC_PID", "participant"),
    "STUDY_ID": ("study_id", "STUDY_ID", "study"),
    "SESSION_ID": ("submission_id", "SESSION_ID", "session_id"),
}


class TokenRefused(Exception):
    """The token does not let the participant in; the message says why (for the entry problems page)."""


class KeysUnavailable(Exception):
    """Prolific's keys could not be fetched: the token cannot be checked now."""


def entry_token_param() -> str:
    return settings.PROLIFIC_ENTRY_TOKEN_PARAM


def _jwks(*, user: Any, fresh: bool = False) -> dict[str, Any]:
    if not fresh:
        cached = cache.get(JWKS_CACHE_KEY)
        if cached:
            return cached
    try:
        with client_for(user=user) as client:
            keys = client.study_jwks()
    except ProlificRequestError as exc:
        raise KeysUnavailable(exc.message) from None
    except (ProlificError, ProlificNotConfigured) as exc:
        raise KeysUnavailable(str(exc)) from None
    if not isinstance(keys, dict) or not isinstance(keys.get("keys"), list):
        raise KeysUnavailable("Prolific's key set is not a JWKS")
    cache.set(JWKS_CACHE_KEY, keys, JWKS_TTL)
    return keys


def _signing_key(token: str, *, user: Any) -> Any:
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except jwt.InvalidTokenError:
        raise TokenRefused("it is not a token") from None
    for fresh in (False, True):
        keys = jwt.PyJWKSet.from_dict(_jwks(user=user, fresh=fresh))
        for key in keys.keys:
            if kid is None or key.key_id == kid:
                return key.key
    raise TokenRefused("it is signed with a key Prolific does not publish")


def entry_token_verify(*, token: str, params: dict[str, str], audience: str, user: Any) -> dict[str, Any]:
    """The token's claims, or TokenRefused; KeysUnavailable when Prolific's keys cannot be had."""
    if not token:
        raise TokenRefused("the link carries no signed token")
    key = _signing_key(token, user=user)
    try:
        claims = jwt.decode(
            token, key, algorithms=["RS256"], audience=settings.PROLIFIC_ENTRY_TOKEN_AUDIENCE or audience,
            leeway=LEEWAY, options={"require": ["exp", "aud"]},
        )
    except jwt.ExpiredSignatureError:
        raise TokenRefused("it has expired") from None
    except jwt.InvalidAudienceError:
        raise TokenRefused("it is for another study") from None
    except jwt.InvalidSignatureError:
        raise TokenRefused("its signature does not match") from None
    except jwt.InvalidTokenError as exc:
        raise TokenRefused(f"it is not valid ({type(exc).__name__})") from None
    prolific = claims.get("prolific")
    if not isinstance(prolific, dict):
        raise TokenRefused("it has no Prolific claim")
    for param, names in CLAIM_NAMES.items():
        named = next((str(prolific[n]) for n in names if prolific.get(n)), None)
        if named is not None and named != params.get(param):
            raise TokenRefused(f"it names another {param}")
    return claims

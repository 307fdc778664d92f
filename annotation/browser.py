"""What ties a session to the browser that started it (pure: no ORM).

The annotator cookie carries a ``BrowserKey``: the session it names, this browser's secret (one per
browser, shared by every session entered in it) and the session's resume code. A session stores
only hashes: SHA-256 of the secret (a long random token), and an HMAC under the site's key of the
resume code (short, so an unkeyed hash of it could be tried exhaustively from a copied database).
Both are compared in constant time.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

from django.utils.crypto import constant_time_compare, salted_hmac

# No 0/O, 1/I/L, so that a code read off a screen is typed right: 31 symbols, 8 of them ≈ 40 bits.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
_CODE_SALT = "tessera.annotation.resume-code"


@dataclass(frozen=True)
class BrowserKey:
    """The annotator cookie's payload. ``secret`` is empty in a cookie set before sessions were bound
    to browsers; ``code`` is empty when this browser does not know the session's resume code."""

    session_pk: int
    secret: str = ""
    code: str = ""

    def dumps(self) -> str:
        return f"{self.session_pk}:{self.secret}:{self.code}" if self.secret else str(self.session_pk)


def key_loads(raw: str | None) -> BrowserKey | None:
    """The key of a cookie value whose signature was checked; None for anything malformed."""
    if not raw:
        return None
    parts = raw.split(":")
    if len(parts) not in (1, 3) or not parts[0].isdigit():
        return None
    if len(parts) == 1:
        return BrowserKey(int(parts[0]))
    return BrowserKey(int(parts[0]), parts[1], parts[2])


def secret_new() -> str:
    return secrets.token_urlsafe(32)


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def code_new() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def code_hash(session_pk: int, code: str) -> str:
    """The stored form of a session's resume code (keyed by the site's SECRET_KEY and the session)."""
    return salted_hmac(_CODE_SALT, f"{session_pk}:{code}", algorithm="sha256").hexdigest()


def code_typed(text: str) -> str:
    """A code as typed: case, spaces and dashes do not matter."""
    return re.sub(r"[\s\-]", "", text or "").upper()[:32]


def code_shown(code: str) -> str:
    """``K7QMXPA3`` shown as ``K7QM-XPA3``."""
    return f"{code[:4]}-{code[4:]}" if len(code) == CODE_LENGTH else code


def hash_matches(stored: str, candidate: str) -> bool:
    """Is ``candidate`` the stored hash (never true of an empty one)?"""
    return bool(stored) and constant_time_compare(stored, candidate)

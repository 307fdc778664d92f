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
    to browsers; ``code`` is empty when this browser does not know the session's resume code.

    ``others``: the browser's other sessions, (session, resume code), latest first: a participant
    (or a researcher trying the demo) with two studies open in two tabs keeps both, each tab's
    requests naming its own item. The pages that name no item show the current session."""

    session_pk: int
    secret: str = ""
    code: str = ""
    others: tuple[tuple[int, str], ...] = ()

    def dumps(self) -> str:
        if not self.secret:
            return str(self.session_pk)
        return f"{self.session_pk}:{self.secret}:{self.code}" + "".join(f";{pk}:{code}" for pk, code in self.others)

    def joined(self, previous: BrowserKey | None) -> BrowserKey:
        """This key with ``previous`` (the cookie it replaces) kept among its others when it is of the
        same browser (same secret): the sessions this browser holds, this one current."""
        if previous is None or not self.secret or previous.secret != self.secret:
            return self
        seen, others = {self.session_pk}, []
        for pk, code in [(previous.session_pk, previous.code), *previous.others]:
            if pk not in seen:
                seen.add(pk)
                others.append((pk, code))
        return BrowserKey(self.session_pk, self.secret, self.code, tuple(others[:OTHERS_KEPT]))

    def switched(self, session_pk: int) -> BrowserKey:
        """The key with ``session_pk`` (one of ``others``) current and this one among the others."""
        code = dict(self.others).get(session_pk, "")
        held = [(self.session_pk, self.code), *((pk, c) for pk, c in self.others if pk != session_pk)]
        return BrowserKey(session_pk, self.secret, code, tuple(held[:OTHERS_KEPT]))


OTHERS_KEPT = 4  # other sessions a browser's cookie keeps besides its current one


def key_loads(raw: str | None) -> BrowserKey | None:
    """The key of a cookie value whose signature was checked; None for anything malformed."""
    if not raw:
        return None
    first, *rest = raw.split(";")
    parts = first.split(":")
    if len(parts) not in (1, 3) or not parts[0].isdigit():
        return None
    if len(parts) == 1:
        return None if rest else BrowserKey(int(parts[0]))
    others = [other.split(":") for other in rest]
    if any(len(o) != 2 or not o[0].isdigit() for o in others):
        return None
    return BrowserKey(int(parts[0]), parts[1], parts[2], tuple((int(pk), code) for pk, code in others)[:OTHERS_KEPT])


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

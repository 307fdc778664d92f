"""A session bound to the browser that started it, and the explicit ways to continue elsewhere.

Knowing a participant's PROLIFIC_PID and SESSION_ID (both travel in a URL) must not open their
session. So the first browser to enter a session is bound to it (``annotation.browser``); a later
entry from a browser without its secret is not let in, and is asked for the session's resume code,
which the bound browser's pages show. A right code binds the new browser and the old one is then
refused with the same question; five wrong codes lock the code for fifteen minutes.

Prolific's entry check does not replace the code by default: it proves that SESSION_ID is
PROLIFIC_PID's active submission, which anyone holding the link can show as well. A site that
accepts that (``ANNOTATOR_PROLIFIC_REBIND``) binds a new browser on a verified entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..browser import BrowserKey, code_hash, code_new, code_typed, hash_matches, secret_hash, secret_new
from ..models import Session

RESUME_TRIES = 5  # wrong codes in a row before the code is locked
RESUME_LOCK = timedelta(minutes=15)


@dataclass(frozen=True)
class Admission:
    """What an entry link's browser gets: ``key`` for its cookie, or None (it must give the resume code).
    ``rebound``: Prolific's check moved the session here from another browser."""

    session: Session
    key: BrowserKey | None
    rebound: bool = False


class ResumeRefused(Exception):
    """A resume code refused: ``reason`` is "wrong" (``tries_left`` more), "locked" (until ``until``) or
    "gone" (no such session)."""

    def __init__(self, reason: str, *, tries_left: int = 0, until: datetime | None = None):
        super().__init__(reason)
        self.reason = reason
        self.tries_left = tries_left
        self.until = until


def session_admit(*, session: Session, browser: BrowserKey | None, verified: bool = False) -> Admission:
    """Let this browser into ``session`` when it is the one bound to it, or the session is not bound yet
    (then it binds it); else refuse it (``key`` None), unless Prolific verified the entry and the site
    accepts that (then it takes the session over, with a new resume code)."""
    secret = browser.secret if browser is not None else ""
    if not session.browser_hash:
        secret = secret or secret_new()
        code = code_new()
        claimed = Session.objects.filter(pk=session.pk, browser_hash="").update(
            browser_hash=secret_hash(secret), resume_hash=code_hash(session.pk, code)
        )
        if claimed:
            session.browser_hash, session.resume_hash = secret_hash(secret), code_hash(session.pk, code)
            return Admission(session, BrowserKey(session.pk, secret, code))
        session.refresh_from_db(fields=["browser_hash", "resume_hash"])  # another browser bound it just now
    if secret and hash_matches(session.browser_hash, secret_hash(secret)):
        code = "" if browser is None else browser.code if browser.session_pk == session.pk else (
            dict(browser.others).get(session.pk, "")  # back in a session it left for another study's
        )
        if not code:  # its code is not in the cookie any more (a cookie of before it kept several)
            code = _code_renew(session)
        return Admission(session, BrowserKey(session.pk, secret, code))
    if verified and settings.ANNOTATOR_PROLIFIC_REBIND:
        secret = secret or secret_new()
        code = code_new()
        Session.objects.filter(pk=session.pk).update(
            browser_hash=secret_hash(secret), resume_hash=code_hash(session.pk, code),
            resume_failures=0, resume_locked_until=None,
        )
        session.browser_hash = secret_hash(secret)
        return Admission(session, BrowserKey(session.pk, secret, code), rebound=True)
    return Admission(session, None)


def _code_renew(session: Session) -> str:
    code = code_new()
    Session.objects.filter(pk=session.pk).update(resume_hash=code_hash(session.pk, code))
    session.resume_hash = code_hash(session.pk, code)
    return code


def session_resume(*, session_pk: int, typed: str, browser: BrowserKey | None) -> BrowserKey:
    """Bind this browser to the session when ``typed`` is its resume code; a wrong code changes
    nothing but the count of wrong tries (``RESUME_TRIES`` in a row lock it for ``RESUME_LOCK``).
    Raises ``ResumeRefused``."""
    code = code_typed(typed)
    secret = (browser.secret if browser is not None else "") or secret_new()
    now = timezone.now()
    with transaction.atomic():  # the row locked for the compare and its count only, never across a page
        row = Session.objects.select_for_update().only(
            "browser_hash", "resume_hash", "resume_failures", "resume_locked_until"
        ).filter(pk=session_pk).first()
        if row is None:  # the session was deleted since its resume page was shown
            refused = ResumeRefused("gone")
        elif row.resume_locked_until is not None and row.resume_locked_until > now:
            refused = ResumeRefused("locked", until=row.resume_locked_until)
        elif hash_matches(row.resume_hash, code_hash(session_pk, code)):
            Session.objects.filter(pk=session_pk).update(
                browser_hash=secret_hash(secret), resume_failures=0, resume_locked_until=None
            )
            return BrowserKey(session_pk, secret, code)
        elif row.resume_failures + 1 >= RESUME_TRIES:
            until = now + RESUME_LOCK
            Session.objects.filter(pk=session_pk).update(resume_failures=0, resume_locked_until=until)
            refused = ResumeRefused("locked", until=until)
        else:
            Session.objects.filter(pk=session_pk).update(resume_failures=row.resume_failures + 1)
            refused = ResumeRefused("wrong", tries_left=RESUME_TRIES - row.resume_failures - 1)
    raise refused

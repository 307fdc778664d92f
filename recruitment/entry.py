"""The entry check of a pool recruited on Prolific (registered in annotation's entry checks by
``RecruitmentConfig.ready``): the submission named by SESSION_ID must be the participant's
(PROLIFIC_PID), of the pool's study (STUDY_ID), and still active, as Prolific's own
anti-spoofing advice asks (``GET /submissions/{SESSION_ID}/``).

The entry link is the annotator's hot path, so:
- a pool without a Prolific study costs one indexed lookup, and the annotation app's own check of
  STUDY_ID applies as before;
- Prolific is asked at most once per SESSION_ID: the answer is kept in the submission's row
  (``ProlificSubmission``, with the session it opened), which every later entry reads instead;
  a refusal, which creates no row, is remembered in the cache for a few minutes;
- Prolific's 4xx about the submission is its answer, a refusal (``prolific_refused``): 404 (unknown),
  403 (not a submission this token may see), 400 or 422 (not a submission id it takes) refuse the
  participant at once, as a mismatch does; nothing is created and no item leased;
- only when Prolific cannot answer about the submission (no answer or a time-out, a 5xx, a 429: rate
  limited, a 401: our token refused, as with no usable token) is the participant let in, the row
  marked ``pending`` and a beat task asks again later (``services.sync.prolific_entries_recheck``);
  the study's Prolific page lists such entries.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.extensions import EntryVerdict
from annotation.models import Session
from studies.models import CountryPool

from .models import ProlificStudy, ProlificSubmission
from .prolific import ProlificError
from .prolific import Submission as RemoteSubmission
from .signed_entry import KeysUnavailable, TokenRefused, entry_token_param, entry_token_verify
from .tokens import ProlificNotConfigured, client_for

REFUSAL_TTL = 300  # seconds a refusal is remembered (no row is created for it)
# Prolific's 4xx that say nothing of the submission: our token refused (401), the request timed out
# (408), too many requests (429). The check could not be made: the entry is let in unverified.
UNANSWERED_4XX = frozenset({401, 408, 429})
# A participant whose submission reached one of these may not come back in.
ENDED = frozenset({"RETURNED", "REJECTED", "SCREENED OUT"})


def prolific_entry_check(pool: CountryPool, params: dict[str, str]) -> EntryVerdict | None:
    found = ProlificStudy.objects.filter(pool_id=pool.pk).exclude(prolific_id="").values_list(
        "pk", "prolific_id", "secured_entry", "test_study_id"
    )
    row = found.first()
    if row is None:
        return None  # not recruited on Prolific: annotation's own check applies
    prolific_study_pk, prolific_id, secured, test_study_id = row
    if (refusal := _link_refusal(pool, params, prolific_id, secured=secured, test_study_id=test_study_id)):
        return refusal
    known = ProlificSubmission.objects.filter(prolific_id=params["SESSION_ID"]).first()
    if known is not None:
        return _verdict_of_row(known, prolific_study_pk, params)
    refusal_key = _refusal_key(params)
    remembered = cache.get(refusal_key)
    if remembered is not None:
        return EntryVerdict("refuse", *remembered)
    try:
        with client_for(user=pool.study.owner) as client:
            remote = client.submission_get(params["SESSION_ID"])
    except ProlificError as exc:
        if exc.status == 404:  # no such submission: a link cut short or typed, not someone else's
            return _refuse(refusal_key, "unknown_submission")
        if prolific_refused(exc):
            return _refuse(refusal_key, "wrong_participant")
        return _unverified(prolific_study_pk, params, exc.message)
    except ProlificNotConfigured as exc:  # no token, or one that cannot be read
        return _unverified(prolific_study_pk, params, str(exc))
    if remote.participant != params["PROLIFIC_PID"]:
        return _refuse(refusal_key, "wrong_participant")
    if remote.study_id != params["STUDY_ID"]:
        return _refuse(refusal_key, "wrong_study")
    if remote.status != ProlificSubmission.Status.ACTIVE:
        return _refuse(refusal_key, "not_active", _status_text(remote.status))
    return EntryVerdict("allow", entered=_recorder(prolific_study_pk, params, remote))


def _link_refusal(
    pool: CountryPool, params: dict[str, str], prolific_id: str, *, secured: bool, test_study_id: str = ""
) -> EntryVerdict | None:
    """The link's STUDY_ID, and with Prolific's secured study URL its signed token (``signed_entry``):
    a refusal, or None when they let in. The STUDY_ID of the pool's Prolific test study (``services.trials``)
    is a test entry: walked in the path preview, nothing stored."""
    if test_study_id and params["STUDY_ID"] == test_study_id:
        return EntryVerdict("test")
    accepted = {prolific_id, pool.study.prolific_study_id} - {""}
    if params["STUDY_ID"] not in accepted:
        return EntryVerdict("refuse", "wrong_study")
    if not secured:
        return None
    try:
        entry_token_verify(token=params.get(entry_token_param(), ""), params=params, audience=prolific_id,
                           user=pool.study.owner)
    except TokenRefused as exc:
        return EntryVerdict("refuse", "bad_token", str(exc))
    except KeysUnavailable:
        return None  # the keys cannot be had now: the submission check asks Prolific itself
    return None


def prolific_refused(exc: ProlificError) -> bool:
    """Whether Prolific's error answers the question about the submission: a 4xx other than
    ``UNANSWERED_4XX`` (a refusal), where a time-out, a 5xx or a 429 leaves it open."""
    return exc.status is not None and 400 <= exc.status < 500 and exc.status not in UNANSWERED_4XX


def _verdict_of_row(row: ProlificSubmission, prolific_study_pk: int, params: dict[str, str]) -> EntryVerdict:
    """The verdict from what is known of the submission already: no call to Prolific."""
    if row.participant_id != params["PROLIFIC_PID"] or row.entry_check == ProlificSubmission.Check.FAILED:
        return EntryVerdict("refuse", "wrong_participant")
    if row.prolific_study_id != prolific_study_pk:
        return EntryVerdict("refuse", "wrong_study")
    if row.status in ENDED:
        return EntryVerdict("refuse", "not_active", _status_text(row.status))
    if row.session_id is None and row.status not in ("ACTIVE", "UNKNOWN"):
        # known from Prolific's list only, and no longer active: it never entered, it may not now
        return EntryVerdict("refuse", "not_active", _status_text(row.status))
    outcome = "unverified" if row.entry_check == ProlificSubmission.Check.PENDING else "allow"
    return EntryVerdict(outcome, entered=_linker(row))  # type: ignore[arg-type]


def _status_text(status: str) -> str:
    known = status in ProlificSubmission.Status.values
    return str(ProlificSubmission.Status(status).label).lower() if known else status


def _refusal_key(params: dict[str, str]) -> str:
    digest = hashlib.sha256("\x1f".join(params[n] for n in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")).encode())
    return f"tessera:entry-refused:{digest.hexdigest()[:32]}"


def _refuse(key: str, reason: str, detail: str = "") -> EntryVerdict:
    cache.set(key, (reason, detail), REFUSAL_TTL)
    return EntryVerdict("refuse", reason, detail)


def _unverified(prolific_study_pk: int, params: dict[str, str], why: str) -> EntryVerdict:
    return EntryVerdict("unverified", entered=_recorder(prolific_study_pk, params, None, why=why))


def _recorder(
    prolific_study_pk: int, params: dict[str, str], remote: RemoteSubmission | None, *, why: str = ""
) -> Callable[[Session], None]:
    """Record the entry's submission with its session: verified with Prolific's answer, or pending."""

    def record(session: Session) -> None:
        now = timezone.now()
        fields: dict[str, object] = {"prolific_study_id": prolific_study_pk, "participant_id": params["PROLIFIC_PID"],
                                     "session": session}
        if remote is not None:
            fields.update(status=remote.status, entry_check=ProlificSubmission.Check.VERIFIED, checked_at=now)
        else:
            fields.update(entry_check=ProlificSubmission.Check.PENDING, check_note=f"Unverified at entry: {why}"[:500])
        try:
            with transaction.atomic():
                ProlificSubmission.objects.create(prolific_id=params["SESSION_ID"], **fields)
        except IntegrityError:  # a parallel entry (or a sync) recorded it first
            _linker(ProlificSubmission.objects.get(prolific_id=params["SESSION_ID"]))(session)

    return record


def _linker(row: ProlificSubmission) -> Callable[[Session], None]:
    """Tie the submission to the session it opened, when it is not yet (a write only the first time)."""

    def link(session: Session) -> None:
        if row.session_id is None:
            ProlificSubmission.objects.filter(pk=row.pk, session__isnull=True).update(session=session)
        if row.entry_check == ProlificSubmission.Check.NONE:  # known from Prolific's list: its word
            ProlificSubmission.objects.filter(pk=row.pk, entry_check="").update(
                entry_check=ProlificSubmission.Check.VERIFIED, checked_at=timezone.now()
            )

    return link

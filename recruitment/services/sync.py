"""Submissions kept as Prolific reports them, by webhooks (``recruitment.webhooks``), by the
periodic sync (``prolific_study_sync``, Celery beat and ``manage.py prolific sync``) and by the
background recheck of entries let in unverified (``prolific_entries_recheck``).

What a status means here is written once, in ``prolific_submission_apply``: a RETURNED, TIMED-OUT
or REJECTED submission gives its session's open lease back (what was submitted is kept), and a
RETURNED one's annotations stop counting unless the study's policy counts them. Every step is
idempotent (a repeat, a replayed webhook or two syncs at once change nothing more), so webhooks
and the sync may overlap freely.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q
from django.utils import timezone

from annotation.models import Session
from annotation.services import session_annotations_withdraw, session_release
from studies.models import Study

from ..entry import prolific_refused
from ..models import ProlificEvent, ProlificStudy, ProlificSubmission, RecruitmentPolicy
from ..prolific import ProlificClient, ProlificError
from ..prolific import Submission as RemoteSubmission
from ..prolific_answers import answer_time
from ..tokens import ProlificNotConfigured, client_for
from .launch import workspace_record
from .places import prolific_places_sync

# Statuses after which the participant holds no item: their lease goes back to the pool.
RELEASING = frozenset({"RETURNED", "TIMED-OUT", "REJECTED"})
KNOWN_STATUSES = frozenset(ProlificSubmission.Status.values)


def returned_count(*, study_id: int) -> bool:
    """Does the study count the annotations of participants who returned (its policy; off without one)?"""
    return bool(
        RecruitmentPolicy.objects.filter(study_id=study_id).values_list("count_returned", flat=True).first() or False
    )


def _status_of(status: str) -> str:
    status = "TIMED-OUT" if status == "TIME-OUT" else status
    return status if status in KNOWN_STATUSES else ProlificSubmission.Status.UNKNOWN


def _remote_fields(remote: RemoteSubmission) -> dict[str, object]:
    """What Prolific's list or element says of a submission: its times and code, where given."""
    raw = remote.raw
    fields: dict[str, object] = {}
    for name, key in (
        ("started_at", "started_at"), ("completed_at", "completed_at"), ("return_requested_at", "return_requested"),
    ):
        value = answer_time(raw.get(key))
        if value is not None:
            fields[name] = value
    code = str(raw.get("study_code") or raw.get("entered_code") or "")[:64]
    if code:
        fields["study_code"] = code
    return fields


def prolific_submission_apply(*, row: ProlificSubmission, status: str, remote: RemoteSubmission | None = None) -> str:
    """Record Prolific's ``status`` of the submission ``row`` and act on it; returns what was done
    ("" when nothing). ``remote`` (from Prolific's list or element) also fills its times and code."""
    status = _status_of(status)
    changes: dict[str, object] = {}
    if row.status != status:
        changes["status"] = status
    if remote is not None:
        changes.update({k: v for k, v in _remote_fields(remote).items() if getattr(row, k) != v})
    done: list[str] = []
    if status in RELEASING and row.session_id is not None:
        if session_release(session=row.session):
            done.append("lease released")
        if row.released_at is None:
            changes["released_at"] = timezone.now()
    if changes:
        for name, value in changes.items():
            setattr(row, name, value)
        ProlificSubmission.objects.filter(pk=row.pk).update(**changes, updated_at=timezone.now())
        if "status" in changes:
            done.insert(0, f"status {status}")
    if status == ProlificSubmission.Status.RETURNED and row.session_id is not None:
        study_id = row.prolific_study.pool.study_id
        if not returned_count(study_id=study_id) and session_annotations_withdraw(session=row.session):
            done.append("annotations withdrawn")
    return ", ".join(done)


UPSERT_CHUNK = 200


def submission_rows(
    *, prolific_study: ProlificStudy, remotes: Sequence[RemoteSubmission]
) -> tuple[dict[str, ProlificSubmission], int]:
    """The rows of the submissions Prolific listed, by id: those known, and the new ones created
    (safe when a webhook or another sync inserts the same meanwhile), each tied to the annotator
    session it opened here. Three or four queries a chunk; returns the rows and how many are new."""
    ids = [r.id for r in remotes]
    known = ProlificSubmission.objects.filter(prolific_id__in=ids).select_related("prolific_study__pool")
    rows = {s.prolific_id: s for s in known}
    sessions = dict(
        Session.objects.filter(annotator__study_id=prolific_study.pool.study_id, prolific_session_id__in=ids)
        .values_list("prolific_session_id", "pk")
    )
    new = [
        ProlificSubmission(
            prolific_study=prolific_study, prolific_id=r.id, participant_id=r.participant[:64],
            session_id=sessions.get(r.id), status=_status_of(r.status), **_remote_fields(r),
        )
        for r in remotes if r.id not in rows
    ]
    created = 0
    if new:
        ProlificSubmission.objects.bulk_create(new, ignore_conflicts=True)
        fresh = ProlificSubmission.objects.filter(prolific_id__in=[n.prolific_id for n in new])
        for sub in fresh.select_related("prolific_study__pool"):
            created += sub.prolific_id not in rows
            rows[sub.prolific_id] = sub
    untied = [s for s in rows.values() if s.session_id is None and sessions.get(s.prolific_id)]
    for sub in untied:
        sub.session_id = sessions[sub.prolific_id]
    if untied:
        ProlificSubmission.objects.bulk_update(untied, ["session"])
    return rows, created


# --- the periodic sync ------------------------------------------------------------------------


@dataclass
class SyncResult:
    prolific_study: ProlificStudy
    seen: int = 0
    created: int = 0  # submissions new here
    changed: list[str] = field(default_factory=list)  # one line per submission acted on
    places: str = ""  # what the places sync did
    error: str = ""

    @property
    def summary(self) -> str:
        plural = "s" if self.seen != 1 else ""
        text = f"{self.seen} submission{plural} read: {self.created} new, {len(self.changed)} changed"
        return f"{text}; {self.places}." if self.places else f"{text}."


def prolific_study_sync(
    *, prolific_study: ProlificStudy, user: AbstractBaseUser | None, client: ProlificClient | None = None
) -> SyncResult:
    """Every submission of the pool's study, page by page, recorded and acted on (leases of
    returned, timed-out and rejected ones given back, a returned one's annotations withdrawn unless
    the study counts them), then the study's status and places brought in step
    (``prolific_places_sync``). What the periodic sync, the embedded scheduler, ``manage.py
    prolific sync`` and the page's "Refresh from Prolific" all run. Idempotent."""
    row = prolific_study
    result = SyncResult(row)
    if not row.created:
        return result
    if client is None:
        with client_for(user=user) as own:
            return prolific_study_sync(prolific_study=row, user=user, client=own)
    if not row.workspace_id:
        workspace_record(client, row)  # a study launched before workspaces were recorded
    chunk: list[RemoteSubmission] = []
    for remote in client.submissions(row.prolific_id):
        chunk.append(remote)
        if len(chunk) >= UPSERT_CHUNK:
            _chunk_apply(row, chunk, result)
            chunk = []
    if chunk:
        _chunk_apply(row, chunk, result)
    result.places = prolific_places_sync(prolific_study=row, user=user).changed
    ProlificStudy.objects.filter(pk=row.pk).update(synced_at=timezone.now())
    return result


def _chunk_apply(row: ProlificStudy, chunk: list[RemoteSubmission], result: SyncResult) -> None:
    rows, created = submission_rows(prolific_study=row, remotes=chunk)
    result.seen += len(chunk)
    result.created += created
    for remote in chunk:
        submission = rows[remote.id]
        if submission.prolific_study_id != row.pk:
            continue  # another pool's submission id: never moved between studies
        submission.prolific_study = row
        if submission.participant_id != remote.participant and submission.entry_check == "pending":
            _recheck_failed(submission, f"Prolific lists it for participant {remote.participant}")
            result.changed.append(f"{remote.id}: participant does not match")
            continue
        if submission.entry_check == ProlificSubmission.Check.PENDING:
            _recheck_passed(submission)
        done = prolific_submission_apply(row=submission, status=remote.status, remote=remote)
        if done:
            result.changed.append(f"{remote.id}: {done}")


def prolific_studies_sync(*, study: Study | None = None) -> list[SyncResult]:
    """Sync every pool's Prolific study (of ``study``, or of every study), each with its study
    owner's token. A pool that fails is reported and the others still run."""
    rows = ProlificStudy.objects.exclude(prolific_id="").select_related("pool__study__owner")
    if study is None:
        rows = rows.exclude(status__in=["", "UNPUBLISHED", "COMPLETED"])
    else:
        rows = rows.filter(pool__study=study)
    results = []
    for row in rows.order_by("pk"):
        try:
            results.append(prolific_study_sync(prolific_study=row, user=row.pool.study.owner))
        except (ProlificError, ProlificNotConfigured, ValueError) as exc:
            results.append(SyncResult(row, error=str(exc)))
    return results


EVENTS_KEPT = timedelta(days=7)  # longer than Prolific retries a delivery (24 hours)


def prolific_events_prune(*, now: datetime | None = None) -> int:
    """Forget webhook event ids older than any retry of them could be; returns how many."""
    deleted, _ = ProlificEvent.objects.filter(received_at__lt=(now or timezone.now()) - EVENTS_KEPT).delete()
    return deleted


# --- entries let in unverified, checked again -------------------------------------------------

RECHECK_MAX_ATTEMPTS = 20


def _recheck_due(now: datetime) -> Q:
    """Pending rows whose next try is due: after 1, 2, 4… minutes (at most an hour) since the last."""
    due = Q(checked_at__isnull=True)
    for attempts in range(RECHECK_MAX_ATTEMPTS):
        wait = timedelta(minutes=min(2**attempts, 60))
        due |= Q(check_attempts=attempts, checked_at__lte=now - wait)
    return due


def prolific_entries_recheck(*, now: datetime | None = None, limit: int = 200) -> int:
    """Ask Prolific again about entries let in unverified (it could not be asked at entry); return
    how many were settled (verified, or found not to match: then the session's lease is released
    and the researcher sees why). Rows still unanswerable are tried again later, with backoff."""
    now = now or timezone.now()
    pending = (
        ProlificSubmission.objects.filter(entry_check=ProlificSubmission.Check.PENDING)
        .filter(_recheck_due(now))
        .select_related("prolific_study__pool__study__owner", "session")
        .order_by("pk")[:limit]
    )
    settled = 0
    for row in pending:
        claimed = ProlificSubmission.objects.filter(
            pk=row.pk, entry_check="pending", check_attempts=row.check_attempts
        ).update(check_attempts=row.check_attempts + 1, checked_at=now)
        if not claimed:
            continue  # another worker took it
        row.check_attempts += 1
        row.checked_at = now
        try:
            with client_for(user=row.prolific_study.pool.study.owner) as client:
                remote = client.submission_get(row.prolific_id)
        except ProlificError as exc:
            if prolific_refused(exc):  # Prolific answered, and refused: as at the entry
                why = f"Prolific refused it ({exc.status})"
                if exc.status == 404:
                    why = "Prolific does not know this submission"
                _recheck_failed(row, why)
                settled += 1
            else:
                ProlificSubmission.objects.filter(pk=row.pk).update(check_note=f"Still unverified: {exc}"[:500])
            continue
        except ProlificNotConfigured as exc:
            ProlificSubmission.objects.filter(pk=row.pk).update(check_note=f"Still unverified: {exc}"[:500])
            continue
        if remote.participant != row.participant_id:
            _recheck_failed(row, f"Prolific says the submission is participant {remote.participant}'s")
        elif remote.study_id not in {row.prolific_study.prolific_id, row.prolific_study.pool.study.prolific_study_id}:
            _recheck_failed(row, f"Prolific says the submission belongs to study {remote.study_id}")
        else:
            _recheck_passed(row)
            prolific_submission_apply(row=row, status=remote.status, remote=remote)
        settled += 1
    return settled


def _recheck_passed(row: ProlificSubmission) -> None:
    row.entry_check, row.check_note = ProlificSubmission.Check.VERIFIED, ""
    ProlificSubmission.objects.filter(pk=row.pk).update(entry_check=row.entry_check, check_note="")


def _recheck_failed(row: ProlificSubmission, why: str) -> None:
    """The entry let in unverified does not match Prolific's submission: its lease goes back and
    the researcher sees why (its annotations are kept for them to judge)."""
    row.entry_check, row.check_note = ProlificSubmission.Check.FAILED, why[:500]
    ProlificSubmission.objects.filter(pk=row.pk).update(entry_check=row.entry_check, check_note=row.check_note)
    if row.session_id is not None:
        session_release(session=row.session)


# --- the study's policy on returned participants ----------------------------------------------


def recruitment_policy_set(*, study: Study, count_returned: bool, user: AbstractBaseUser | None) -> int:
    """Choose whether the study counts the annotations of participants who returned, and apply it
    to those already returned; returns how many annotations changed."""
    RecruitmentPolicy.objects.update_or_create(
        study=study,
        defaults={"count_returned": count_returned, "updated_by": user if user and user.is_authenticated else None},
    )
    returned = ProlificSubmission.objects.filter(
        prolific_study__pool__study=study, status=ProlificSubmission.Status.RETURNED, session__isnull=False
    ).select_related("session")
    return sum(
        session_annotations_withdraw(session=row.session, withdrawn=not count_returned) for row in returned
    )

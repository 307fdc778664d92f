"""A pool's submissions read from Prolific and mirrored in ``ProlificSubmission`` (status, code,
times, the annotator session), for the review page and for the actions that change them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from annotation.models import Session

from ..models import ProlificAction, ProlificStudy, ProlificSubmission
from ..prolific import ProlificClient, Submission
from ..prolific_answers import answer_time
from ..tokens import client_for
from .launch import RecruitmentRefused

Kind = ProlificAction.Kind
UPSERT_CHUNK = 200


# --- reading the submissions -----------------------------------------------------------------


@dataclass(frozen=True)
class RefreshResult:
    seen: int
    created: int
    changed: int


def prolific_submissions_refresh(
    *, prolific_study: ProlificStudy, user: AbstractBaseUser | None, client: ProlificClient | None = None
) -> RefreshResult:
    """Every submission of the pool's study, listed by Prolific (page by page), upserted as
    ``ProlificSubmission`` rows and tied to the annotator session each opened. Idempotent: a
    repeat changes only what Prolific changed. The periodic sync can call it (pass its client)."""
    row = prolific_study
    if not row.created:
        raise RecruitmentRefused(f"{row.pool.country_name}: the study is not on Prolific yet")
    if client is None:
        with client_for(user=user) as own:
            return prolific_submissions_refresh(prolific_study=row, user=user, client=own)
    seen = created = changed = 0
    chunk: list[Submission] = []
    for remote in client.submissions(row.prolific_id):
        chunk.append(remote)
        if len(chunk) >= UPSERT_CHUNK:
            c, u = _upsert(row, chunk)
            seen, created, changed = seen + len(chunk), created + c, changed + u
            chunk = []
    if chunk:
        c, u = _upsert(row, chunk)
        seen, created, changed = seen + len(chunk), created + c, changed + u
    return RefreshResult(seen, created, changed)


SUBMISSION_FIELDS = ("participant_id", "status", "study_code", "started_at", "completed_at", "return_requested_at")


def _fields_from(remote: Submission) -> dict[str, Any]:
    raw = remote.raw
    status = remote.status if remote.status in ProlificSubmission.Status.values else ProlificSubmission.Status.UNKNOWN
    return {
        "participant_id": remote.participant,
        "status": status,
        "study_code": str(raw.get("study_code") or raw.get("entered_code") or "")[:64],
        "started_at": answer_time(raw.get("started_at")),
        "completed_at": answer_time(raw.get("completed_at")),
        "return_requested_at": answer_time(raw.get("return_requested")),
    }


def _upsert(row: ProlificStudy, remotes: Sequence[Submission]) -> tuple[int, int]:
    """Create the new rows and update the changed ones (three or four queries a chunk)."""
    ids = [r.id for r in remotes]
    existing = {s.prolific_id: s for s in ProlificSubmission.objects.filter(prolific_id__in=ids)}
    sessions = dict(
        Session.objects.filter(annotator__study_id=row.pool.study_id, prolific_session_id__in=ids)
        .values_list("prolific_session_id", "pk")
    )
    new, dirty = [], []
    for remote in remotes:
        fields = _fields_from(remote)
        found = existing.get(remote.id)
        if found is None:
            new.append(ProlificSubmission(
                prolific_study=row, prolific_id=remote.id, session_id=sessions.get(remote.id), **fields
            ))
            continue
        before = [getattr(found, key) for key in SUBMISSION_FIELDS] + [found.session_id]
        for key, value in fields.items():
            setattr(found, key, value)
        if found.session_id is None:
            found.session_id = sessions.get(remote.id)
        if before != [getattr(found, key) for key in SUBMISSION_FIELDS] + [found.session_id]:
            found.updated_at = timezone.now()
            dirty.append(found)
    # ignore_conflicts: a webhook or the sync may insert the same submission meanwhile
    ProlificSubmission.objects.bulk_create(new, ignore_conflicts=True)
    if dirty:
        ProlificSubmission.objects.bulk_update(dirty, [*SUBMISSION_FIELDS, "session", "updated_at"])
    return len(new), len(dirty)


def submission_mirror(sub: ProlificSubmission, remote: Submission | dict[str, Any]) -> None:
    """Write what Prolific answered of one submission (its status; a return's request time)."""
    raw = remote.raw if isinstance(remote, Submission) else remote
    status = raw.get("status")
    if status == "TIME-OUT":
        status = "TIMED-OUT"
    update: dict[str, Any] = {}
    if status in ProlificSubmission.Status.values:
        update["status"] = status
    if raw.get("return_requested"):
        update["return_requested_at"] = answer_time(raw["return_requested"])
    if update:
        update["updated_at"] = timezone.now()
        ProlificSubmission.objects.filter(pk=sub.pk).update(**update)
        for key, value in update.items():
            setattr(sub, key, value)

"""A published study's places kept in step with its pool: raised when slots reopen and Prolific
has used its places, the study paused when the pool is full and resumed when slots reopen (only if
the platform paused it). Called by ``manage.py prolific places`` now, by the periodic sync later.

Places are never lowered (Prolific refuses it after publishing); the target is the places taken
(participants in or done) plus one place per session's worth of open slots. Participants on their
way from Prolific to the entry link hold no lease yet, so the target may run a little ahead of the
need: they take their slot when they arrive.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from ..models import ProlificAction, ProlificStudy
from ..prolific import ProlificError
from ..rules import places_for
from ..tokens import client_for
from .body import pool_open_slots
from .launch import RecruitmentRefused, action_log, status_mirror

RUNNING = {"ACTIVE", "PAUSED", "AWAITING REVIEW"}


@dataclass(frozen=True)
class PlacesResult:
    prolific_study: ProlificStudy
    open_slots: int
    changed: str  # what was done on Prolific, "" when nothing was needed


def prolific_places_sync(*, prolific_study: ProlificStudy, user: AbstractBaseUser | None) -> PlacesResult:
    row = prolific_study
    if not row.created:
        raise RecruitmentRefused(f"{row.pool.country_name}: the study is not on Prolific yet; launch it first")
    open_slots = pool_open_slots(row.pool)
    needed = places_for(open_slots=open_slots, session_size=row.pool.study.items_per_session)
    done: list[str] = []
    with client_for(user=user) as client:
        remote = client.study_get(row.prolific_id)
        status_mirror(row, remote)
        if remote.status == "UNPUBLISHED":
            if needed and needed != remote.total_available_places:
                remote = _places_set(client, row, needed, user)
                done.append(f"places set to {needed}")
            return PlacesResult(row, open_slots, "; ".join(done))
        if remote.status not in RUNNING or _stopped(row, remote):
            return PlacesResult(row, open_slots, "")
        target = remote.places_taken + needed
        if target > remote.total_available_places:
            remote = _places_set(client, row, target, user)
            done.append(f"places raised to {target}")
        if open_slots == 0 and remote.status == "ACTIVE":
            remote = _transition(client, row, "PAUSE", ProlificAction.Kind.PAUSE, user)
            row.paused_when_full = True
            done.append("paused: the pool is full")
        elif open_slots > 0 and remote.status == "PAUSED" and row.paused_when_full and row.pool.study.is_open:
            remote = _transition(client, row, "START", ProlificAction.Kind.RESUME, user)
            row.paused_when_full = False
            done.append("resumed: slots reopened")
        row.save(update_fields=["paused_when_full"])
    return PlacesResult(row, open_slots, "; ".join(done))


def _stopped(row: ProlificStudy, remote) -> bool:
    """Awaiting review because someone stopped it (places left, or a stop sent from here), not
    because its places were used: more places would start it again, so it is left alone."""
    if remote.status != "AWAITING REVIEW":
        return False
    return remote.places_taken < remote.total_available_places or row.actions.filter(
        kind=ProlificAction.Kind.STOP, ok=True
    ).exists()


def _places_set(client, row: ProlificStudy, places: int, user):
    try:
        remote = client.study_update(row.prolific_id, {"total_available_places": places})
    except ProlificError as exc:
        action_log(row=row, kind=ProlificAction.Kind.PLACES, user=user, ok=False, error=exc)
        raise
    status_mirror(row, remote)
    action_log(row=row, kind=ProlificAction.Kind.PLACES, user=user, ok=True, answer=remote.raw)
    return remote


def _transition(client, row: ProlificStudy, action: str, kind: str, user):
    try:
        remote = client.study_transition(row.prolific_id, action)
    except ProlificError as exc:
        action_log(row=row, kind=kind, user=user, ok=False, error=exc)
        raise
    status_mirror(row, remote)
    action_log(row=row, kind=kind, user=user, ok=True, answer=remote.raw)
    return remote

"""Leases: which item an annotator is on. An item is leased with a conditional UPDATE on its quota,
so two annotators never overfill it; an expired lease gives its slot back."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from django.core.cache import caches
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Sum
from django.utils import timezone

from studies.models import CountryPool, ItemQuota
from studies.protocol import Protocol, draft_problem

from ..models import Annotation, Annotator, Assignment, Session
from ..quota import max_items_per_annotator, session_total
from ..selectors import (
    LEASE_CANDIDATES,
    idle_newcomer_leases,
    lease_candidates,
    session_assignments,
    session_open_lease,
    with_session_objects,
)
from .checks import check_lease, check_relet
from .locks import assignment_lock, session_lock
from .round_trips import lease_take, one_round_trip


def assignments_expire(*, now: datetime | None = None, pool: CountryPool | None = None, limit: int = 1000) -> int:
    """Give the slots of expired leases back to their quotas. Safe to run concurrently."""
    now = now or timezone.now()
    expired = Assignment.objects.filter(status=Assignment.Status.LEASED, expires_at__lte=now)
    if pool is not None:
        expired = expired.filter(pool=pool)
    count = 0
    for pk, item_id, pool_id in expired.values_list("pk", "item_id", "pool_id")[:limit]:
        with transaction.atomic():
            lease = Assignment.objects.filter(pk=pk, status=Assignment.Status.LEASED)
            if lease.update(status=Assignment.Status.EXPIRED):  # the assignment's row first, then the quota
                ItemQuota.objects.filter(item_id=item_id, pool_id=pool_id, leased__gt=0).update(leased=F("leased") - 1)
                count += 1
    return count


def session_release(*, session: Session) -> int:
    """End the session from outside (a participant who returned their submission, timed out or was
    rejected): no new item is leased to it, and its open lease expires at once, its slot given
    back; what it submitted is kept. Returns the leases released (0 or 1); releasing again does
    nothing. Safe to run concurrently with a submit or a renew of the same lease: the session is
    marked first (a renew after that is refused), then each lease's row is locked, then its quota."""
    now = timezone.now()
    if Session.objects.filter(pk=session.pk, released_at__isnull=True).update(released_at=now):
        session.released_at = now
    leases = Assignment.objects.filter(session=session, status=Assignment.Status.LEASED)
    return sum(lease_release(pk=pk) for pk in leases.values_list("pk", flat=True))


def lease_release(*, pk: int) -> int:
    """Expire one open lease now and give its slot back: its row locked first, then its quota.
    Returns 1, or 0 when it was submitted or expired meanwhile."""
    with transaction.atomic():
        lease = Assignment.objects.filter(pk=pk).only("pk", "item_id", "pool_id").first()
        if lease is None or assignment_lock(lease) != Assignment.Status.LEASED:
            return 0
        Assignment.objects.filter(pk=pk).update(status=Assignment.Status.EXPIRED, expires_at=timezone.now())
        ItemQuota.objects.filter(item_id=lease.item_id, pool_id=lease.pool_id, leased__gt=0).update(
            leased=F("leased") - 1
        )
        return 1


POOL_SLOTS_TTL = 60  # seconds a process keeps a pool's total of wanted annotations


def _annotator_cap(annotator: Annotator) -> int | None:
    pool = annotator.pool
    if not pool.min_distinct_annotators:
        return None
    # The sum over every quota of the pool grows with the study: kept a minute in this process's own
    # cache (a cap a minute old is as fair; it only spreads the work over enough people; no round
    # trip to a shared cache on the hot path).
    slots = caches["local"].get_or_set(
        f"tessera:pool-slots:{pool.pk}",
        lambda: ItemQuota.objects.filter(pool=pool).aggregate(n=Sum("wanted"))["n"] or 0,
        POOL_SLOTS_TTL,
    )
    return max_items_per_annotator(
        slots=slots, min_distinct=pool.min_distinct_annotators, session_size=annotator.study.items_per_session
    )


def session_submitted_count(session: Session, *, fresh: bool = False) -> int:
    """How many items of the session are submitted, counted once per request: kept on the
    ``session`` object (which lives for one request) unless ``fresh``."""
    if fresh or "_submitted_count" not in session.__dict__:
        session.__dict__["_submitted_count"] = session.assignments.filter(status=Assignment.Status.SUBMITTED).count()
    return session.__dict__["_submitted_count"]


def _session_assignments(session: Session) -> list[Assignment]:
    """The session's assignments, latest first, read in one query (a session holds a handful);
    their submitted count is kept on ``session`` for the rest of the request."""
    rows = session_assignments(session)
    session.__dict__["_submitted_count"] = sum(a.status == Assignment.Status.SUBMITTED for a in rows)
    session.__dict__["_assignment_pks"] = [a.pk for a in rows]
    return rows


def session_complete(*, session: Session, now: datetime | None = None) -> Assignment | None:
    """Mark the session's work done. A session whose every submitted item was skipped ends with
    its own outcome (``Annotator.Outcome.ALL_SKIPPED``, the study's ``code_all_skipped``), never the
    completed code.

    Decided with the session's row locked, as a lease is: when a concurrent request (a double
    click's other half) leased an item after this one found none, the session is not ended and that
    lease is returned, for this request to show too (both clicks then show the same item; a lease
    taken once the session ended is refused under the same lock)."""
    now = now or timezone.now()
    with transaction.atomic():
        session_lock(session.pk)
        lease = _session_open_lease(session, now)
        if lease is not None:
            return with_session_objects(lease, session)
        ended = Session.objects.filter(pk=session.pk, completed_at__isnull=True).update(completed_at=now)
    session.refresh_from_db(fields=["completed_at"])
    if not ended:
        return None
    # By the session's assignments' keys (read with them in this request, else now), not by a join:
    # a join's plan depends on the tables' statistics, and with stale ones (a new deployment's first
    # launch, before autovacuum's first ANALYZE) PostgreSQL scanned every annotation for it, 5 s a
    # query at 2,300 annotations in the launch benchmark; a lookup by the unique assignment key is
    # planned the same whatever the statistics.
    pks = session.__dict__.get("_assignment_pks")
    if pks is None:
        pks = list(session.assignments.values_list("pk", flat=True))
    answered = Annotation.objects.filter(assignment_id__in=pks, skipped=False).exists()
    if not answered and session_submitted_count(session, fresh=True):
        outcome = Annotator.Outcome.ALL_SKIPPED
        if Annotator.objects.filter(pk=session.annotator_id, outcome="").update(outcome=outcome):
            session.annotator.outcome = outcome
    return None


def assignment_next(*, session: Session, now: datetime | None = None) -> Assignment | None:
    """The item the annotator is on: their open lease (renewed if it lapsed), or a new one.

    None means the session is over: its batch is done, or no item is left for this annotator.
    """
    now = now or timezone.now()
    if session.completed_at or session.released_at:
        return None
    rows = _session_assignments(session)
    if session_submitted_count(session) >= session.items_target:
        return None
    latest = rows[0] if rows else None  # the item they are on, unless submitted
    position = latest.position + 1 if latest is not None else 1
    if latest is not None and latest.status != Assignment.Status.SUBMITTED:
        if latest.status == Assignment.Status.LEASED and latest.expires_at > now:
            return latest
        if _assignment_renew(latest, now):
            return latest
        # Not renewed: the item is full, or a late submit of it just landed (then the batch may be done).
        if session_submitted_count(session, fresh=True) >= session.items_target:
            return None
    lease = _tried_twice(lambda: _lease_next(session, now, position))
    if lease is NO_ROOM:
        return None  # the annotator took as many items as the pool allows them
    # Nothing open to the annotator: the pool's lapsed leases are swept (Celery beat also does it every
    # minute) and an idle newcomer's lease may yield, then the lease is tried again. Never under the
    # session's lock: the sweep locks other annotators' assignments, then their quotas, one short
    # transaction each, as their submits do; held in the lock's transaction with a quota taken,
    # it waited on a submit that waited on it (a deadlock, seen with a crowd on PostgreSQL).
    # Tried again whatever this sweep freed: a double click's other request may have swept first,
    # the slot it freed still open (take it, or find the lease that other request took with it).
    if lease is None:
        _slots_free(session.annotator, now)
        lease = _tried_twice(lambda: _lease_again(session, now, position))
    return None if lease is NO_ROOM else lease


def _lease_next(session: Session, now: datetime, position: int):
    """The session's next lease, decided under its row's lock: its open one, a check item planned
    at this place, or a new lease of an open quota (None: none is open; NO_ROOM: the cap)."""
    with transaction.atomic():
        # A double click's two requests decide the session's next item one after the other: the
        # second, once the first has leased, shows the first's item. Without the lock it could find
        # the last open slot being taken, not yet see the lease that took it, and end the session
        # with an item held (its page saying the work is done). The session row is locked before
        # any assignment or quota row, as the skip cap's check does.
        if session_lock(session.pk) is not None:
            return NO_ROOM  # ended by a concurrent request (a double click's other half): nothing more
        lease = _session_open_lease(session, now)
        if lease is None and session.schedule:  # an attention check or a gold item planned here
            lease = check_lease(session=session, position=position, now=now, lease_until=_lease_until(session, now))
        return lease if lease is not None else _lease_in_room(session, now, position)


def _lease_again(session: Session, now: datetime, position: int):
    with transaction.atomic():
        if session_lock(session.pk) is not None:
            return NO_ROOM  # ended meanwhile by a concurrent request
        return _session_open_lease(session, now) or _lease_in_room(session, now, position)


def _tried_twice(lease):
    """Run ``lease`` (a transaction of its own) again once when its insert broke a unique constraint:
    another session of the annotator took the same item at the same moment, and the transaction was
    rolled back whole; the second try sees that lease (and no longer offers its item)."""
    try:
        return lease()
    except IntegrityError:
        return lease()


NO_ROOM = object()  # ``_lease_in_room``: the annotator may take no more of the pool's items


def _lease_in_room(session: Session, now: datetime, position: int):
    """A new lease of an open quota, None when none is open, or NO_ROOM when the annotator already
    took as many items as the pool allows them."""
    room = _annotator_room(session.annotator)
    if room is not None and room <= 0:
        return NO_ROOM
    return _lease_open_quota(session=session, now=now, position=position, room=room)


def _session_open_lease(session: Session, now: datetime) -> Assignment | None:
    """The session's live lease as stored now (what this request read of the session may be older:
    a double click's other request may have leased since), read with the session's row locked."""
    lease = session_open_lease(session)
    return lease if lease is not None and lease.expires_at > now else None


def _lease_until(session: Session, now: datetime) -> datetime:
    return now + timedelta(minutes=session.annotator.study.lease_minutes)


def _assignment_renew(assignment: Assignment, now: datetime) -> bool:
    """Keep a lapsed lease (and its draft) when the item still has room. What the caller read may
    be stale (a late submit of the item may have landed since): the stored status decides."""
    until = _lease_until(assignment.session, now)
    with transaction.atomic():
        status = assignment_lock(assignment)
        if status == Assignment.Status.LEASED:
            # Lapsed but not yet swept: the slot is still counted as leased; just extend it.
            Assignment.objects.filter(pk=assignment.pk).update(expires_at=until)
        elif status == Assignment.Status.EXPIRED and assignment.item.check_kind:
            if not check_relet(assignment, until):  # a check item holds no slot
                return False
        elif status == Assignment.Status.EXPIRED:
            took = ItemQuota.objects.with_room().filter(item_id=assignment.item_id, pool_id=assignment.pool_id)
            if not took.update(leased=F("leased") + 1):
                return False
            Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.LEASED, expires_at=until)
        else:  # submitted meanwhile: nothing to renew
            return False
    return _refresh(assignment)


def _refresh(assignment: Assignment) -> bool:
    assignment.refresh_from_db(fields=["status", "expires_at"])
    return True


def _slots_free(annotator: Annotator, now: datetime) -> None:
    """Give the pool's lapsed leases back, else an idle newcomer's lease."""
    if not assignments_expire(now=now, pool=annotator.pool):
        _newcomer_lease_yield(annotator=annotator, pool=annotator.pool, now=now)


def _annotator_room(annotator: Annotator) -> int | None:
    """How many more items the annotator may take under the pool's minimum of distinct annotators
    (0: as many as it allows are taken); None: no cap applies. The cap is never below a session's
    size, so the pool's slots are summed only for an annotator past their first session's worth of
    items."""
    if not annotator.pool.min_distinct_annotators:
        return None
    # check items (attention checks, gold items) take no slot of the pool: not counted against the cap
    taken = annotator.assignments.exclude(status=Assignment.Status.EXPIRED).filter(item__check_kind="").count()
    if taken < annotator.study.items_per_session:
        return None
    cap = _annotator_cap(annotator)
    return None if cap is None else cap - taken


def _newcomer_lease_yield(*, annotator: Annotator, pool: CountryPool, now: datetime) -> bool:
    """Expire one idle newcomer's lease (``selectors.idle_newcomer_leases``) on an item this
    annotator may take, giving its slot back; False when there is none. Its holder, if they come
    back, is treated as after any lapse: renewed if there is room, and a late submit is kept."""
    seen = Assignment.objects.filter(annotator=annotator, item=OuterRef("item_id"))
    idle = (
        idle_newcomer_leases(pool=pool, now=now)
        .exclude(annotator=annotator)
        .exclude(Exists(seen))
        .exclude(item__author_pid=annotator.prolific_pid)
        .order_by("leased_at")
        .values_list("pk", "item_id")
    )
    for pk, item_id in idle[:5]:
        with transaction.atomic():  # the assignment's row first, then the quota
            if Assignment.objects.filter(pk=pk, status=Assignment.Status.LEASED).update(
                status=Assignment.Status.EXPIRED
            ):
                ItemQuota.objects.filter(item_id=item_id, pool_id=pool.pk, leased__gt=0).update(
                    leased=F("leased") - 1
                )
                return True
    return False


def _lease_open_quota(*, session: Session, now: datetime, position: int, room: int | None) -> Assignment | None:
    """Lease one of the open quotas, fewest done first. The candidates read tell how many items are
    still open to the annotator (all of them, when fewer than a lease reads): with ``room``, the
    session's total the page counts, kept on the lease (no query more).

    No savepoint per try: a try whose insert breaks a unique constraint (another session of this
    annotator took the item at the same moment) raises IntegrityError, which rolls back the caller's
    whole transaction (``assignment_next`` tries again once, seeing that lease).

    The lease carries ``likely_next``: the item of the candidate after it (read with the others, no
    query more), which the next lease of the session takes unless the counts changed meanwhile; the
    page fetches its image ahead (static/annotation/prefetch.js). Nothing is leased or counted for it."""
    candidates = lease_candidates(annotator=session.annotator)
    open_items = len(candidates) if len(candidates) < LEASE_CANDIDATES else None
    # Fewest done first; ties in an order of the session's own (a hash: parallel annotators spread over
    # items as with a random draw), so the candidate after the one leased is likely the next lease too.
    candidates.sort(key=lambda c: (c.done, _tie(session.pk, c.item_id)))
    until = _lease_until(session, now)
    for tried, quota in enumerate(candidates):
        total = session_total(
            target=session.items_target, submitted=session_submitted_count(session),
            open_items=None if open_items is None else open_items - tried, room=room,
        )
        lease = _lease_take(session, quota, position=position, now=now, until=until, total=total)
        if lease is not None:
            lease = with_session_objects(lease, session)
            lease.likely_next = candidates[tried + 1].item if tried + 1 < len(candidates) else None
            return lease
    return None


def _tie(session_pk: int, item_id: int) -> int:
    """Where an item stands among equals for a session: the same on every lease of the session."""
    return int.from_bytes(hashlib.blake2b(f"{session_pk}:{item_id}".encode(), digest_size=8).digest(), "big")


def _lease_take(session: Session, quota: ItemQuota, *, position: int, now: datetime, until: datetime,
                total: int) -> Assignment | None:
    """A slot of ``quota`` and the lease holding it, or None when the quota filled meanwhile."""
    annotator = session.annotator
    fields = {"session": session, "annotator": annotator, "item": quota.item, "pool_id": quota.pool_id,
              "position": position, "leased_at": now, "expires_at": until, "session_total": total}
    if one_round_trip():  # the slot and the lease in one statement (round_trips.py)
        pk = lease_take(quota_pk=quota.pk, session_pk=session.pk, annotator_pk=annotator.pk, pool_pk=quota.pool_id,
                        position=position, now=now, until=until, session_total=total)
        return None if pk is None else Assignment(pk=pk, status=Assignment.Status.LEASED, draft={}, **fields)
    if not ItemQuota.objects.with_room().filter(pk=quota.pk).update(leased=F("leased") + 1):
        return None
    return Assignment.objects.create(**fields)


class DraftRefused(Exception):
    """A draft that is not kept (unknown form names, too many or too large values, a text that
    cannot be stored); the message says why."""


def draft_check(*, protocol: Protocol, data: dict[str, list[str]]) -> None:
    """Refuse a draft the engine would not keep (``studies.protocol.drafts``): nothing is stored."""
    problem = draft_problem(protocol, data)
    if problem:
        raise DraftRefused(problem)


def assignment_save_draft(*, assignment: Assignment, data: dict[str, list[str]]) -> bool:
    """Keep what the annotator typed so a reload (in any browser) restores it; DraftRefused for a
    draft its protocol's form could not have posted; False when the item is already submitted."""
    draft_check(protocol=assignment.item.study.spec, data=data)
    return bool(
        Assignment.objects.exclude(status=Assignment.Status.SUBMITTED).filter(pk=assignment.pk).update(draft=data)
    )


"""Quality control in the session: attention checks and gold items put among the ordinary items,
their answers checked, and what failed attention checks lead to (a warning, then the end of the
session with the failed-check outcome).

A check item (``Item.check_kind``) has no quota: it is served by the session's schedule, decided once
when the session starts (``studies.protocol.schedule``) and kept on the session, so a reload, a
second tab or a dead worker sees the same item at the same place. Its answer is a ``CheckAnswer``,
never an ``Annotation``: it enters no quota, no agreement and no export.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from studies.models import CheckKind, Item, Study
from studies.protocol import Validation
from studies.protocol.gold import check_passed, gold_check
from studies.protocol.quality import END, WARN, check_outcome
from studies.protocol.schedule import schedule_rng, session_schedule

from ..models import Annotator, Assignment, CheckAnswer, Session
from ..selectors import with_session_objects
from .locks import assignment_lock, session_lock


def check_items_for(*, annotator: Annotator, study: Study, kind: str) -> list[int]:
    """The check items of ``kind`` the annotator may get: those routed to their pool (by country,
    unless the study routes every item to every pool) that they have not been given before."""
    items = Item.objects.routed_to(annotator.pool, study=study).filter(check_kind=kind, is_example=False)
    seen = Assignment.objects.filter(annotator=annotator).values("item_id")
    return list(items.exclude(pk__in=seen).exclude(author_pid=annotator.prolific_pid).values_list("pk", flat=True))


def session_schedule_make(*, session: Session, study: Study) -> Session:
    """Decide where the session's attention checks and gold items go (once: a session that has its
    schedule keeps it), and count them in its ``items_target``. Nothing happens (and nothing is read)
    for a study whose protocol asks for neither, or when ``study`` has no check item for this annotator."""
    annotator = session.annotator
    quality = study.spec.quality
    if not (quality.attention.on or quality.gold.on):
        return session
    checks = check_items_for(annotator=annotator, study=study, kind=CheckKind.ATTENTION) if quality.attention.on else []
    golds = check_items_for(annotator=annotator, study=study, kind=CheckKind.GOLD) if quality.gold.on else []
    with transaction.atomic():
        locked = Session.objects.select_for_update().filter(pk=session.pk).values_list("schedule", "items_target")
        stored, target = locked.get()
        if stored or Assignment.objects.filter(session=session).exists():
            session.schedule, session.items_target = stored, target
            return session  # decided already (or begun before checks were on: left as it is)
        planned = session_schedule(
            items=target, quality=quality, rng=schedule_rng(session.pk), checks=checks, golds=golds
        )
        schedule = [{"position": i.position + 1, "kind": i.kind, "item": i.item} for i in planned.inserted]
        if schedule:
            Session.objects.filter(pk=session.pk).update(schedule=schedule, items_target=planned.length)
            session.schedule, session.items_target = schedule, planned.length
    return session


def scheduled_at(session: Session, position: int) -> dict | None:
    """The check item planned at ``position`` (1-based) of the session, or None for an ordinary item."""
    return next((p for p in session.schedule or () if p.get("position") == position), None)


def check_lease(*, session: Session, position: int, now: datetime, lease_until: datetime) -> Assignment | None:
    """Lease the check item planned at ``position``: no quota is taken. None when none is planned
    there, or the planned item is no longer a check item of that kind (then an ordinary item takes
    the place). The caller holds the session's row lock."""
    planned = scheduled_at(session, position)
    if planned is None:
        return None
    item = Item.objects.filter(pk=planned["item"], check_kind=planned["kind"]).first()
    if item is None:
        return None
    try:
        with transaction.atomic():
            lease = Assignment.objects.create(
                session=session, annotator=session.annotator, item=item, pool=session.annotator.pool,
                position=position, leased_at=now, expires_at=lease_until, session_total=session.items_target,
            )
    except IntegrityError:  # given to this annotator already (in an earlier session)
        return None
    return with_session_objects(lease, session)


def check_relet(assignment: Assignment, until: datetime) -> bool:
    """Renew a lapsed lease of a check item: it holds no slot, so it is simply leased again."""
    return bool(
        Assignment.objects.filter(pk=assignment.pk, status=Assignment.Status.EXPIRED).update(
            status=Assignment.Status.LEASED, expires_at=until
        )
    )


@dataclass
class CheckResult:
    """A check item's answer stored (or found stored, ``duplicate``), and what it led to: ``warn``
    (show the annotator the warning now, once) and ``ended`` (the session ended with the failed-check
    outcome)."""

    answer: CheckAnswer
    duplicate: bool = False
    warn: bool = False
    ended: bool = False


def check_submit(*, assignment: Assignment, validation: Validation, now: datetime | None = None) -> CheckResult:
    """Store the answer to a check item, checked against its expected answers, atomically and
    idempotently; then, for a failed attention check, decide by the protocol's
    ``quality.outcomes``: continue, warn once, or end the session with the failed-check outcome
    (the study's own completion code). A skipped attention check is a failed one; a gold item only
    scores the annotator, it never ends a session."""
    now = now or timezone.now()
    item = assignment.item
    spec = item.study.spec
    expected = item.expected or {}
    if validation.skipped:
        compared, matched, passed = [], [], False
    elif item.check_kind == CheckKind.ATTENTION:
        checked = gold_check(spec, validation.answers, expected, {})
        compared, matched, passed = list(checked.compared), list(checked.matched), check_passed(
            spec, validation.answers, expected)
    else:
        checked = gold_check(spec, validation.answers, expected)
        compared, matched, passed = list(checked.compared), list(checked.matched), checked.passed
    with transaction.atomic():
        # The session's row first (as every decision of the session's course), then the assignment's.
        session_lock(assignment.session_id)
        status = assignment_lock(assignment)
        if status not in (Assignment.Status.LEASED, Assignment.Status.EXPIRED):
            return CheckResult(answer=CheckAnswer.objects.get(assignment=assignment), duplicate=True)
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
        answer = CheckAnswer.objects.create(
            assignment=assignment, annotator_id=assignment.annotator_id, session_id=assignment.session_id,
            item=item, kind=item.check_kind, answers=validation.answers, skipped=validation.skipped, passed=passed,
            compared=compared, matched=matched,
            time_spent_ms=max(0, int((now - assignment.leased_at).total_seconds() * 1000)),
        )
        assignment.status = Assignment.Status.SUBMITTED
        result = CheckResult(answer=answer)
        if item.check_kind == CheckKind.ATTENTION and not passed:
            failed = CheckAnswer.objects.filter(
                session_id=assignment.session_id, kind=CheckKind.ATTENTION, passed=False
            ).count()
            decision = check_outcome(spec.quality.outcomes, failed)
            if decision == END:
                result.ended = _session_end_failed(assignment.session, now)
            elif decision == WARN:
                result.warn = bool(Session.objects.filter(
                    pk=assignment.session_id, check_warned_at__isnull=True).update(check_warned_at=now))
    return result


def _session_end_failed(session: Session, now: datetime) -> bool:
    """End the session with the failed-check outcome: no item is leased after it; the end page gives
    the study's failed-check code. What was submitted is kept (the researcher decides on Prolific)."""
    Session.objects.filter(pk=session.pk, completed_at__isnull=True).update(completed_at=now)
    session.completed_at = session.completed_at or now
    outcome = Annotator.Outcome.FAILED_CHECK
    if Annotator.objects.filter(pk=session.annotator_id, outcome="").update(outcome=outcome):
        session.annotator.outcome = outcome
    return True

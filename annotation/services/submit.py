"""Submission: an annotation stored atomically and idempotently, its quota settled."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import ngettext

from studies.models import ItemQuota
from studies.protocol import SKIP, Validation, validate

from ..context import assignment_context
from ..models import Annotation, Assignment, CheckAnswer
from .checks import CheckResult, check_submit
from .leases import DraftRefused, assignment_save_draft
from .locks import assignment_lock, session_lock
from .round_trips import claim_and_store, one_round_trip


@dataclass
class SubmitResult:
    validation: Validation
    annotation: Annotation | None = None
    duplicate: bool = False
    check: CheckResult | None = None  # the answer to an attention check or a gold item (no annotation)


def annotation_submit(*, assignment: Assignment, data, now: datetime | None = None,
                      effort: dict | None = None) -> SubmitResult:
    """Validate and store one annotation, atomically and idempotently; ``effort``: the page's
    honest-effort signals as ``effort.effort_parse`` made them (None: none), stored with it.

    A late submit after the lease expired is kept: it takes a free slot if there is one, and is
    stored as surplus otherwise. A repeated submit returns the stored annotation. A refused one
    keeps what was posted as the item's draft (``refused_draft_keep``), so a reload shows it.
    """
    now = now or timezone.now()
    if assignment.status == Assignment.Status.SUBMITTED and assignment.item.check_kind:
        stored = CheckAnswer.objects.filter(assignment=assignment).first()
        if stored is not None:
            return SubmitResult(validation=Validation(answers=stored.answers), duplicate=True,
                                check=CheckResult(answer=stored, duplicate=True))
    if assignment.status == Assignment.Status.SUBMITTED:  # as loaded: a repeat of a stored submit
        existing = Annotation.objects.filter(assignment=assignment).first()
        if existing is not None:
            return SubmitResult(validation=Validation(answers=existing.answers), annotation=existing, duplicate=True)
    item = assignment.item
    study = item.study
    validation = validate(study.spec, data, assignment_context(assignment, study.spec))
    if not validation.ok:
        refused_draft_keep(assignment=assignment, data=data)
        return SubmitResult(validation=validation)
    if item.check_kind:  # an attention check or a gold item: checked, kept apart from the annotations
        checked = check_submit(assignment=assignment, validation=validation, now=now)
        return SubmitResult(
            validation=Validation(answers=checked.answer.answers) if checked.duplicate else validation,
            duplicate=checked.duplicate, check=checked,
        )
    capped = validation.skipped and study.max_skips_per_session is not None
    time_spent_ms = max(0, int((now - assignment.leased_at).total_seconds() * 1000))
    if not capped and one_round_trip():  # the lock, then claim, quota and annotation in one statement
        with transaction.atomic():
            was = assignment_lock(assignment)
            annotation = claim_and_store(
                assignment=assignment, was=was, study=study, answers=validation.answers, skipped=validation.skipped,
                time_spent_ms=time_spent_ms, effort=effort,
            ) if was in (Assignment.Status.LEASED, Assignment.Status.EXPIRED) else None
        claimed = annotation is not None
    else:
        claimed, annotation = _claim_and_store_orm(assignment, study, validation, time_spent_ms, capped=capped,
                                                   effort=effort)
        if isinstance(annotation, SubmitResult):
            return annotation  # the session's skip cap refused it
    if not claimed:  # a concurrent request submitted it first; its annotation is the one kept
        annotation = Annotation.objects.get(assignment=assignment)
        return SubmitResult(validation=Validation(answers=annotation.answers), annotation=annotation, duplicate=True)
    assignment.status = Assignment.Status.SUBMITTED
    return SubmitResult(validation=validation, annotation=annotation)


def _claim_and_store_orm(assignment: Assignment, study, validation: Validation, time_spent_ms: int, *,
                         capped: bool, effort: dict | None = None) -> tuple[bool, Annotation | SubmitResult | None]:
    """What ``claim_and_store`` does in one statement, through the ORM in one transaction (on SQLite,
    and with the session's skip cap to check first): (claimed, the annotation or None), or
    (False, a refusal) when the session may skip no more."""
    annotation = None
    with transaction.atomic():
        if capped and _skip_cap_reached(assignment, study):
            cap = study.max_skips_per_session
            return False, SubmitResult(validation=Validation(errors={SKIP: (
                ngettext(
                    "You have skipped {cap} item, the most this study allows in one session: please answer this one.",
                    "You have skipped {cap} items, the most this study allows in one session: please answer this one.",
                    cap,
                ).format(cap=cap)
            )}))
        claimed, surplus = _assignment_claim(assignment)
        if claimed:
            annotation = Annotation.objects.create(
                assignment=assignment,
                study=study,
                item=assignment.item,
                pool_id=assignment.pool_id,
                annotator_id=assignment.annotator_id,
                answers=validation.answers,
                skipped=validation.skipped,
                protocol_version=study.protocol_version,
                surplus=surplus,
                time_spent_ms=time_spent_ms,
                started_at=assignment.leased_at,
                effort=effort,
            )
    return claimed, annotation


def refused_draft_keep(*, assignment: Assignment, data) -> bool:
    """Keep the answers of a refused submit as the item's draft (the draft's own rules apply: one the
    form could not have posted is not kept), so what was on the page when the annotator pressed
    Submit survives a reload. A skip posts only its reason: the answers drafted before stay."""
    if SKIP in data:
        return False
    try:
        saved = assignment_save_draft(assignment=assignment, data=data)
    except DraftRefused:
        return False
    if saved:
        assignment.draft = data
    return saved


def session_skips_left(*, session_id: int, study) -> int | None:
    """How many more items the session may skip (``Study.max_skips_per_session``); None: no cap
    (and no query)."""
    cap = study.max_skips_per_session
    if cap is None:
        return None
    used = Annotation.objects.filter(assignment__session_id=session_id, skipped=True).count()
    return max(0, cap - used)


def _skip_cap_reached(assignment: Assignment, study) -> bool:
    """Whether the session has no skip left, asked with its row locked, so two skips sent at once
    are counted one after the other (the session row is locked before the assignment's, and only
    here)."""
    session_lock(assignment.session_id)
    return session_skips_left(session_id=assignment.session_id, study=study) == 0


def _assignment_claim(assignment: Assignment) -> tuple[bool, bool]:
    """Mark the assignment submitted and settle its quota; return (claimed, surplus).

    The assignment's row is locked first and its stored status decides (a renew may have turned a
    lapsed lease back into a live one meanwhile); the conditional update makes exactly one of
    several concurrent submits win, on databases without row locks too.
    """
    status = assignment_lock(assignment)
    if status not in (Assignment.Status.LEASED, Assignment.Status.EXPIRED):
        return False, False
    if not Assignment.objects.filter(pk=assignment.pk, status=status).update(status=Assignment.Status.SUBMITTED):
        return False, False
    if status == Assignment.Status.LEASED:
        ItemQuota.objects.filter(item_id=assignment.item_id, pool_id=assignment.pool_id).update(
            leased=F("leased") - 1, done=F("done") + 1
        )
        return True, False
    return True, not quota_count_late(item_id=assignment.item_id, pool_id=assignment.pool_id)


def quota_count_late(*, item_id: int, pool_id: int) -> bool:
    """Count an annotation given without a live lease (a submit after its lease expired, an
    imported one) in the quota of its (item, pool) while the quota has room; return whether it was
    counted. One that was not is kept as surplus, never lost."""
    return bool(ItemQuota.objects.with_room().filter(item_id=item_id, pool_id=pool_id).update(done=F("done") + 1))

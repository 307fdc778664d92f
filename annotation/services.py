"""State changes of the annotator's way through a study. Views, commands and tasks call these."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Sum
from django.utils import timezone

from studies.models import CountryPool, ItemQuota
from studies.protocol import Validation, validate

from .context import assignment_context
from .models import Annotation, Annotator, Assignment, MockAttempt, Session, Upload
from .quota import PROLIFIC_PARAM_RE, max_items_per_annotator

CANDIDATES = 40
DRAFT_MAX_CHARS = 20_000


class EntryRefused(Exception):
    """An entry link that cannot start or resume work; ``reason`` picks the page shown."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


@dataclass
class SubmitResult:
    validation: Validation
    annotation: Annotation | None = None
    duplicate: bool = False


# --- entry ------------------------------------------------------------------------------------


def annotator_enter(*, pool: CountryPool, params: dict[str, str]) -> Session:
    """Create or resume the annotator of a Prolific entry link, and the session of its SESSION_ID."""
    names = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
    missing = [n for n in names if not params.get(n)]
    if missing:
        raise EntryRefused("missing", ", ".join(missing))
    malformed = [n for n in names if not PROLIFIC_PARAM_RE.match(params[n])]
    if malformed:
        raise EntryRefused("malformed", ", ".join(malformed))
    study = pool.study
    if study.prolific_study_id and params["STUDY_ID"] != study.prolific_study_id:
        raise EntryRefused("wrong_study")
    if not study.is_open:
        raise EntryRefused("closed")

    annotator = Annotator.objects.filter(study=study, prolific_pid=params["PROLIFIC_PID"]).first()
    if annotator is not None and annotator.pool_id != pool.id:
        raise EntryRefused("wrong_pool", annotator.pool.country_name)
    if annotator is None:
        if not pool_has_room(pool=pool, annotator=None):
            raise EntryRefused("full")
        try:
            annotator, _ = Annotator.objects.get_or_create(
                study=study, prolific_pid=params["PROLIFIC_PID"], defaults={"pool": pool}
            )
        except IntegrityError:  # created by a parallel request for the same PID
            annotator = Annotator.objects.get(study=study, prolific_pid=params["PROLIFIC_PID"])
        if annotator.pool_id != pool.id:
            raise EntryRefused("wrong_pool", annotator.pool.country_name)
    try:
        session, _ = Session.objects.get_or_create(
            annotator=annotator,
            prolific_session_id=params["SESSION_ID"],
            defaults={"prolific_study_id": params["STUDY_ID"], "items_target": study.items_per_session},
        )
    except IntegrityError:
        session = Session.objects.get(annotator=annotator, prolific_session_id=params["SESSION_ID"])
    return session


def pool_has_room(*, pool: CountryPool, annotator: Annotator | None) -> bool:
    """Is there an item in the pool with a free slot that this annotator has not seen?"""
    return _open_quotas(pool=pool, annotator=annotator).exists()


def _open_quotas(*, pool: CountryPool, annotator: Annotator | None):
    """Quotas of the pool with room, on items this annotator has not seen and did not write."""
    quotas = ItemQuota.objects.filter(pool=pool, leased__lt=F("wanted") - F("done"))
    if annotator is not None:
        quotas = quotas.exclude(
            Exists(Assignment.objects.filter(annotator=annotator, item=OuterRef("item_id")))
        ).exclude(item__author_pid=annotator.prolific_pid)
    return quotas


# --- onboarding -------------------------------------------------------------------------------


def annotator_consent(*, annotator: Annotator, agree: bool, now: datetime | None = None) -> None:
    if annotator.outcome or annotator.consented_at:
        return
    if agree:
        annotator.consented_at = now or timezone.now()
        annotator.save(update_fields=["consented_at"])
    else:
        annotator.outcome = Annotator.Outcome.NO_CONSENT
        annotator.save(update_fields=["outcome"])


def annotator_screen(*, annotator: Annotator, answers: dict[str, bool], now: datetime | None = None) -> bool:
    """Record the eligibility answers; any "no" to a question the pool asks ends the study politely."""
    if annotator.outcome or annotator.eligible_at:
        return annotator.eligible_at is not None
    asked = [key for key, _ in annotator.pool.eligibility_questions()]
    annotator.eligibility = {key: bool(answers[key]) for key in asked}
    if all(annotator.eligibility.values()):
        annotator.eligible_at = now or timezone.now()
    else:
        annotator.outcome = Annotator.Outcome.NOT_ELIGIBLE
    annotator.save(update_fields=["eligibility", "eligible_at", "outcome"])
    return annotator.eligible_at is not None


def annotator_read_instructions(*, annotator: Annotator, now: datetime | None = None) -> None:
    if annotator.instructions_read_at is None:
        annotator.instructions_read_at = now or timezone.now()
        annotator.save(update_fields=["instructions_read_at"])


def mock_submit(*, annotator: Annotator, answers: dict[int, str]) -> MockAttempt:
    """Grade one attempt at the mock test: every answer must be right; attempts are limited."""
    study = annotator.study
    questions = list(study.mock_questions.all())
    correct = sum(1 for q in questions if answers.get(q.id) == q.expected)
    passed = correct == len(questions)
    with transaction.atomic():
        # The attempt counter is bumped conditionally so two tabs cannot both use the last attempt.
        taken = Annotator.objects.filter(
            pk=annotator.pk, outcome="", mock_passed_at__isnull=True, mock_attempts__lt=study.mock_attempts_allowed
        ).update(mock_attempts=F("mock_attempts") + 1)
        if not taken:
            annotator.refresh_from_db()
            return MockAttempt(annotator=annotator, answers={}, correct=0, total=len(questions), passed=False)
        attempt = MockAttempt.objects.create(
            annotator=annotator,
            answers={str(k): v for k, v in answers.items()},
            correct=correct,
            total=len(questions),
            passed=passed,
        )
        annotator.refresh_from_db()
        if passed:
            annotator.mock_passed_at = timezone.now()
        elif annotator.mock_attempts >= study.mock_attempts_allowed:
            annotator.outcome = Annotator.Outcome.FAILED_MOCK
        annotator.save(update_fields=["mock_passed_at", "outcome"])
    return attempt


# --- leases -----------------------------------------------------------------------------------


def assignments_expire(*, now: datetime | None = None, pool: CountryPool | None = None, limit: int = 1000) -> int:
    """Give the slots of expired leases back to their quotas. Safe to run concurrently."""
    now = now or timezone.now()
    expired = Assignment.objects.filter(status=Assignment.Status.LEASED, expires_at__lte=now)
    if pool is not None:
        expired = expired.filter(pool=pool)
    count = 0
    for pk, item_id, pool_id in expired.values_list("pk", "item_id", "pool_id")[:limit]:
        with transaction.atomic():
            if Assignment.objects.filter(pk=pk, status=Assignment.Status.LEASED).update(status=Assignment.Status.EXPIRED):
                ItemQuota.objects.filter(item_id=item_id, pool_id=pool_id, leased__gt=0).update(leased=F("leased") - 1)
                count += 1
    return count


def _annotator_cap(annotator: Annotator) -> int | None:
    pool = annotator.pool
    if not pool.min_distinct_annotators:
        return None
    slots = ItemQuota.objects.filter(pool=pool).aggregate(n=Sum("wanted"))["n"] or 0
    return max_items_per_annotator(
        slots=slots, min_distinct=pool.min_distinct_annotators, session_size=annotator.study.items_per_session
    )


def session_submitted_count(session: Session) -> int:
    return session.assignments.filter(status=Assignment.Status.SUBMITTED).count()


def assignment_current(*, session: Session, now: datetime | None = None) -> Assignment | None:
    """The item the annotator is on: their open lease (renewed if it lapsed), or a new one.

    None means the session is over: its batch is done, or no item is left for this annotator.
    """
    now = now or timezone.now()
    if session.completed_at or session_submitted_count(session) >= session.items_target:
        return None
    open_ = session.assignments.exclude(status=Assignment.Status.SUBMITTED).order_by("-position").first()
    if open_ is not None:
        if open_.status == Assignment.Status.LEASED and open_.expires_at > now:
            return open_
        if _assignment_renew(open_, now):
            return open_
    return _assignment_lease(session=session, now=now)


def _lease_until(session: Session, now: datetime) -> datetime:
    return now + timedelta(minutes=session.annotator.study.lease_minutes)


def _assignment_renew(assignment: Assignment, now: datetime) -> bool:
    """Keep a lapsed lease (and its draft) when the item still has room."""
    with transaction.atomic():
        if assignment.status == Assignment.Status.LEASED:
            # Lapsed but not yet swept: the slot is still counted as leased; just extend it.
            return bool(
                Assignment.objects.filter(pk=assignment.pk, status=Assignment.Status.LEASED).update(
                    expires_at=_lease_until(assignment.session, now)
                )
            ) and _refresh(assignment)
        took = ItemQuota.objects.filter(
            item_id=assignment.item_id, pool_id=assignment.pool_id, leased__lt=F("wanted") - F("done")
        ).update(leased=F("leased") + 1)
        if not took:
            return False
        Assignment.objects.filter(pk=assignment.pk).update(
            status=Assignment.Status.LEASED, expires_at=_lease_until(assignment.session, now)
        )
    return _refresh(assignment)


def _refresh(assignment: Assignment) -> bool:
    assignment.refresh_from_db(fields=["status", "expires_at"])
    return True


def _assignment_lease(*, session: Session, now: datetime) -> Assignment | None:
    annotator = session.annotator
    pool = annotator.pool
    assignments_expire(now=now, pool=pool)
    cap = _annotator_cap(annotator)
    if cap is not None and annotator.assignments.exclude(status=Assignment.Status.EXPIRED).count() >= cap:
        return None
    candidates = list(
        _open_quotas(pool=pool, annotator=annotator)
        .order_by("done", "leased")
        .values_list("pk", "item_id", "done")[:CANDIDATES]
    )
    # Fewest done first; ties in random order so parallel annotators spread over items.
    rng = random.Random()
    candidates.sort(key=lambda c: (c[2], rng.random()))
    position = (session.assignments.order_by("-position").values_list("position", flat=True).first() or 0) + 1
    for quota_pk, item_id, _ in candidates:
        try:
            with transaction.atomic():
                if not ItemQuota.objects.filter(pk=quota_pk, leased__lt=F("wanted") - F("done")).update(
                    leased=F("leased") + 1
                ):
                    continue
                return Assignment.objects.create(
                    session=session,
                    annotator=annotator,
                    item_id=item_id,
                    pool=pool,
                    position=position,
                    leased_at=now,
                    expires_at=_lease_until(session, now),
                )
        except IntegrityError:
            # Another tab of this annotator leased at the same moment: use what it got.
            current = session.assignments.filter(status=Assignment.Status.LEASED).order_by("-position").first()
            if current is not None:
                return current
    return None


def assignment_save_draft(*, assignment: Assignment, data: dict[str, list[str]]) -> bool:
    """Keep what the annotator typed so a reload (in any browser) restores it."""
    if sum(len(v) for values in data.values() for v in values) > DRAFT_MAX_CHARS:
        return False
    return bool(
        Assignment.objects.exclude(status=Assignment.Status.SUBMITTED).filter(pk=assignment.pk).update(draft=data)
    )


# --- submission -------------------------------------------------------------------------------


def annotation_submit(*, assignment: Assignment, data, now: datetime | None = None) -> SubmitResult:
    """Validate and store one annotation, atomically and idempotently.

    A late submit after the lease expired is kept: it takes a free slot if there is one, and is
    stored as surplus otherwise. A repeated submit returns the stored annotation.
    """
    now = now or timezone.now()
    existing = Annotation.objects.filter(assignment=assignment).first()
    if existing is not None:
        return SubmitResult(validation=Validation(answers=existing.answers), annotation=existing, duplicate=True)
    item = assignment.item
    study = item.study
    validation = validate(study.spec, data, assignment_context(assignment, study.spec))
    if not validation.ok:
        return SubmitResult(validation=validation)
    with transaction.atomic():
        claimed, surplus = _assignment_claim(assignment)
        if claimed:
            annotation = Annotation.objects.create(
                assignment=assignment,
                study=study,
                item=item,
                pool_id=assignment.pool_id,
                annotator_id=assignment.annotator_id,
                answers=validation.answers,
                skipped=validation.skipped,
                protocol_version=study.protocol_version,
                surplus=surplus,
                time_spent_ms=max(0, int((now - assignment.leased_at).total_seconds() * 1000)),
                started_at=assignment.leased_at,
            )
    if not claimed:  # a concurrent request submitted it first; its annotation is the one kept
        annotation = Annotation.objects.get(assignment=assignment)
        return SubmitResult(validation=Validation(answers=annotation.answers), annotation=annotation, duplicate=True)
    assignment.status = Assignment.Status.SUBMITTED
    return SubmitResult(validation=validation, annotation=annotation)


def _assignment_claim(assignment: Assignment) -> tuple[bool, bool]:
    """Mark the assignment submitted and settle its quota; return (claimed, surplus).

    Conditional updates make exactly one of several concurrent submits win.
    """
    quota = ItemQuota.objects.filter(item_id=assignment.item_id, pool_id=assignment.pool_id)
    submitted = Assignment.Status.SUBMITTED
    if Assignment.objects.filter(pk=assignment.pk, status=Assignment.Status.LEASED).update(status=submitted):
        quota.update(leased=F("leased") - 1, done=F("done") + 1)
        return True, False
    if Assignment.objects.filter(pk=assignment.pk, status=Assignment.Status.EXPIRED).update(status=submitted):
        took_slot = quota.filter(leased__lt=F("wanted") - F("done")).update(done=F("done") + 1)
        return True, not took_slot
    return False, False


def session_complete(*, session: Session, now: datetime | None = None) -> None:
    Session.objects.filter(pk=session.pk, completed_at__isnull=True).update(completed_at=now or timezone.now())
    session.refresh_from_db(fields=["completed_at"])


class UploadRefused(Exception):
    """An upload that is not a usable image; the message says why."""


def upload_receive(*, assignment: Assignment, name: str, data: bytes) -> Upload:
    """Verify an annotator's image with Pillow (real image, size and pixel limits) and store it.

    Stored before the submit, so a refused form never asks for the image again.
    """
    from django.conf import settings
    from django.core.files.base import ContentFile

    from studies.importing import RowProblem, inspect_image

    if assignment.status == Assignment.Status.SUBMITTED:
        raise UploadRefused("This item is already submitted.")
    if len(data) > settings.IMAGE_MAX_BYTES:
        raise UploadRefused(f"The image is {len(data) / 1e6:.1f} MB; the limit is {settings.IMAGE_MAX_BYTES / 1e6:.0f} MB.")
    try:
        inspect_image(name, data, max_pixels=settings.IMAGE_MAX_PIXELS)
        data = _upright(data)
        sha256, width, height, suffix = inspect_image(name, data, max_pixels=settings.IMAGE_MAX_PIXELS)
    except RowProblem as problem:
        raise UploadRefused(str(problem)) from None
    upload = Upload(
        study_id=assignment.pool.study_id, assignment=assignment, suffix=suffix, original_name=name[:255],
        width=width, height=height, sha256=sha256,
    )
    upload.file.save(f"{sha256}{suffix}", ContentFile(data), save=False)
    upload.save()
    return upload


def _upright(data: bytes) -> bytes:
    """Apply a photo's EXIF rotation to its pixels, so the stored size is the size browsers show
    and boxes drawn on it are checked against the right dimensions. Other images are kept as sent."""
    import io

    from PIL import Image, ImageOps

    with Image.open(io.BytesIO(data)) as im:
        if im.getexif().get(0x0112, 1) == 1:  # Orientation: already upright
            return data
        kind = im.format
        upright = ImageOps.exif_transpose(im)
        out = io.BytesIO()
        upright.save(out, format=kind, **({"quality": 95} if kind == "JPEG" else {}))
    return out.getvalue()

"""Exclusion: the researcher leaves an annotator's answers out (quality control), and may take
them back. Their annotations are kept, and withdrawn (``services.withdrawal``): out of the quota,
the analysis and the export, so the slots they took are served to someone else.

Excluding also blocks them (``annotator_block``): their open item is released at once and they
take no more, so nothing they send later slips into the counts. They cannot be unblocked while
excluded; including them again does not unblock them (the researcher does that on its own).

The quota rule on inclusion: each annotation counts again if its (item, pool) quota still has
room, and is kept as surplus otherwise (its slot was taken meanwhile by someone else). A quota is
never counted past what it wants; the surplus annotation is stored, and stays surplus. Annotations
of a withdrawn session (a returned submission not counted) stay withdrawn.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..models import EXCLUDED_REASON_MAX, Annotator
from .blocking import annotator_block
from .withdrawal import annotation_rows, annotations_settle


class ExclusionRefused(ValueError):
    """An exclusion that cannot be recorded; the message says why."""


def annotator_exclude(*, annotator: Annotator, by: AbstractBaseUser | None, reason: str) -> int:
    """Exclude the annotator with ``reason`` (required, at most ``EXCLUDED_REASON_MAX``
    characters): their annotations withdrawn, their slots given back, and the annotator blocked.
    Returns how many annotations were withdrawn; excluding again changes nothing (the first reason
    is kept). Raises ``ExclusionRefused`` for a missing or too long reason."""
    reason = " ".join(reason.split())
    if not reason:
        raise ExclusionRefused("Say why you exclude this annotator: the export records it.")
    if len(reason) > EXCLUDED_REASON_MAX:
        raise ExclusionRefused(f"The reason is {len(reason)} characters long; at most {EXCLUDED_REASON_MAX}, please.")
    now = timezone.now()
    user = by if by is not None and by.is_authenticated else None
    with transaction.atomic():
        locked = Annotator.objects.filter(pk=annotator.pk)  # the UPDATE locks the row: the marks are set under it
        if not locked.filter(excluded_at__isnull=True).update(
            excluded_at=now, excluded_reason=reason, excluded_by=user
        ):
            annotator.refresh_from_db(fields=["excluded_at", "excluded_reason", "excluded_by"])
            return 0
    annotator.excluded_at, annotator.excluded_reason, annotator.excluded_by = now, reason, user
    annotator_block(annotator=annotator)
    return annotations_settle(annotations=annotation_rows(Q(annotator=annotator), withdrawn=False))


def annotator_include(*, annotator: Annotator) -> int:
    """Include the annotator again: their annotations count again (but those of a withdrawn
    session), each taking a slot where its quota has room and kept as surplus where it has none.
    Returns how many annotations changed; including one not excluded changes nothing."""
    with transaction.atomic():
        locked = Annotator.objects.filter(pk=annotator.pk)  # the UPDATE locks the row: the marks are set under it
        if not locked.filter(excluded_at__isnull=False).update(excluded_at=None, excluded_reason="", excluded_by=None):
            annotator.refresh_from_db(fields=["excluded_at", "excluded_reason", "excluded_by"])
            return 0
    annotator.excluded_at, annotator.excluded_reason, annotator.excluded_by = None, "", None
    return annotations_settle(annotations=annotation_rows(Q(annotator=annotator), withdrawn=True))

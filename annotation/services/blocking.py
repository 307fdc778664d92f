"""Blocking: a researcher stops an annotator. The block is stored first (no page lets them on
after that), then their open leases are released, each in the lease service's lock order."""

from __future__ import annotations

from django.utils import timezone

from ..models import Annotator, Assignment
from .leases import lease_release


def annotator_block(*, annotator: Annotator) -> int:
    """Block the annotator: the entry link and every annotator page refuse them, and their open
    lease expires at once, its slot given back; what they submitted is kept. Returns the leases
    released; blocking again does nothing more."""
    now = timezone.now()
    if Annotator.objects.filter(pk=annotator.pk, blocked_at__isnull=True).update(blocked_at=now):
        annotator.blocked_at = now
    else:
        annotator.refresh_from_db(fields=["blocked_at"])
    open_leases = Assignment.objects.filter(annotator=annotator, status=Assignment.Status.LEASED)
    return sum(lease_release(pk=pk) for pk in open_leases.values_list("pk", flat=True))


def annotator_unblock(*, annotator: Annotator) -> bool:
    """Let the annotator back in: they continue where they stopped (a released item is leased
    again if it still has room). An excluded annotator stays blocked (what they would submit would
    count, though their other answers do not): False, nothing changed; include them first."""
    if not Annotator.objects.filter(pk=annotator.pk, excluded_at__isnull=True).update(blocked_at=None):
        annotator.refresh_from_db(fields=["blocked_at", "excluded_at"])
        return False
    annotator.blocked_at = None
    return True

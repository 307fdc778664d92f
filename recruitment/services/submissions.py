"""One submission's status as Prolific answered an action on it (approve, reject, request a
return), written to its ``ProlificSubmission``. Reading every submission of a pool is the sync's
(``sync.prolific_study_sync``), which the review page's refresh runs too."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..models import ProlificAction, ProlificSubmission
from ..prolific import Submission
from ..prolific_answers import answer_time

Kind = ProlificAction.Kind
UPSERT_CHUNK = 200


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

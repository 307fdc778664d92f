"""Prolific's webhook deliveries (``POST /prolific/webhook/``): submission and study status changes.

A delivery is applied only when all of these hold, else it is refused with a 4xx and changes
nothing (never a 500 on bad input):
- its body is at most ``MAX_BODY`` bytes, sent as ``application/json`` (anything else is a 415);
- ``X-Prolific-Request-Timestamp`` is within ``TOLERANCE`` seconds of our clock (a stale one may be
  a replay);
- ``X-Prolific-Request-Signature`` is base64(HMAC-SHA256(secret, timestamp + raw body)) for a
  workspace secret we stored (``services.hooks``), compared in constant time. (Prolific's example
  signs ``json.dumps`` of the parsed body; that form is accepted as well when it differs.) The secret
  that verifies it names the workspace the delivery speaks for.

Then the event acts only on a resource of that workspace: a submission through its Prolific study,
a study by its own ``workspace_id`` (recorded at launch, or by the periodic sync for older rows).
An event naming another workspace's resource, or one whose workspace is not known yet, changes
nothing: it is answered 200 (so that Prolific does not retry it), recorded with what was done, and
logged as a warning.

Each event is applied once: its ``X-Event-ID`` and a digest of what the signature covers (timestamp
and body, with the signing workspace) are both unique, stored in the same transaction as its
effects, so a retry, or a captured delivery sent again under a new event id, answers 200 and does
nothing; a failure stores neither (Prolific retries). And an event never undoes a newer one: each
study and submission keeps the signed time of the last event applied to it, and an older event is
recorded but not applied. (Only events are compared with events, both stamped by Prolific's clock;
what the periodic sync reads is Prolific's state at that moment and is applied as it is.)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from studies.protocol.jsonbounds import json_bounded

from .models import ProlificEvent, ProlificStudy, ProlificSubmission, ProlificWebhook
from .services.sync import prolific_submission_apply
from .tokens import TokenUnreadable, decrypt

MAX_BODY = 64 * 1024
TOLERANCE = 300  # seconds

log = logging.getLogger(__name__)


def _answer(status: int, message: str) -> JsonResponse:
    return JsonResponse({"ok": status == 200, "message": message}, status=status)


class _Refused(Exception):
    """A delivery refused with a 4xx, changing nothing."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@csrf_exempt
@require_POST
def webhook(request: HttpRequest) -> JsonResponse:
    try:
        body, stamp, signature = _delivery(request)
        sent_at = _sent_at(stamp)
        event, workspace_id, signed = _signed_event(body=body, stamp=stamp, signature=signature)
    except _Refused as refused:
        return _answer(refused.status, refused.message)
    # What the signature covers, and whose it is: another workspace's copy of the same body is not ours.
    digest = hashlib.sha256(f"{workspace_id}.{stamp}.".encode() + signed).hexdigest()
    event_id = request.headers.get("X-Event-ID", "")[:128] or "sha256:" + digest
    with transaction.atomic():
        try:
            with transaction.atomic():
                record = ProlificEvent.objects.create(
                    event_id=event_id,
                    digest=digest,
                    workspace_id=workspace_id,
                    event_type=event["event_type"][:64],
                    resource_id=str(event.get("resource_id") or "")[:64],
                    status=str(event.get("status") or "")[:32],
                )
        except IntegrityError:
            return _answer(200, "already applied")
        when = datetime.fromtimestamp(sent_at, tz=UTC)
        record.outcome = event_apply(event, workspace_id=workspace_id, sent_at=when)[:200]
        record.save(update_fields=["outcome"])
    return _answer(200, record.outcome or "nothing to do")


def _delivery(request: HttpRequest) -> tuple[bytes, str, str]:
    """The body, timestamp and signature of a delivery of the right size and type, signed and stamped."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise _Refused(400, "bad Content-Length") from None
    if declared > MAX_BODY:
        raise _Refused(413, "body too large")
    signature = request.headers.get("X-Prolific-Request-Signature", "")
    stamp = request.headers.get("X-Prolific-Request-Timestamp", "")
    if not signature or not stamp:
        raise _Refused(401, "unsigned")
    if request.content_type != "application/json":
        raise _Refused(415, "a webhook is sent as application/json")
    body = request.body
    if len(body) > MAX_BODY:
        raise _Refused(413, "body too large")
    return body, stamp, signature


def _sent_at(stamp: str) -> int:
    """The delivery's UNIX time (seconds or milliseconds), refused unless within TOLERANCE of our clock."""
    try:
        sent_at = int(stamp)
    except ValueError:
        raise _Refused(400, "bad timestamp") from None
    if sent_at > 10**11:  # in milliseconds (the docs say a UNIX time; both are read)
        sent_at //= 1000
    if abs(time.time() - sent_at) > TOLERANCE:
        raise _Refused(403, "stale timestamp")
    return sent_at


def _signed_event(*, body: bytes, stamp: str, signature: str) -> tuple[dict, str, bytes]:
    """The event, the workspace whose secret signed it and the form signed; refused unless a stored
    secret signs it and it is an event."""
    try:
        event = json_bounded(body)
    except ValueError:  # JsonRefused included: not JSON, too deep, a NUL
        event = None
    signer = signing_workspace(body=body, timestamp=stamp, signature=signature, parsed=event)
    if signer is None:
        raise _Refused(403, "bad signature")
    workspace_id, signed = signer
    if not isinstance(event, dict) or not isinstance(event.get("event_type"), str):
        raise _Refused(400, "not an event")
    return event, workspace_id, signed


def signing_workspace(*, body: bytes, timestamp: str, signature: str, parsed: Any) -> tuple[str, bytes] | None:
    """The workspace whose stored secret signs (timestamp + body), and the form it signed (the raw
    body, or Prolific's ``json.dumps`` of it); None when no secret does. Every secret and form is
    tried, in constant time for each."""
    given = signature.strip().encode()
    forms = [body]
    if parsed is not None:
        resent = json.dumps(parsed).encode()
        if resent != body:
            forms.append(resent)
    found = None
    for workspace_id, ciphertext in ProlificWebhook.objects.values_list("workspace_id", "secret_ciphertext"):
        try:
            secret = decrypt(ciphertext).encode()
        except TokenUnreadable:
            continue
        for form in forms:
            expected = base64.b64encode(hmac.new(secret, timestamp.encode() + form, hashlib.sha256).digest())
            if hmac.compare_digest(expected, given) and found is None:
                found = (workspace_id, form)
    return found


def _not_ours(study: ProlificStudy, workspace_id: str, event: str) -> str:
    """Why ``study`` may not be acted on by an event of ``workspace_id`` ("" when it may)."""
    if study.workspace_id == workspace_id:
        return ""
    if not study.workspace_id:
        why = "not applied: the study's workspace is not known yet (the periodic sync applies its state)"
    else:
        why = "not applied: the resource belongs to another workspace"
    log.warning(
        "Prolific webhook %s signed by workspace %s names study %s of workspace %s: %s",
        event, workspace_id, study.prolific_id, study.workspace_id or "(unknown)", why,
    )
    return why


def _newest(model: type[ProlificStudy] | type[ProlificSubmission], pk: int, sent_at: datetime) -> bool:
    """Record ``sent_at`` as the resource's last event unless a newer one was applied; True when recorded."""
    return bool(
        model.objects.filter(Q(event_at__isnull=True) | Q(event_at__lte=sent_at), pk=pk).update(event_at=sent_at)
    )


OLDER = "not applied: older than the last event applied to it"


def event_apply(event: dict[str, Any], *, workspace_id: str, sent_at: datetime) -> str:
    """What a verified event, signed by ``workspace_id``'s secret at ``sent_at``, changes; returns
    what was done."""
    kind, resource = event["event_type"], str(event.get("resource_id") or "")
    status = str(event.get("status") or "")
    if not resource:
        return "no resource_id"
    if kind == "submission.status.change":
        row = (
            ProlificSubmission.objects.filter(prolific_id=resource)
            .select_related("prolific_study__pool", "session")
            .first()
        )
        if row is None:
            return "unknown submission: the periodic sync records it"
        if refused := _not_ours(row.prolific_study, workspace_id, kind):
            return refused
        if not _newest(ProlificSubmission, row.pk, sent_at):
            return OLDER
        return prolific_submission_apply(row=row, status=status) or "no change"
    if kind == "study.status.change":
        if status not in ProlificStudy.Status.values or not status:
            return f"unknown study status {status[:40]!r}"
        study = ProlificStudy.objects.filter(prolific_id=resource).first()
        if study is None:
            return "unknown study"
        if refused := _not_ours(study, workspace_id, kind):
            return refused
        if not _newest(ProlificStudy, study.pk, sent_at):
            return OLDER
        changed = ProlificStudy.objects.filter(pk=study.pk).exclude(status=status).update(
            status=status, synced_at=timezone.now()
        )
        return f"study status {status}" if changed else "no change"
    return f"ignored {kind[:60]}"

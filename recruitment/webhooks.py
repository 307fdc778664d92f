"""Prolific's webhook deliveries (``POST /prolific/webhook/``): submission and study status changes.

A delivery is applied only when all of these hold, else it is refused with a 4xx and changes
nothing (never a 500 on bad input):
- its body is at most ``MAX_BODY`` bytes;
- ``X-Prolific-Request-Timestamp`` is within ``TOLERANCE`` seconds of our clock (a stale one may be
  a replay);
- ``X-Prolific-Request-Signature`` is base64(HMAC-SHA256(secret, timestamp + raw body)) for a
  workspace secret we stored (``services.hooks``), compared in constant time. (Prolific's example
  signs ``json.dumps`` of the parsed body; that form is accepted as well when it differs.)

Each event is applied once: its ``X-Event-ID`` (or, lacking one, a digest of the signed delivery)
is stored in the same transaction as its effects, so a retry or a replay answers 200 and does
nothing, and a failure stores neither (Prolific retries).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

from django.db import IntegrityError, transaction
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


def _answer(status: int, message: str) -> JsonResponse:
    return JsonResponse({"ok": status == 200, "message": message}, status=status)


@csrf_exempt
@require_POST
def webhook(request: HttpRequest) -> JsonResponse:
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return _answer(400, "bad Content-Length")
    if declared > MAX_BODY:
        return _answer(413, "body too large")
    body = request.body
    if len(body) > MAX_BODY:
        return _answer(413, "body too large")
    signature = request.headers.get("X-Prolific-Request-Signature", "")
    stamp = request.headers.get("X-Prolific-Request-Timestamp", "")
    if not signature or not stamp:
        return _answer(401, "unsigned")
    try:
        sent_at = int(stamp)
    except ValueError:
        return _answer(400, "bad timestamp")
    if sent_at > 10**11:  # in milliseconds (the docs say a UNIX time; both are read)
        sent_at //= 1000
    if abs(time.time() - sent_at) > TOLERANCE:
        return _answer(403, "stale timestamp")
    try:
        event = json_bounded(body)
    except ValueError:  # JsonRefused included: not JSON, too deep, a NUL
        event = None
    if not signature_valid(body=body, timestamp=stamp, signature=signature, parsed=event):
        return _answer(403, "bad signature")
    if not isinstance(event, dict) or not isinstance(event.get("event_type"), str):
        return _answer(400, "not an event")
    event_id = request.headers.get("X-Event-ID", "")[:128] or "sha256:" + hashlib.sha256(
        stamp.encode() + b"." + body
    ).hexdigest()
    with transaction.atomic():
        try:
            with transaction.atomic():
                record = ProlificEvent.objects.create(
                    event_id=event_id,
                    event_type=event["event_type"][:64],
                    resource_id=str(event.get("resource_id") or "")[:64],
                    status=str(event.get("status") or "")[:32],
                )
        except IntegrityError:
            return _answer(200, "already applied")
        record.outcome = event_apply(event)[:200]
        record.save(update_fields=["outcome"])
    return _answer(200, record.outcome or "nothing to do")


def signature_valid(*, body: bytes, timestamp: str, signature: str, parsed: Any) -> bool:
    """Does ``signature`` sign (timestamp + body) with a stored workspace secret? Constant-time."""
    given = signature.strip().encode()
    forms = [body]
    if parsed is not None:
        resent = json.dumps(parsed).encode()
        if resent != body:
            forms.append(resent)
    valid = False
    for ciphertext in ProlificWebhook.objects.values_list("secret_ciphertext", flat=True):
        try:
            secret = decrypt(ciphertext).encode()
        except TokenUnreadable:
            continue
        for form in forms:
            expected = base64.b64encode(hmac.new(secret, timestamp.encode() + form, hashlib.sha256).digest())
            valid |= hmac.compare_digest(expected, given)
    return valid


def event_apply(event: dict[str, Any]) -> str:
    """What a verified event changes; returns what was done."""
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
        return prolific_submission_apply(row=row, status=status) or "no change"
    if kind == "study.status.change":
        if status not in ProlificStudy.Status.values or not status:
            return f"unknown study status {status[:40]!r}"
        changed = ProlificStudy.objects.filter(prolific_id=resource).exclude(status=status).update(
            status=status, synced_at=timezone.now()
        )
        return f"study status {status}" if changed else "no change"
    return f"ignored {kind[:60]}"

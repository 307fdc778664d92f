"""Messages to a pool's Prolific participants (issue 28, part 2): one participant of the pool's study,
or every participant of it (Prolific's bulk message, in chunks), e.g. to announce a second round or
answer a question; and the messages received about the study's Prolific studies.

- Rules, checked before anything is sent: a body that is not empty and at most ``MESSAGE_MAX``
  characters; a pool on Prolific; a participant who has a submission in the pool's study (Prolific's
  own rule for bulk messages and broadcasts: "every recipient must have a submission for the study").
- Sent with the study owner's token (the callers let only the owner in), never retried: a repeat would
  be a second message. Each call is logged (``ProlificAction``: ``message`` or ``message_bulk``).
- Received: ``GET /messages/?created_after=`` (Prolific keeps 30 days), page by page, the messages
  whose ``data.study_id`` is one of the study's Prolific studies.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from studies.models import CountryPool, Study

from ..models import ProlificAction, ProlificStudy, ProlificSubmission
from ..prolific import Message, ProlificError
from ..tokens import client_for
from .launch import RecruitmentRefused, action_log

Kind = ProlificAction.Kind

# Prolific documents no length limit for a message body ("Text is sanitised for safe storage and
# display"); ours keeps a message readable and well under any request limit.
MESSAGE_MAX = 5000
# Prolific's bulk message takes "4,000 by default" recipients (docs: messages/create-broadcast).
BULK_CHUNK = 4000
RECEIVED_DAYS = 30  # Prolific's messages list goes back 30 days


class MessageRefused(RecruitmentRefused):
    """A message that breaks a rule: nothing was sent. ``field``: the input it is about (``body``,
    ``participant``), empty when the study's state refuses it (a pool not on Prolific, nobody in it)."""

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class MessageResult:
    sent: int  # participants messaged
    calls: int  # calls to Prolific

    @property
    def summary(self) -> str:
        return f"Sent to {self.sent} participant{'s' if self.sent != 1 else ''}."


def message_body_clean(body: str) -> str:
    text = (body or "").strip()
    if not text:
        raise MessageRefused("The message is empty: write what you want to tell the participants.", field="body")
    if len(text) > MESSAGE_MAX:
        raise MessageRefused(f"The message is {len(text)} characters long; at most {MESSAGE_MAX} can be sent.",
                             field="body")
    return text


def _launched(pool: CountryPool) -> ProlificStudy:
    row = ProlificStudy.objects.filter(pool=pool).exclude(prolific_id="").select_related("pool").first()
    if row is None:
        raise MessageRefused(f"{pool.country_name} is not on Prolific: nobody to message.")
    return row


def prolific_message_send(
    *, pool: CountryPool, user: AbstractBaseUser | None, body: str, participant_id: str = ""
) -> MessageResult:
    """Message one participant of the pool's study (``participant_id``) or, without one, all of them."""
    text = message_body_clean(body)
    row = _launched(pool)
    known = ProlificSubmission.objects.filter(prolific_study=row)
    if participant_id:
        if not known.filter(participant_id=participant_id).exists():
            raise MessageRefused(f"{participant_id} took no part in {pool.country_name}'s study: not messaged.",
                                 field="participant")
        recipients = [participant_id]
    else:
        recipients = sorted(set(known.values_list("participant_id", flat=True)))
        if not recipients:
            raise MessageRefused(f"Nobody has taken part in {pool.country_name}'s study yet: nobody to message.")
    calls = 0
    with client_for(user=user) as client:
        if participant_id:
            _send(row, user, Kind.MESSAGE, participant_id,
                  lambda: client.message_send(recipient_id=participant_id, study_id=row.prolific_id, body=text))
            calls = 1
        else:
            for start in range(0, len(recipients), BULK_CHUNK):
                chunk = recipients[start:start + BULK_CHUNK]
                _send(row, user, Kind.MESSAGE_BULK, f"{len(chunk)} participants",
                      lambda chunk=chunk: client.messages_bulk_send(
                          participant_ids=chunk, study_id=row.prolific_id, body=text),
                      sent_to=start)
                calls += 1
    return MessageResult(sent=len(recipients), calls=calls)


def _send(row: ProlificStudy, user: AbstractBaseUser | None, kind: str, target: str, call, *, sent_to: int = 0) -> None:
    try:
        call()
    except ProlificError as exc:
        action_log(row=row, kind=kind, user=user, target=target, ok=False, error=exc)
        if sent_to:
            exc.message = f"{exc.message} (the first {sent_to} participants were messaged already)"
            exc.args = (exc.message,)
        raise
    action_log(row=row, kind=kind, user=user, target=target, ok=True, answer={"sent": True})


def prolific_messages_received(*, study: Study, user: AbstractBaseUser | None) -> list[Message]:
    """The messages of the last 30 days about the study's Prolific studies, newest first."""
    ids = set(ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").values_list(
        "prolific_id", flat=True))
    if not ids:
        return []
    since = (timezone.now() - timedelta(days=RECEIVED_DAYS)).isoformat()
    with client_for(user=user) as client:
        found = [m for m in client.messages(created_after=since) if m.study_id in ids]
    return sorted(found, key=lambda m: m.sent_at or timezone.now(), reverse=True)

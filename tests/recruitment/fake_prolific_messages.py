"""The fake Prolific's messages, paid screen-outs, study JWKS and test participants (issue 28, part 2):
a part of ``FakeProlific``, with its own routes (``messages_routes``).

Shapes from Prolific's API reference: ``POST /messages/`` ``{recipient_id, study_id, body}`` and
``POST /messages/bulk/`` ``{ids, study_id, body}`` answer 204; ``GET /messages/`` needs ``user_id`` or
``created_after`` (400 otherwise) and lists ``{id, sender_id, body, datetime_created, channel_id,
data{study_id, category}}``; ``GET /messages/unread/``; a bulk message takes 4,000 recipients at most,
each with a submission in the study. ``POST /studies/{id}/screen-out-submissions/``
``{submission_ids, bonus_per_submission | reward_per_hour, increase_places?}`` (the spec's
BulkScreenOutRequest: the reward in major units, at least £0.10 or $0.14; active submissions of a
study created with ``is_custom_screening``; a workspace-restricted feature, 403 where it is off).
``GET /.well-known/study/jwks.json`` (no token). ``POST /researchers/participants/`` ``{email}`` and
``POST /studies/{id}/test-study/`` (a draft; answers ``{study_id, study_url}``), both 403 where the
workspace does not have the feature. Where the reference gives no answer body (the screen-out), the
fake answers ``{}``.

Test side: ``message_receive`` (a participant writes to the researcher), ``jwks`` (the key set served).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from .fake_prolific_rules import Answer, new_id

BULK_LIMIT = 4000
SCREEN_OUT_MIN = {"GBP": Decimal("0.10"), "USD": Decimal("0.14")}


class MessagesScreenOutsTesting:
    """Mixed into FakeProlific, whose state (``studies``, ``submissions``, ``user``…) and lock it uses."""

    lock: Any
    studies: dict[str, dict[str, Any]]
    submissions: dict[str, dict[str, Any]]
    user: dict[str, Any]
    url: str

    def messages_init(self) -> None:
        self.messages_sent: list[dict[str, Any]] = []  # what the researcher sent (one row a recipient)
        self.inbox: list[dict[str, Any]] = []  # what participants wrote to the researcher
        self.screen_outs: list[dict[str, Any]] = []  # paid screen-outs: {submission_id, amount}
        self.jwks: dict[str, Any] = {"keys": []}
        self.screen_out_enabled = True
        self.test_participants_enabled = True
        self.test_participants: list[dict[str, Any]] = []

    def messages_routes(self) -> list[tuple[str, str, Any]]:
        return [
            ("POST", r"messages/", self.r_message_send),
            ("GET", r"messages/", self.r_messages),
            ("POST", r"messages/bulk/", self.r_messages_bulk),
            ("GET", r"messages/unread/", self.r_messages_unread),
            ("POST", r"studies/(?P<sid>[0-9a-f]{24})/screen-out-submissions/", self.r_screen_out),
            ("POST", r"researchers/participants/", self.r_test_participant),
            ("POST", r"studies/(?P<sid>[0-9a-f]{24})/test-study/", self.r_test_study),
        ]

    # --- test side ----------------------------------------------------------------------------

    def message_receive(self, *, sender_id: str, study_id: str, body: str,
                        sent_at: str = "2026-11-25T10:30:00Z", unread: bool = True) -> dict[str, Any]:
        with self.lock:
            message = {"id": new_id(), "sender_id": sender_id, "body": body, "datetime_created": sent_at,
                       "type": "message", "channel_id": new_id(),
                       "data": {"study_id": study_id, "category": "study"}, "unread": unread}
            self.inbox.append(message)
            return message

    # --- messages -----------------------------------------------------------------------------

    def _message_fields(self, body: Any, ids_field: str) -> tuple[str, str]:
        body = self._need_object(body)  # type: ignore[attr-defined]
        problems: dict[str, list[str]] = {}
        for name in (ids_field, "study_id", "body"):
            if body.get(name) in (None, "", []):
                problems[name] = ["This field is required."]
        if problems:
            raise Answer(400, problems)
        if not isinstance(body["body"], str):
            raise Answer(400, {"body": ["Not a valid string."]})
        if body["study_id"] not in self.studies:
            raise Answer(404, "Study not found.")
        return body["study_id"], body["body"]

    def _took_part(self, study_id: str) -> set[str]:
        return {s["participant"] for s in self.submissions.values() if s["study_id"] == study_id}

    def r_message_send(self, body, query):
        study_id, text = self._message_fields(body, "recipient_id")
        self.messages_sent.append({"recipient_id": body["recipient_id"], "study_id": study_id, "body": text})
        return 204, None, {}

    def r_messages_bulk(self, body, query):
        study_id, text = self._message_fields(body, "ids")
        ids = body["ids"]
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise Answer(400, {"ids": ["A list of participant ids is required."]})
        if len(ids) > BULK_LIMIT:
            raise Answer(400, {"ids": [f"At most {BULK_LIMIT} participants can be messaged at once."]})
        strangers = sorted(set(ids) - self._took_part(study_id))
        if strangers:
            raise Answer(400, {"ids": [f"These participants have no submission in the study: {', '.join(strangers)}"]})
        self.messages_sent.extend({"recipient_id": pid, "study_id": study_id, "body": text} for pid in ids)
        return 204, None, {}

    def _listed(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in m.items() if k != "unread"} for m in items]

    def r_messages(self, body, query):
        if not (query.get("user_id") or query.get("created_after")):
            raise Answer(400, "Either user_id or created_after is required.")
        items = self.inbox
        if query.get("user_id"):
            items = [m for m in items if m["sender_id"] == query["user_id"]]
        if query.get("created_after"):
            after = query["created_after"].replace("+00:00", "Z")
            items = [m for m in items if m["datetime_created"] > after[:19]]
        return 200, self._page("messages/", self._listed(items), query), {}  # type: ignore[attr-defined]

    def r_messages_unread(self, body, query):
        unread = [m for m in self.inbox if m["unread"]]
        return 200, self._page("messages/unread/", self._listed(unread), query), {}  # type: ignore[attr-defined]

    # --- screen-outs --------------------------------------------------------------------------

    def r_screen_out(self, body, query, sid):
        study = self._study(sid)  # type: ignore[attr-defined]
        if not self.screen_out_enabled:
            raise Answer(403, "Screen-outs are not enabled for this workspace.")
        if not study.get("is_custom_screening"):
            raise Answer(400, "This study was not created with is_custom_screening: it cannot screen out.")
        body = self._need_object(body)  # type: ignore[attr-defined]
        ids = body.get("submission_ids")
        if not isinstance(ids, list) or not ids:
            raise Answer(400, {"submission_ids": ["This field is required."]})
        currency = self.user["currency_code"]
        try:
            amount = Decimal(str(body.get("bonus_per_submission")))
        except InvalidOperation:
            raise Answer(400, {"bonus_per_submission": ["A valid number is required."]}) from None
        if amount < SCREEN_OUT_MIN[currency]:
            raise Answer(400, {"bonus_per_submission": [f"Minimum {SCREEN_OUT_MIN[currency]} {currency}."]})
        for sub_id in ids:
            sub = self.submissions.get(sub_id)
            if sub is None or sub["study_id"] != sid:
                raise Answer(400, {"submission_ids": [f"{sub_id} does not belong to the study."]})
            if sub["status"] != "ACTIVE":
                raise Answer(400, {"submission_ids": [f"{sub_id} is {sub['status']}: only active ones."]})
        for sub_id in ids:
            sub = self.submissions[sub_id]
            sub["status"] = "SCREENED OUT"
            self.screen_outs.append({"submission_id": sub_id, "amount": str(amount)})
            self.emit("submission.status.change", sub_id, participant_id=sub["participant"],  # type: ignore[attr-defined]
                      status="SCREENED OUT")
        if body.get("increase_places"):
            study["total_available_places"] += len(ids)
        return 200, {}, {}

    # --- test participants --------------------------------------------------------------------

    def r_test_participant(self, body, query):
        if not self.test_participants_enabled:
            raise Answer(403, "Test participants are not enabled for this workspace.")
        body = self._need_object(body)  # type: ignore[attr-defined]
        if not body.get("email"):
            raise Answer(400, {"email": ["This field is required."]})
        participant = {"participant_id": new_id(), "email": body["email"]}
        self.test_participants.append(participant)
        return 201, {"participant_id": participant["participant_id"]}, {}

    def r_test_study(self, body, query, sid):
        study = self._study(sid)  # type: ignore[attr-defined]
        if not self.test_participants_enabled:
            raise Answer(403, "Test studies are not enabled for this workspace.")
        if study["status"] != "UNPUBLISHED":
            raise Answer(400, "Only a draft study can be tested.")
        if not self.test_participants:
            raise Answer(400, "Create a test participant first.")
        test_id = new_id()
        return 200, {"study_id": test_id, "study_url": f"https://app.prolific.com/studies/{test_id}"}, {}

"""The fake Prolific's submissions, bonuses and webhook endpoints, and the test-side participants
(``submission_start``, ``submission_finish``, ``submission_return``): a part of ``FakeProlific``."""

from __future__ import annotations

import base64
import json
import secrets
import time
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

from .fake_prolific_rules import FEE_RATE, REJECTION_CATEGORIES, Answer, new_id, sign

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class SubmissionsBonusesHooks:
    """Mixed into FakeProlific, whose state (``studies``, ``submissions``…) and lock it uses."""

    lock: Any
    studies: dict[str, dict[str, Any]]
    submissions: dict[str, dict[str, Any]]
    bonuses: dict[str, dict[str, Any]]
    pending_approvals: list[str]
    hook_secrets: dict[str, dict[str, Any]]
    subscriptions: dict[str, dict[str, Any]]
    workspaces: list[dict[str, Any]]
    events: list[dict[str, Any]]

    @staticmethod
    def _need_object(body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise Answer(400, {"non_field_errors": ["Expected a JSON object."]})
        return body

    # --- submissions (participants are played by the test) ------------------------------------

    def submission_start(self, study_id: str, participant: str) -> str:
        with self.lock:
            study = self._study(study_id)
            if study["status"] != "ACTIVE":
                raise ValueError(f"study {study_id} is {study['status']}")
            if study["places_taken"] >= study["total_available_places"]:
                raise ValueError("no place left")
            if problem := self.eligibility_problem(study, participant):  # type: ignore[attr-defined]
                raise ValueError(f"participant {participant} is not eligible: {problem}")
            sub = {"id": new_id(), "participant": participant, "study_id": study_id, "status": "ACTIVE",
                   "started_at": "2026-11-25T10:00:00Z", "completed_at": None, "entered_code": None,
                   "return_requested": None, "bonus_payments": []}
            self.submissions[sub["id"]] = sub
            self.emit("submission.status.change", sub["id"], participant_id=participant, status="ACTIVE")
            study["places_taken"] += 1
            if study["places_taken"] >= study["total_available_places"]:
                study["status"] = "AWAITING REVIEW"
            return sub["id"]

    def submission_finish(self, submission_id: str, code: str) -> str:
        with self.lock:
            sub = self.submissions[submission_id]
            study = self.studies[sub["study_id"]]
            codes = {c["code"]: c for c in study["completion_codes"]}
            actions = {a["action"] for a in codes.get(code, {}).get("actions", [])}
            sub["entered_code"] = code
            sub["status"] = "APPROVED" if "AUTOMATICALLY_APPROVE" in actions else "AWAITING REVIEW"
            if "REQUEST_RETURN" in actions:
                sub["return_requested"] = "2026-11-25T10:05:00Z"
            self.emit("submission.status.change", sub["id"], participant_id=sub["participant"], status=sub["status"])
            return sub["status"]

    def submission_return(self, submission_id: str, status: str = "RETURNED") -> None:
        with self.lock:
            sub = self.submissions[submission_id]
            sub["status"] = status
            self.emit("submission.status.change", sub["id"], participant_id=sub["participant"], status=status)
            study = self.studies[sub["study_id"]]
            study["places_taken"] -= 1
            if study["status"] == "AWAITING REVIEW":
                study["status"] = "ACTIVE"

    def _submission(self, sub: str) -> dict[str, Any]:
        found = self.submissions.get(sub)
        if found is None:
            raise Answer(404, "Submission not found.")
        return found

    def r_study_submissions(self, body, query, sid):
        self._study(sid)
        items = [{"id": s["id"], "participant_id": s["participant"], "status": s["status"],
                  "started_at": s["started_at"], "completed_at": s["completed_at"], "study_code": s["entered_code"],
                  "return_requested": s["return_requested"]}
                 for s in self.submissions.values() if s["study_id"] == sid]
        return 200, self._page(f"studies/{sid}/submissions/", items, query), {}

    def r_submission_get(self, body, query, sub):
        return 200, dict(self._submission(sub)), {}

    def r_submission_transition(self, body, query, sub):
        found = self._submission(sub)
        body = self._need_object(body)
        action = body.get("action")
        target = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}.get(action)
        if target is None:
            raise Answer(400, {"action": [f'"{action}" is not a valid choice.']})
        if found["status"] == target:
            return 200, dict(found), {}  # a repeat is ignored
        if found["status"] != "AWAITING REVIEW":
            raise Answer(400, f"Cannot {action} a submission whose status is {found['status']}.")
        if action == "REJECT":
            problems = {}
            if not isinstance(body.get("message"), str) or len(body["message"]) < 100:
                problems["message"] = ["A message of at least 100 characters is required."]
            if body.get("rejection_category") not in REJECTION_CATEGORIES:
                problems["rejection_category"] = ["A valid rejection category is required."]
            if problems:
                raise Answer(400, problems)
        found["status"] = target
        self.emit("submission.status.change", sub, participant_id=found["participant"], status=target)
        return 200, {k: found[k] for k in ("id", "status", "participant", "study_id")}, {}

    def r_request_return(self, body, query, sub):
        found = self._submission(sub)
        reasons = self._need_object(body).get("request_return_reasons")
        if not isinstance(reasons, list) or not reasons or not all(isinstance(r, str) for r in reasons):
            raise Answer(400, {"request_return_reasons": ["A non-empty list of reasons is required."]})
        found["return_requested"] = "2026-11-25T10:06:00Z"
        return 200, {k: found[k] for k in ("id", "status", "participant", "return_requested")}, {}

    def r_bulk_approve(self, body, query):
        ids = self._need_object(body).get("submission_ids")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise Answer(400, {"submission_ids": ["A non-empty list of submission ids is required."]})
        if unknown := [i for i in ids if i not in self.submissions]:
            raise Answer(400, {"submission_ids": [f"Unknown submissions: {unknown}"]})
        self.pending_approvals += ids
        return 200, "The request to bulk approve has been made successfully.", {}

    def drain(self) -> None:
        """Prolific's asynchronous work done: bulk approvals applied, bonuses paid."""
        with self.lock:
            for sid in self.pending_approvals:
                if self.submissions[sid]["status"] == "AWAITING REVIEW":
                    self.submissions[sid]["status"] = "APPROVED"
            self.pending_approvals.clear()
            for bonus in self.bonuses.values():
                if bonus["state"] == "paying":
                    bonus["state"] = "paid"

    # --- bonuses -----------------------------------------------------------------------------

    def r_bonus_setup(self, body, query):
        body = self._need_object(body)
        study = self._study(str(body.get("study_id")))
        csv = body.get("csv_bonuses")
        if not isinstance(csv, str) or not csv.strip():
            raise Answer(400, {"csv_bonuses": ["Lines of '<id>,<amount>' are required."]})
        members = {s["id"] for s in self.submissions.values() if s["study_id"] == study["id"]}
        members |= {s["participant"] for s in self.submissions.values() if s["study_id"] == study["id"]}
        total, strangers = 0, []
        for line in csv.strip().splitlines():
            who, _, amount = line.partition(",")
            try:
                value = Decimal(amount.strip())
            except InvalidOperation:
                raise Answer(400, {"csv_bonuses": [f"Bad amount in {line!r}."]}) from None
            if value <= 0 or value != value.quantize(Decimal("0.01")):
                raise Answer(400, {"csv_bonuses": [f"Amounts are positive, in major units with 2 decimals: {line!r}."]})
            if who.strip() not in members:
                strangers.append(who.strip())
            total += int(value * 100)
        if strangers:
            raise Answer(400, {"csv_bonuses": [f"These ids did not take part in the study: {strangers}"]})
        fees = int((Decimal(total) * FEE_RATE).quantize(Decimal(1)))
        bonus = {"id": new_id(), "study": study["id"], "amount": total, "fees": fees, "vat": 0,
                 "total_amount": total + fees, "state": "set up", "payments": 0}
        self.bonuses[bonus["id"]] = bonus
        return 201, {k: v for k, v in bonus.items() if k not in {"state", "payments"}}, {}

    def r_bonus_pay(self, body, query, bid):
        """Prolific's reference: "This endpoint is not idempotent. Sending multiple requests with the
        same bulk bonus payment ID will result in participants being paid multiple times." So is
        the fake: each request is one more payment (``payments``), charged to the balance."""
        bonus = self.bonuses.get(bid)
        if bonus is None:
            raise Answer(404, "Bonus payment not found.")
        if self.user["available_balance"] < bonus["total_amount"]:
            raise Answer(400, "Insufficient balance to pay these bonuses: top up your workspace.")
        self.user["available_balance"] -= bonus["total_amount"]
        bonus["payments"] += 1
        if bonus["state"] == "set up":
            bonus["state"] = "paying"
        return 202, None, {}

    # --- webhooks ----------------------------------------------------------------------------

    EVENT_TYPES = ("study.status.change", "submission.status.change", "study.progress.change")

    def r_event_types(self, body, query):
        return 200, self._page("hooks/event-types/", [{"event_type": e} for e in self.EVENT_TYPES], query), {}

    def _workspace(self, wid: Any) -> str:
        if wid not in {w["id"] for w in self.visible_workspaces()}:
            raise Answer(400, {"workspace_id": ["Unknown workspace."]})
        return str(wid)

    def r_secrets(self, body, query):
        wid = self._workspace(query.get("workspace_id"))
        items = [s for s in self.hook_secrets.values() if s["workspace_id"] == wid]
        return 200, self._page("hooks/secrets/", items, query), {}

    def r_secret_create(self, body, query):
        wid = self._workspace(self._need_object(body).get("workspace_id"))
        for key in [k for k, s in self.hook_secrets.items() if s["workspace_id"] == wid]:
            del self.hook_secrets[key]  # one secret per workspace: a new one replaces it
        secret = {"id": new_id(), "value": base64.b64encode(secrets.token_bytes(32)).decode(), "workspace_id": wid}
        self.hook_secrets[secret["id"]] = secret
        return 201, dict(secret), {}

    def r_subscriptions(self, body, query):
        wid = self._workspace(query.get("workspace_id"))
        items = [{k: v for k, v in s.items() if k != "confirm"} for s in self.subscriptions.values()
                 if s["workspace_id"] == wid]
        return 200, self._page("hooks/subscriptions/", items, query), {}

    def r_subscribe(self, body, query):
        body = self._need_object(body)
        wid = self._workspace(body.get("workspace_id"))
        problems = {}
        if body.get("event_type") not in self.EVENT_TYPES:
            problems["event_type"] = ["Unknown event type."]
        target = str(body.get("target_url") or "")
        # Prolific wants a public https address; the fake, itself on a loopback port, also delivers
        # to a site on loopback (the demo's http://127.0.0.1), and refuses any other http address.
        on_loopback = target.startswith("http://") and urlsplit(target).hostname in LOOPBACK
        if not (target.startswith("https://") or on_loopback):
            problems["target_url"] = ["A public https address is required."]
        if problems:
            raise Answer(400, problems)
        sub = {"id": new_id(), "event_type": body["event_type"], "target_url": body["target_url"],
               "workspace_id": wid, "is_enabled": False, "confirm": secrets.token_hex(16)}
        self.subscriptions[sub["id"]] = sub
        return 201, {k: v for k, v in sub.items() if k != "confirm"}, {"X-Hook-Secret": sub["confirm"]}

    def r_confirm(self, body, query, hid):
        sub = self.subscriptions.get(hid)
        if sub is None:
            raise Answer(404, "Subscription not found.")
        if self._need_object(body).get("secret") != sub["confirm"]:
            raise Answer(400, {"secret": ["The secret does not match."]})
        sub["is_enabled"] = True
        return 200, {k: v for k, v in sub.items() if k != "confirm"}, {}


    # --- webhook deliveries ------------------------------------------------------------------

    def emit(self, event_type: str, resource_id: str, **fields: Any) -> None:
        """Queue the event for the enabled subscriptions to ``event_type`` of the workspace that
        holds the resource (a submission's: its study's)."""
        with self.lock:
            study = self.studies[self.submissions[resource_id]["study_id"] if event_type.startswith("submission.")
                                 else resource_id]
            workspace = self.workspace_of_study(study)
            for sub in self.subscriptions.values():
                if sub["event_type"] == event_type and sub["is_enabled"] and sub["workspace_id"] == workspace:
                    body = {"resource_id": resource_id, "event_type": event_type, **fields}
                    self.events.append({"workspace_id": sub["workspace_id"], "event_id": new_id(),
                                        "target_url": sub["target_url"], "body": json.dumps(body).encode()})

    def deliver(self, client, *, repeat: int = 1, age: int = 0, tamper: bool = False, secret: str | None = None):
        """POST the queued events to their target's path with Django's test ``client``, signed as
        Prolific signs them (``age`` seconds old; ``tamper``: the body altered after signing;
        ``secret``: signed with another secret), each ``repeat`` times; returns the responses."""
        with self.lock:
            queued, self.events = self.events, []
        responses = []
        for event in queued:
            key = secret
            if key is None:
                key = next(s["value"] for s in self.hook_secrets.values() if s["workspace_id"] == event["workspace_id"])
            stamp = str(int(time.time()) - age)
            body = event["body"]
            signature = sign(key, stamp, body)
            if tamper:
                body = body.replace(b'"RETURNED"', b'"APPROVED"').replace(b'"ACTIVE"', b'"PAUSED"')
            for _ in range(repeat):
                responses.append(client.post(
                    urlsplit(event["target_url"]).path, data=body, content_type="application/json",
                    HTTP_X_PROLIFIC_REQUEST_SIGNATURE=signature, HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp,
                    HTTP_X_EVENT_ID=event["event_id"],
                ))
        return responses

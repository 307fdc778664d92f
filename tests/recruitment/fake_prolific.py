"""A fake Prolific researcher API: a real HTTP server in a thread on a loopback port.

It keeps Prolific's paths (under ``/api/v1/``, trailing slashes required), its token header, its
list envelope (``results``, ``_links.next.href``, ``meta.count``: pages of ``page_size`` so every
list is paginated), its error envelope (``{"error": {status, error_code, title, detail}}``), its
statuses (201 on create, 202 on pay, 204 on delete) and its state machines (studies: UNPUBLISHED →
ACTIVE ↔ PAUSED → AWAITING REVIEW; submissions: ACTIVE → AWAITING REVIEW → APPROVED/REJECTED).
Bodies are checked by ``fake_prolific_rules``. Every request is recorded (``requests``), and one
that matches no route is kept in ``unrouted`` (the fixture fails a test that leaves one).

Faults on demand: ``fail_next`` (any status, body and headers, e.g. 429 with Retry-After),
``hang_next`` (no answer before the client's time-out; ``after_processing`` does the work first, as
when Prolific created a study but the answer never came back).
Test-side participants: ``submission_start``, ``submission_finish``, ``submission_return``.
Webhooks: every status change of a submission or a study is queued as an event (with its
``X-Event-ID``) for each enabled subscription to its type; ``deliver`` posts the queue to our
endpoint signed with the workspace's secret (``sign``), and can repeat, tamper with or age one.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.fake_http import send_json

from . import fake_prolific_rules as rules
from .fake_prolific_groups import ParticipantGroups
from .fake_prolific_messages import MessagesScreenOutsTesting
from .fake_prolific_rules import FEE_RATE, Answer, error_body, new_id, sign
from .fake_prolific_work import SubmissionsBonusesHooks

API = "/api/v1/"
JWKS_PATH = "/.well-known/study/jwks.json"
__all__ = ["FakeProlific", "sign"]


@dataclass
class Recorded:
    method: str
    path: str  # relative to /api/v1/, e.g. "studies/"
    query: dict[str, str]
    body: Any
    authorization: str | None = field(repr=False)
    content_type: str | None
    status: int = 0


@dataclass
class Fault:
    method: str
    pattern: str
    status: int = 500
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hang: float = 0.0
    after_processing: bool = False
    times: int = 1


class FakeProlific(SubmissionsBonusesHooks, MessagesScreenOutsTesting, ParticipantGroups):
    def __init__(self, *, page_size: int = 2, currency: str = "GBP", balance: int = 1_000_000):
        self.token = "fake-prolific-token-" + secrets.token_hex(16)
        self.tokens = {self.token}
        self.page_size = page_size
        self.lock = threading.RLock()
        self.requests: list[Recorded] = []
        self.unrouted: list[Recorded] = []
        self.faults: list[Fault] = []
        self._release = threading.Event()
        self.user = {
            "id": new_id(), "email": "researcher@example.org", "name": "Fake Researcher", "user_type": "researcher",
            "currency_code": currency, "balance": balance, "available_balance": balance,
        }
        self.workspaces = [{"id": new_id(), "title": "My workspace", "owner": self.user["id"],
                            "users": [{"id": self.user["id"], "roles": ["WORKSPACE_ADMIN"]}]}]
        self.projects: dict[str, list[dict[str, Any]]] = {
            self.workspaces[0]["id"]: [{"id": new_id(), "title": "Project", "owner": self.user["id"],
                                        "workspace": self.workspaces[0]["id"]}]
        }
        self.token_workspace = {self.token: self.workspaces[0]["id"]}  # each token sees its lab's workspace
        self.caller: str | None = None  # the token of the request being answered (None: the test itself)
        self.studies: dict[str, dict[str, Any]] = {}
        self.submissions: dict[str, dict[str, Any]] = {}
        self.bonuses: dict[str, dict[str, Any]] = {}
        self.pending_approvals: list[str] = []
        self.hook_secrets: dict[str, dict[str, Any]] = {}
        self.subscriptions: dict[str, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []  # webhook events queued, delivered by ``deliver``
        self._clock = itertools.count(1)
        self.routes = [
            ("GET", r"users/me/", self.r_me),
            ("GET", r"workspaces/", self.r_workspaces),
            ("GET", r"workspaces/(?P<wid>[^/]+)/projects/", self.r_projects),
            ("GET", r"filters/", self.r_filters),
            ("POST", r"eligibility-count/", self.r_eligibility_count),
            ("POST", r"studies/", self.r_study_create),
            ("GET", r"studies/", self.r_studies),
            ("GET", r"studies/(?P<sid>[0-9a-f]{24})/", self.r_study_get),
            ("PATCH", r"studies/(?P<sid>[0-9a-f]{24})/", self.r_study_update),
            ("DELETE", r"studies/(?P<sid>[0-9a-f]{24})/", self.r_study_delete),
            ("POST", r"studies/(?P<sid>[0-9a-f]{24})/transition/", self.r_study_transition),
            ("GET", r"studies/(?P<sid>[0-9a-f]{24})/submissions/", self.r_study_submissions),
            ("POST", r"submissions/bulk-approve/", self.r_bulk_approve),
            ("POST", r"submissions/bonus-payments/", self.r_bonus_setup),
            ("GET", r"submissions/(?P<sub>[0-9a-f]{24})/", self.r_submission_get),
            ("POST", r"submissions/(?P<sub>[0-9a-f]{24})/transition/", self.r_submission_transition),
            ("POST", r"submissions/(?P<sub>[0-9a-f]{24})/request-return/", self.r_request_return),
            ("POST", r"bulk-bonus-payments/(?P<bid>[0-9a-f]{24})/pay/", self.r_bonus_pay),
            ("GET", r"hooks/event-types/", self.r_event_types),
            ("GET", r"hooks/secrets/", self.r_secrets),
            ("POST", r"hooks/secrets/", self.r_secret_create),
            ("GET", r"hooks/subscriptions/", self.r_subscriptions),
            ("POST", r"hooks/subscriptions/", self.r_subscribe),
            ("POST", r"hooks/subscriptions/(?P<hid>[0-9a-f]{24})/", self.r_confirm),
        ]
        # issue 28, part 2: messages, screen-outs, test participants (fake_prolific_messages)
        self.messages_init()
        self.routes += self.messages_routes()
        self.groups_init()  # participant groups (fake_prolific_groups)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                fake.handle(self)

            do_POST = do_PATCH = do_DELETE = do_PUT = do_GET

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-prolific", daemon=True
        )

    # --- life --------------------------------------------------------------------------------

    @property
    def origin(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        return self.origin + API

    def start(self) -> FakeProlific:
        self.thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def lab_add(self, title: str = "Another lab") -> str:
        """Another lab on Prolific: a token of its own that sees only its own workspace (with one
        project); returns the token."""
        with self.lock:
            token = "fake-prolific-token-" + secrets.token_hex(16)
            workspace = {"id": new_id(), "title": title, "owner": new_id(), "users": []}
            self.workspaces.append(workspace)
            self.projects[workspace["id"]] = [{"id": new_id(), "title": "Project", "owner": workspace["owner"],
                                               "workspace": workspace["id"]}]
            self.tokens.add(token)
            self.token_workspace[token] = workspace["id"]
            return token

    def visible_workspaces(self) -> list[dict[str, Any]]:
        """The workspaces the current caller sees (the test itself sees them all)."""
        if self.caller is None:
            return self.workspaces
        return [w for w in self.workspaces if w["id"] == self.token_workspace[self.caller]]

    def workspace_of_study(self, study: dict[str, Any]) -> str:
        holds = (wid for wid, projects in self.projects.items() if any(p["id"] == study["project"] for p in projects))
        return next(holds)

    # --- faults ------------------------------------------------------------------------------

    def fail_next(self, method: str, pattern: str, status: int, body: Any = None, *,
                  headers: dict[str, str] | None = None, times: int = 1) -> None:
        """The next ``times`` requests ``method`` on a path matching ``pattern`` (a regex over the
        path under /api/v1/) get ``status`` (with Prolific's error envelope unless ``body`` is given)."""
        with self.lock:
            self.faults.append(Fault(method, pattern, status, body, headers or {}, times=times))

    def hang_next(self, method: str, pattern: str, seconds: float, *, after_processing: bool = False) -> None:
        """The next such request is answered only after ``seconds`` (past the client's time-out);
        ``after_processing``: the work is done first (a study is created), only the answer is late."""
        with self.lock:
            self.faults.append(Fault(method, pattern, hang=seconds, after_processing=after_processing))

    def _fault_for(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.method == method and re.fullmatch(fault.pattern, path):
                    fault.times -= 1
                    if fault.times <= 0:
                        self.faults.remove(fault)
                    return fault
        return None

    # --- the request cycle -------------------------------------------------------------------

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        rel = parts.path[len(API):] if parts.path.startswith(API) else parts.path
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        record = Recorded(h.command, rel, query, body, h.headers.get("Authorization"), h.headers.get("Content-Type"))
        with self.lock:
            self.requests.append(record)
        status, payload, headers = self._answer(h.command, parts.path, rel, query, body, raw, record)
        record.status = status
        send_json(h, status, payload, headers)

    def _answer(self, method, full_path, rel, query, body, raw, record) -> tuple[int, Any, dict[str, str]]:
        fault = self._fault_for(method, rel)
        if fault is not None and fault.hang and not fault.after_processing:
            self._release.wait(fault.hang)
            return 504, error_body(504, "Gateway Timeout", "late"), {}
        if fault is not None and not fault.hang:
            payload = fault.body if fault.body is not None else error_body(
                fault.status, "Error", f"Injected failure {fault.status}")
            return fault.status, payload, fault.headers
        if method == "GET" and full_path == JWKS_PATH:  # public: no token (issue 28, part 2)
            return 200, self.jwks, {}
        try:
            if not full_path.startswith(API):
                raise Answer(404, "Not found.")
            if h_auth := record.authorization:
                if h_auth.removeprefix("Token ") not in self.tokens or not h_auth.startswith("Token "):
                    raise Answer(401, "Invalid token.")
            else:
                raise Answer(401, "Authentication credentials were not provided.")
            if raw and "application/json" not in (record.content_type or ""):
                raise Answer(415, "Send JSON with Content-Type: application/json.")
            route, params = self._route(method, rel)
            if route is None:
                with self.lock:
                    self.unrouted.append(record)
                if params is None:
                    raise Answer(404, "No such endpoint.")
                raise Answer(405, "Method not allowed.")
            with self.lock:
                self.caller = h_auth.removeprefix("Token ")
                try:
                    status, payload, headers = route(body=body, query=query, **params)
                finally:
                    self.caller = None
        except Answer as answer:
            status, headers = answer.status, answer.headers
            payload = error_body(answer.status, answer.title, answer.detail)
        if fault is not None and fault.after_processing:
            self._release.wait(fault.hang)
        return status, payload, headers

    def _route(self, method: str, rel: str):
        path_known = False
        for route_method, pattern, func in self.routes:
            match = re.fullmatch(pattern, rel)
            if match:
                path_known = True
                if route_method == method:
                    return func, match.groupdict()
        return None, ({} if path_known else None)

    def _page(self, rel: str, items: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
        if "offset" in query or "limit" in query:
            start, size = int(query.get("offset") or 0), int(query.get("limit") or self.page_size)
        else:
            size = int(query.get("page_size") or self.page_size)
            start = (int(query.get("page") or 1) - 1) * size
        chunk = items[start:start + size]
        rest = {k: v for k, v in query.items() if k not in {"page", "page_size", "offset", "limit"}}
        nxt = None
        if start + size < len(items):
            nxt = f"{self.url}{rel}?{urlencode({**rest, 'page': start // size + 2, 'page_size': size})}"
        return {
            "results": chunk,
            "_links": {"self": {"href": f"{self.url}{rel}", "title": "Current"},
                       "next": {"href": nxt, "title": "Next"}, "previous": {"href": None, "title": "Previous"}},
            "meta": {"count": len(items)},
        }

    # --- account and filters -----------------------------------------------------------------

    def r_me(self, body, query):
        return 200, dict(self.user), {}

    def r_workspaces(self, body, query):
        return 200, self._page("workspaces/", self.visible_workspaces(), query), {}

    def r_projects(self, body, query, wid):
        if wid not in {w["id"] for w in self.visible_workspaces()}:
            raise Answer(404, "Workspace not found.")
        return 200, self._page(f"workspaces/{wid}/projects/", self.projects[wid], query), {}

    def r_filters(self, body, query):
        return 200, self._page("filters/", rules.FILTERS, query), {}

    def r_eligibility_count(self, body, query):
        body = self._need_object(body)
        problems = rules.filter_errors(body.get("filters")) + self.round_filter_errors(body.get("filters"))
        if problems:
            raise Answer(400, {"filters": problems})
        return 200, {"count": rules.eligible_count(body["filters"])}, {}

    # --- studies -----------------------------------------------------------------------------

    def _study(self, sid: str) -> dict[str, Any]:
        study = self.studies.get(sid)
        if study is None or self.workspace_of_study(study) not in {w["id"] for w in self.visible_workspaces()}:
            raise Answer(404, "Study not found.")
        return study

    def _costed(self, study: dict[str, Any]) -> dict[str, Any]:
        rewards = study["reward"] * study["total_available_places"]
        fees = int((Decimal(rewards) * FEE_RATE).quantize(Decimal(1)))
        study["total_cost"] = rewards + fees
        return study

    def study_create_direct(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a draft as the API would (a test standing in for an earlier, lost answer)."""
        with self.lock:
            sid = new_id()
            project = self.projects[self.visible_workspaces()[0]["id"]][0]["id"]  # the caller's own project
            study = {"id": sid, "status": "UNPUBLISHED", "places_taken": 0, "internal_name": "", "metadata": None,
                     "currency_code": self.user["currency_code"], "date_created": next(self._clock),
                     "project": project, **body}
            self.studies[sid] = self._costed(study)
            return dict(study)

    def r_study_create(self, body, query):
        problems = rules.study_errors(body, currency=self.user["currency_code"])
        if round_problems := self.round_filter_errors(body.get("filters") if isinstance(body, dict) else None):
            problems.setdefault("filters", []).extend(round_problems)
        if problems:
            raise Answer(400, problems)
        return 201, self.study_create_direct(body), {}

    def r_studies(self, body, query):
        seen = {w["id"] for w in self.visible_workspaces()}
        items = [s for s in self.studies.values() if self.workspace_of_study(s) in seen]
        if query.get("published") == "0":
            items = [s for s in items if s["status"] == "UNPUBLISHED"]
        summary = [{k: s.get(k) for k in ("id", "name", "internal_name", "status", "total_available_places",
                                           "places_taken", "reward", "total_cost", "date_created")} for s in items]
        return 200, self._page("studies/", summary, query), {}

    def r_study_get(self, body, query, sid):
        return 200, dict(self._study(sid)), {}

    def r_study_update(self, body, query, sid):
        study = self._study(sid)
        body = self._need_object(body)
        if study["status"] == "UNPUBLISHED":
            problems = rules.study_errors(body, currency=self.user["currency_code"], partial=True)
            if problems:
                raise Answer(400, problems)
        else:
            if extra := sorted(body.keys() - rules.PATCHABLE_WHEN_PUBLISHED):
                raise Answer(400, {key: ["Cannot be changed after publishing."] for key in extra})
            places = body.get("total_available_places")
            if places is not None and (not isinstance(places, int) or places < study["total_available_places"]):
                raise Answer(400, {"total_available_places": ["Places can only be increased after publishing."]})
        study.update(body)
        if study["status"] == "AWAITING REVIEW" and study["total_available_places"] > study["places_taken"]:
            study["status"] = "ACTIVE"
        return 200, dict(self._costed(study)), {}

    def r_study_delete(self, body, query, sid):
        study = self._study(sid)
        if study["status"] != "UNPUBLISHED":
            raise Answer(400, "Only a draft study can be deleted.")
        del self.studies[sid]
        return 204, None, {}

    def r_study_transition(self, body, query, sid):
        study = self._study(sid)
        action = self._need_object(body).get("action")
        allowed = {"PUBLISH": ({"UNPUBLISHED"}, "ACTIVE"), "PAUSE": ({"ACTIVE"}, "PAUSED"),
                   "START": ({"PAUSED"}, "ACTIVE"), "STOP": ({"ACTIVE", "PAUSED"}, "AWAITING REVIEW")}
        if action not in allowed:
            raise Answer(400, {"action": [f'"{action}" is not a valid choice.']})
        sources, target = allowed[action]
        if study["status"] not in sources:
            raise Answer(400, f"Cannot {action} a study whose status is {study['status']}.")
        if action == "PUBLISH":
            if self.user["available_balance"] < study["total_cost"]:
                raise Answer(400, "Insufficient balance to publish this study: top up your workspace.")
            self.user["available_balance"] -= study["total_cost"]
        study["status"] = target
        self.emit("study.status.change", sid, status=target, metadata=None)
        return 200, dict(study), {}

    # --- for assertions ----------------------------------------------------------------------

    def calls(self, method: str, pattern: str) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if r.method == method and re.fullmatch(pattern, r.path)]



@contextmanager
def fake_prolific_for(settings, *, site_url: str, token: bool = True, timeout: float = 2,
                      checked: bool = True) -> Iterator[FakeProlific]:
    """A fake Prolific started on a loopback port and the settings pointed at it (``token``: the
    deployment's token, else none: members store their own), the public address ``site_url``;
    stopped at the end, and (``checked``) every call it was sent served: a path it does not serve
    fails the test."""
    fake = FakeProlific().start()
    settings.PROLIFIC_API_URL = fake.url
    settings.PROLIFIC_API_TOKEN = fake.token if token else ""
    settings.PROLIFIC_API_TIMEOUT = timeout
    settings.PROLIFIC_API_RETRIES = 1
    settings.SITE_URL = site_url
    try:
        yield fake
    finally:
        fake.stop()
    if checked:
        assert not fake.unrouted, f"calls to paths the fake Prolific does not serve: {fake.unrouted}"

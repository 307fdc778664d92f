"""The one HTTP client of Prolific's researcher API (v1). No Django, no ORM: a token and a base URL in,
typed results and typed errors out.

- Every request has a time-out; a time-out or a refused connection is ``ProlificUnavailable``.
- Errors are typed: ``ProlificAuthError`` (401/403: a bad token), ``ProlificRateLimited`` (429, with
  Retry-After), ``ProlificServerError`` (5xx), ``ProlificRequestError`` (any other 4xx, with
  Prolific's message).
- Only safe calls are retried (reads, and operations Prolific documents as idempotent: transitions,
  bulk approval, a subscription's confirmation), on a time-out, a 429 or a 5xx, a few times with
  backoff. Creating a study, setting up or paying bonuses and creating hook secrets or subscriptions
  are never retried here: the caller reconciles (a study is found again by its ``internal_name``).
- Lists follow ``_links.next.href`` on the API's own host only, so the token never leaves for
  another address.
- Money is in minor units (pence, cents) everywhere, as Prolific's ``reward``; the bonus CSV, which
  Prolific reads in major units, is written here and only here.
- The token is never logged and never in a ``repr``.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from .prolific_answers import (
    BonusSetup,
    Filter,
    Message,
    ProlificAuthError,
    ProlificError,
    ProlificRateLimited,
    ProlificRequestError,
    ProlificServerError,
    ProlificUnavailable,
    Study,
    Submission,
    _error_for,
    _shown,
    major_units,
)

logger = logging.getLogger(__name__)

__all__ = [
    "BonusSetup",
    "Filter",
    "Message",
    "ProlificAuthError",
    "ProlificError",
    "ProlificRateLimited",
    "ProlificRequestError",
    "ProlificServerError",
    "ProlificUnavailable",
    "Study",
    "Submission",
    "major_units",
    "DEFAULT_BASE_URL",
    "DEVICES",
    "REJECTION_CATEGORIES",
    "REJECTION_MESSAGE_MIN",
    "ProlificClient",
]

DEFAULT_BASE_URL = "https://api.prolific.com/api/v1/"

STUDY_ACTIONS = ("PUBLISH", "PAUSE", "START", "STOP")
REJECTION_CATEGORIES = (
    "TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
    "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER",
)
REJECTION_MESSAGE_MIN = 100
DEVICES = ("desktop", "tablet", "mobile")
# How long a 429's Retry-After may be waited for in-process; longer, the error goes to the caller
# (a Celery task retries it later).
MAX_INLINE_WAIT = 10.0


# --- the client ------------------------------------------------------------------------------


class ProlificClient:
    """Prolific's API for one token. ``transport`` and ``sleep`` are for tests."""

    def __init__(
        self,
        token: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 15.0,
        retries: int = 2,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if not token:
            raise ValueError("a Prolific token is required")
        self.base_url = base_url.rstrip("/") + "/"
        self.retries = retries
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={
                "Authorization": f"Token {token}",
                "Accept": "application/json",
                "User-Agent": "Tessera (annotation platform)",
            },
            timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
            transport=transport,
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"<ProlificClient {self.base_url}>"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ProlificClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing ----------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        retry: bool,
        expect: Sequence[int] = (200,),
    ) -> httpx.Response:
        attempts = 1 + (self.retries if retry else 0)
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                response = self._http.request(method, path, json=json, params=params)
            except httpx.TimeoutException:
                if last:
                    raise ProlificUnavailable(f"Prolific did not answer in time ({method} {_shown(path)})") from None
                self._backoff(attempt)
                continue
            except httpx.TransportError as exc:
                if last:
                    raise ProlificUnavailable(
                        f"Prolific could not be reached ({method} {_shown(path)}): {type(exc).__name__}"
                    ) from None
                self._backoff(attempt)
                continue
            if response.status_code in expect:
                return response
            error = _error_for(response, method, path)
            retryable = isinstance(error, ProlificServerError) or (
                isinstance(error, ProlificRateLimited)
                and (error.retry_after is None or error.retry_after <= MAX_INLINE_WAIT)
            )
            if last or not retryable:
                raise error
            wait = error.retry_after if isinstance(error, ProlificRateLimited) else None
            self._backoff(attempt, wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _backoff(self, attempt: int, wait: float | None = None) -> None:
        if wait is None:
            wait = min(0.5 * 2 ** (attempt - 1), 4.0) * (1 + random.random() / 4)
        self._sleep(wait)

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        return self._request("GET", path, params=params, retry=True).json()

    def _paginate(self, path: str, params: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every result of a list endpoint, page by page, following ``_links.next.href``."""
        seen: set[str] = set()
        url: str | None = path
        page_params = params
        while url:
            body = self._request("GET", url, params=page_params, retry=True).json()
            if isinstance(body, list):  # a few endpoints answer a bare list
                yield from body
                return
            yield from body.get("results") or []
            nxt = ((body.get("_links") or {}).get("next") or {}).get("href")
            if not nxt:
                return
            url = self._same_origin(str(nxt))
            if url in seen:
                raise ProlificServerError(f"Prolific's pagination loops on {_shown(url)}")
            seen.add(url)
            page_params = None  # the next link carries its own query

    def _same_origin(self, href: str) -> str:
        absolute = urljoin(self.base_url, href)
        ours, theirs = urlsplit(self.base_url), urlsplit(absolute)
        if (ours.scheme, ours.netloc) != (theirs.scheme, theirs.netloc):
            raise ProlificServerError(
                "Prolific's next page points to another host; not followed (the token would go there)"
            )
        return absolute

    # --- account -----------------------------------------------------------------------------

    def me(self) -> dict[str, Any]:
        """The token's user: ``id``, ``email``, ``currency_code``, ``balance``…"""
        return self._get("users/me/")

    def workspaces(self) -> list[dict[str, Any]]:
        return list(self._paginate("workspaces/"))

    def projects(self, workspace_id: str) -> list[dict[str, Any]]:
        return list(self._paginate(f"workspaces/{workspace_id}/projects/"))

    # --- filters -----------------------------------------------------------------------------

    def filters(self, *, workspace_id: str | None = None) -> list[Filter]:
        params = {"workspace_id": workspace_id} if workspace_id else None
        return [Filter.parse(raw) for raw in self._paginate("filters/", params)]

    def eligibility_count(self, filters: list[dict[str, Any]], *, workspace_id: str | None = None) -> int:
        """How many participants pass every filter (Prolific answers 0 below 25, for privacy)."""
        body: dict[str, Any] = {"filters": filters}
        if workspace_id:
            body["workspace_id"] = workspace_id
        # a count changes nothing: safe to retry
        answer = self._request("POST", "eligibility-count/", json=body, retry=True).json()
        return int(answer.get("count") or 0)

    # --- studies -----------------------------------------------------------------------------

    def study_create(self, body: dict[str, Any]) -> Study:
        """A draft study (status UNPUBLISHED). Never retried: on ``ProlificUnavailable`` the study
        may exist; find it with ``studies()`` by its ``internal_name``."""
        return Study.parse(self._request("POST", "studies/", json=body, retry=False, expect=(200, 201)).json())

    def studies(self, *, unpublished_only: bool = False) -> Iterator[Study]:
        params = {"published": "0"} if unpublished_only else None
        for raw in self._paginate("studies/", params):
            yield Study.parse(raw)

    def study_get(self, study_id: str) -> Study:
        return Study.parse(self._get(f"studies/{study_id}/"))

    def study_update(self, study_id: str, fields: dict[str, Any]) -> Study:
        """PATCH a study (after publishing, only ``internal_name`` and more places). Setting fields
        to given values is idempotent, so it is retried."""
        return Study.parse(self._request("PATCH", f"studies/{study_id}/", json=fields, retry=True).json())

    def study_transition(self, study_id: str, action: str) -> Study:
        if action not in STUDY_ACTIONS:
            raise ValueError(f"unknown study action {action!r}")
        return Study.parse(
            self._request("POST", f"studies/{study_id}/transition/", json={"action": action}, retry=True).json()
        )

    # --- submissions -------------------------------------------------------------------------

    def submissions(self, study_id: str) -> Iterator[Submission]:
        for raw in self._paginate(f"studies/{study_id}/submissions/"):
            yield Submission.parse(raw)

    def submission_get(self, submission_id: str) -> Submission:
        return Submission.parse(self._get(f"submissions/{submission_id}/"))

    def submission_approve(self, submission_id: str) -> Submission:
        return self._submission_transition(submission_id, {"action": "APPROVE"})

    def submission_reject(self, submission_id: str, *, message: str, category: str) -> Submission:
        if category not in REJECTION_CATEGORIES:
            raise ValueError(f"unknown rejection category {category!r}")
        if len(message.strip()) < REJECTION_MESSAGE_MIN:
            raise ValueError(f"a rejection message needs at least {REJECTION_MESSAGE_MIN} characters")
        return self._submission_transition(
            submission_id, {"action": "REJECT", "message": message, "rejection_category": category}
        )

    def _submission_transition(self, submission_id: str, body: dict[str, Any]) -> Submission:
        # Prolific documents submission transitions as idempotent: a repeat is ignored
        return Submission.parse(
            self._request("POST", f"submissions/{submission_id}/transition/", json=body, retry=True).json()
        )

    def submission_request_return(self, submission_id: str, reasons: list[str]) -> dict[str, Any]:
        if not reasons:
            raise ValueError("a return request needs at least one reason")
        body = {"request_return_reasons": reasons}
        return self._request("POST", f"submissions/{submission_id}/request-return/", json=body, retry=True).json()

    def submissions_bulk_approve(self, submission_ids: list[str]) -> None:
        """Approved asynchronously by Prolific; approving an approved submission changes nothing."""
        if not submission_ids:
            return
        self._request(
            "POST", "submissions/bulk-approve/", json={"submission_ids": submission_ids}, retry=True, expect=(200, 202)
        )

    # --- bonuses -----------------------------------------------------------------------------

    def bonus_setup(self, study_id: str, amounts: list[tuple[str, int]]) -> BonusSetup:
        """Bonuses (submission or participant id, amount in minor units) set up, not yet paid:
        the answer says what they cost. Never retried (a second set-up is a second bonus)."""
        if not amounts:
            raise ValueError("no bonus to set up")
        csv = "\n".join(f"{who},{major_units(minor)}" for who, minor in amounts)
        body = {"study_id": study_id, "csv_bonuses": csv}
        return BonusSetup.parse(
            self._request("POST", "submissions/bonus-payments/", json=body, retry=False, expect=(200, 201)).json()
        )

    def bonus_pay(self, bonus_id: str) -> None:
        """Pay a set-up bonus (asynchronously, 202). Never retried here: the caller checks first."""
        self._request("POST", f"bulk-bonus-payments/{bonus_id}/pay/", retry=False, expect=(200, 202))

    # --- webhooks ----------------------------------------------------------------------------

    def hook_event_types(self) -> list[str]:
        return [
            str(e.get("event_type", e)) if isinstance(e, dict) else str(e)
            for e in self._paginate("hooks/event-types/")
        ]

    def hook_secrets(self, workspace_id: str) -> list[dict[str, Any]]:
        return list(self._paginate("hooks/secrets/", {"workspace_id": workspace_id}))

    def hook_secret_create(self, workspace_id: str) -> dict[str, Any]:
        """A new signing secret for the workspace (it replaces the old one): ``{id, value, workspace_id}``."""
        body = {"workspace_id": workspace_id}
        return self._request("POST", "hooks/secrets/", json=body, retry=False, expect=(200, 201)).json()

    def hook_subscriptions(self, workspace_id: str) -> list[dict[str, Any]]:
        return list(self._paginate("hooks/subscriptions/", {"workspace_id": workspace_id}))

    def hook_subscribe(self, workspace_id: str, event_type: str, target_url: str) -> tuple[dict[str, Any], str]:
        """A subscription and the ``X-Hook-Secret`` that confirms it (``hook_confirm``)."""
        body = {"workspace_id": workspace_id, "event_type": event_type, "target_url": target_url}
        response = self._request("POST", "hooks/subscriptions/", json=body, retry=False, expect=(200, 201))
        return response.json(), response.headers.get("X-Hook-Secret", "")

    def hook_confirm(self, subscription_id: str, secret: str) -> dict[str, Any]:
        return self._request(
            "POST", f"hooks/subscriptions/{subscription_id}/", json={"secret": secret}, retry=True
        ).json()

    # --- messages, screen-outs, secured entry, test participants (issue 28, part 2) ------------
    # Sources: docs.prolific.com/api-reference/messages/{send-message,bulk-message-participants,
    # get-messages,get-unread-messages}; the spec's BulkScreenOutRequest (``submission_ids``,
    # ``bonus_per_submission`` in major units, ``increase_places``); well-known-endpoints/get-study-jwks;
    # users/create-test-participant-for-researcher and studies/create-test-study.

    def message_send(self, *, recipient_id: str, study_id: str, body: str) -> None:
        """One message to a participant about a study (204). Never retried: a repeat is a second message."""
        payload = {"recipient_id": recipient_id, "study_id": study_id, "body": body}
        self._request("POST", "messages/", json=payload, retry=False, expect=(200, 201, 204))

    def messages_bulk_send(self, *, participant_ids: list[str], study_id: str, body: str) -> None:
        """One message to many participants of a study (``POST /messages/bulk/``, 204). Never retried."""
        if not participant_ids:
            raise ValueError("no participant to message")
        payload = {"ids": participant_ids, "study_id": study_id, "body": body}
        self._request("POST", "messages/bulk/", json=payload, retry=False, expect=(200, 201, 204))

    def messages(self, *, created_after: str | None = None, user_id: str | None = None) -> Iterator[Message]:
        """Messages received and sent, newest Prolific keeps (30 days), page by page. Prolific needs
        one of ``user_id`` (a conversation with one user) or ``created_after`` (ISO 8601)."""
        if not (created_after or user_id):
            raise ValueError("give created_after or user_id")
        params = {k: v for k, v in (("created_after", created_after), ("user_id", user_id)) if v}
        for raw in self._paginate("messages/", params):
            yield Message.parse(raw)

    def messages_unread(self) -> list[Message]:
        return [Message.parse(raw) for raw in self._paginate("messages/unread/")]

    def screen_out(self, study_id: str, submission_ids: list[str], *, reward: int,
                   increase_places: bool = False) -> dict[str, Any]:
        """Paid screen-out of active submissions (a workspace-restricted feature; the study must be
        created with ``is_custom_screening``). ``reward`` in minor units, sent as Prolific's
        ``bonus_per_submission`` in major units. Not retried here: the caller reads the submission
        back before trying again (a screened-out submission cannot be screened out twice)."""
        if not submission_ids:
            raise ValueError("no submission to screen out")
        body = {"submission_ids": submission_ids, "bonus_per_submission": float(major_units(reward)),
                "increase_places": increase_places}
        answer = self._request("POST", f"studies/{study_id}/screen-out-submissions/", json=body, retry=False,
                               expect=(200, 201, 202, 204))
        return answer.json() if answer.content else {}

    def study_jwks(self) -> dict[str, Any]:
        """Prolific's public keys for the secured study URL's tokens, at the API host's
        ``/.well-known/study/jwks.json`` (no token needed; sent anyway, to the same host only)."""
        origin = urlsplit(self.base_url)
        return self._get(f"{origin.scheme}://{origin.netloc}/.well-known/study/jwks.json")

    def test_participant_create(self, email: str) -> str:
        """A test participant account for this researcher (workspace-restricted beta): its id."""
        answer = self._request("POST", "researchers/participants/", json={"email": email}, retry=False,
                               expect=(200, 201)).json()
        return str(answer.get("participant_id") or answer.get("id") or "")

    def study_test_create(self, study_id: str) -> dict[str, Any]:
        """A test copy of a draft study, published to the workspace's test participants only:
        ``{study_id, study_url}``."""
        return self._request("POST", f"studies/{study_id}/test-study/", retry=False, expect=(200, 201)).json()

    # --- participant groups (rounds: invite back, exclude, block) ---------------------------------
    # GET/POST /participant-groups/, GET/POST/DELETE /participant-groups/{id}/participants/
    # [DOCS /api-reference/participant-groups/*; CLI client/client.go, model/participant_group.go]

    def participant_groups(self, workspace_id: str) -> list[dict[str, Any]]:
        """The workspace's participant groups: ``{id, name, workspace_id, participant_count, …}``."""
        return list(self._paginate("participant-groups/", {"workspace_id": workspace_id}))

    def participant_group_create(self, *, name: str, workspace_id: str, description: str = "") -> dict[str, Any]:
        """A new, empty group in the workspace (Prolific needs a workspace or an organisation). Never
        retried: a repeat is a second group; the caller looks for it by name first."""
        body: dict[str, Any] = {"name": name, "workspace_id": workspace_id}
        if description:
            body["description"] = description
        return self._request("POST", "participant-groups/", json=body, retry=False, expect=(200, 201)).json()

    def participant_group_members(self, group_id: str) -> list[str]:
        """The group's participant ids."""
        return [
            str(m.get("participant_id") or "") for m in self._paginate(f"participant-groups/{group_id}/participants/")
        ]

    def participant_group_add(self, group_id: str, participant_ids: list[str]) -> None:
        """Add members; Prolific ignores those already in, so a repeat is harmless (retried)."""
        if participant_ids:
            body = {"participant_ids": participant_ids}
            self._request("POST", f"participant-groups/{group_id}/participants/", json=body, retry=True)

    def participant_group_remove(self, group_id: str, participant_ids: list[str]) -> None:
        """Remove members (a repeat removes nothing more: retried)."""
        if participant_ids:
            body = {"participant_ids": participant_ids}
            self._request("DELETE", f"participant-groups/{group_id}/participants/", json=body, retry=True)

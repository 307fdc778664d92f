"""What Prolific's API answers, typed: the errors the client raises (read from an answer: its status,
its message, its Retry-After) and the results it returns (filters, studies, submissions, a bonus
set-up). ``recruitment.prolific``, the one HTTP module, uses these; no Django here either."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

# --- errors ----------------------------------------------------------------------------------


class ProlificError(Exception):
    """Something Prolific refused or could not answer. ``message`` is fit to show a researcher."""

    status: int | None = None

    def __init__(self, message: str, *, status: int | None = None, body: Any = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.body = body


class ProlificUnavailable(ProlificError):
    """No answer: a time-out or a refused connection. A create may or may not have happened."""


class ProlificAuthError(ProlificError):
    """401 or 403: the token is missing, wrong or revoked."""


class ProlificRateLimited(ProlificError):
    """429: too many requests (Prolific sends these under wallet contention). ``retry_after`` in seconds."""

    def __init__(self, message: str, *, retry_after: float | None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ProlificServerError(ProlificError):
    """5xx: Prolific's side failed."""


class ProlificRequestError(ProlificError):
    """Another 4xx (400, 404, 422…): the request was refused, with Prolific's reason."""


# --- typed results ---------------------------------------------------------------------------


# Prolific's filter kinds that are chosen by their choices' keys.
SELECT_KINDS = frozenset({"select"})


@dataclass(frozen=True)
class Filter:
    filter_id: str
    title: str
    type: str  # as Prolific names it: "select", "range"…
    choices: dict[str, str]  # choice key -> label (select filters)
    # Chosen by its choices' keys, as a launch sends the pool's: read once from Prolific's answer.
    selects_choices: bool = False

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Filter:
        kind = str(raw.get("type") or "")
        return cls(
            filter_id=str(raw["filter_id"]),
            title=str(raw.get("title") or ""),
            type=kind,
            choices={str(k): str(v) for k, v in (raw.get("choices") or {}).items()},
            selects_choices=kind in SELECT_KINDS,
        )


@dataclass(frozen=True)
class Study:
    id: str
    status: str
    internal_name: str
    total_available_places: int
    places_taken: int
    reward: int  # minor units
    total_cost: int | None  # minor units, as Prolific reports it
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Study:
        cost = raw.get("total_cost")
        return cls(
            id=str(raw["id"]),
            status=str(raw.get("status") or ""),
            internal_name=str(raw.get("internal_name") or ""),
            total_available_places=int(raw.get("total_available_places") or 0),
            places_taken=int(raw.get("places_taken") or 0),
            reward=int(raw.get("reward") or 0),
            total_cost=int(round(float(cost))) if cost is not None else None,
            raw=raw,
        )


@dataclass(frozen=True)
class Submission:
    id: str
    participant: str
    study_id: str
    status: str
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Submission:
        return cls(
            id=str(raw["id"]),
            # the list endpoint says participant_id, the element endpoint participant
            participant=str(raw.get("participant") or raw.get("participant_id") or ""),
            study_id=str(raw.get("study_id") or raw.get("study") or ""),
            # the list schema spells the time-out "TIME-OUT", the element one "TIMED-OUT"
            status="TIMED-OUT" if raw.get("status") == "TIME-OUT" else str(raw.get("status") or ""),
            raw=raw,
        )


@dataclass(frozen=True)
class BonusSetup:
    id: str
    amount: int  # minor units, what participants get
    fees: int
    vat: int
    total_amount: int

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> BonusSetup:
        def minor(key: str) -> int:
            return int(round(float(raw.get(key) or 0)))

        return cls(str(raw["id"]), minor("amount"), minor("fees"), minor("vat"), minor("total_amount"))


def major_units(minor: int) -> str:
    """``425`` as ``"4.25"``: the bonus CSV's amounts are in major units."""
    if minor < 0:
        raise ValueError("an amount cannot be negative")
    return f"{minor // 100}.{minor % 100:02d}"


def answer_time(value: Any) -> datetime | None:
    """A time as Prolific writes it (ISO 8601, ``Z`` for UTC), or None when absent or unreadable."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


# --- errors from answers ---------------------------------------------------------------------


def _shown(path: str) -> str:
    """A path for a message, without its query."""
    return path.split("?", 1)[0]


def _error_for(response: httpx.Response, method: str, path: str) -> ProlificError:
    status = response.status_code
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text[:500]
    reason = _reason(body) or response.reason_phrase or "no reason given"
    where = f"{method} {_shown(path)}"
    if status in (401, 403):
        return ProlificAuthError(
            f"Prolific refused the token ({status}: {reason}). Check the token in your Prolific settings.",
            status=status, body=body,
        )
    if status == 429:
        retry_after = _retry_after(response.headers.get("Retry-After"))
        wait = f"; retry after {retry_after:g} s" if retry_after is not None else ""
        return ProlificRateLimited(
            f"Prolific is busy (429 on {where}{wait}): {reason}", retry_after=retry_after, status=status, body=body
        )
    if status >= 500:
        return ProlificServerError(f"Prolific failed ({status} on {where}): {reason}", status=status, body=body)
    return ProlificRequestError(f"Prolific refused {where} ({status}): {reason}", status=status, body=body)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: treated as unknown, backoff applies


def _reason(body: Any) -> str:
    """Prolific's message out of its three error shapes: ``{"error": {title, detail}}``, the inner
    object alone, or ``{"message", "detail"}``; ``detail`` a string, a list or ``{field: [msgs]}``."""
    if not isinstance(body, dict):
        return str(body or "")[:500]
    error = body.get("error")
    inner: dict[str, Any] = error if isinstance(error, dict) else body
    detail = inner.get("detail")
    parts: list[str] = []
    title = inner.get("title") or inner.get("message")
    if isinstance(detail, dict):
        parts += [f"{key}: {_flat(value)}" for key, value in detail.items()]
    elif detail:
        parts.append(_flat(detail))
    if not parts and title:
        parts.append(str(title))
    return "; ".join(parts)[:1000]


def _flat(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(_flat(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_flat(v)}" for k, v in value.items())
    return str(value)


# --- messages, screen-outs, test participants (issue 28, part 2) -------------------------------


@dataclass(frozen=True)
class Message:
    """A message from ``GET /messages/`` (``results[{id, sender_id, body, datetime_created,
    channel_id, data{study_id, category}}]``; older answers say ``sent_at`` and ``sender``)."""

    id: str
    sender_id: str
    body: str
    sent_at: datetime | None
    channel_id: str
    study_id: str
    category: str
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Message:
        data = raw.get("data") or {}
        return cls(
            id=str(raw.get("id") or ""),
            sender_id=str(raw.get("sender_id") or raw.get("sender") or ""),
            body=str(raw.get("body") or ""),
            sent_at=answer_time(raw.get("datetime_created") or raw.get("sent_at")),
            channel_id=str(raw.get("channel_id") or ""),
            study_id=str(data.get("study_id") or "") if isinstance(data, dict) else "",
            category=str(data.get("category") or "") if isinstance(data, dict) else "",
            raw=raw,
        )

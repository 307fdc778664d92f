"""Recruitment's arithmetic and address rules: plain functions over plain data, no ORM, no HTTP."""

from __future__ import annotations

import ipaddress
import math
import re
from urllib.parse import urlsplit

# Prolific's minimum reward per hour, in minor units of the currency it pays in
# (researcher help: "the minimum pay allowed is £6.00 / $8.00 per hour").
MIN_HOURLY_REWARD = {"GBP": 600, "USD": 800}
# Prolific's least fixed screen-out reward, minor units (its BulkScreenOutRequest: "Minimum £0.10 or $0.14").
MIN_SCREEN_OUT_REWARD = {"GBP": 10, "USD": 14}
CURRENCY_SIGNS = {"GBP": "£", "USD": "$"}


class RuleBroken(ValueError):
    """A launch that a rule of ours refuses; the message says which rule and the figures."""


# --- completion codes ------------------------------------------------------------------------

# Prolific's predefined code types and the actions a code may carry (its API reference).
CODE_TYPES = frozenset({
    "COMPLETED", "FAILED_ATTENTION_CHECK", "FOLLOW_UP_STUDY", "GIVE_BONUS", "INCOMPATIBLE_DEVICE", "NO_CONSENT",
    "OTHER",
})
CODE_ACTIONS = frozenset({
    "AUTOMATICALLY_APPROVE", "MANUALLY_REVIEW", "ADD_TO_PARTICIPANT_GROUP", "REMOVE_FROM_PARTICIPANT_GROUP",
    "REQUEST_RETURN", "DYNAMIC_PAYMENT",
})
# What Prolific asks each kind of code to do: a completion is approved or reviewed, a failed
# attention check is reviewed (a rejection is the researcher's act, never automatic), no consent
# and an incompatible device are asked to return.
CODE_TYPE_ACTIONS = {
    "COMPLETED": frozenset({"AUTOMATICALLY_APPROVE", "MANUALLY_REVIEW"}),
    "FAILED_ATTENTION_CHECK": frozenset({"MANUALLY_REVIEW"}),
    "NO_CONSENT": frozenset({"REQUEST_RETURN"}),
    "INCOMPATIBLE_DEVICE": frozenset({"REQUEST_RETURN"}),
}


def completion_code_problems(codes: list[dict]) -> list[str]:
    """Each way ``codes`` (a study's ``completion_codes``) breaks one of Prolific's rules."""
    problems = []
    seen: set[str] = set()
    for entry in codes:
        code, kind = str(entry.get("code") or ""), entry.get("code_type")
        actions = [a.get("action") for a in entry.get("actions", [])]
        if code in seen:
            problems.append(f"the code {code!r} is used twice")
        seen.add(code)
        if kind not in CODE_TYPES:
            problems.append(f"{code}: {kind!r} is not one of Prolific's code types")
        if unknown := [a for a in actions if a not in CODE_ACTIONS]:
            problems.append(f"{code}: unknown action(s) {', '.join(map(str, unknown))}")
        allowed = CODE_TYPE_ACTIONS.get(str(kind))
        if allowed is not None and (len(actions) != 1 or actions[0] not in allowed):
            problems.append(f"{code}: a {kind} code must {' or '.join(sorted(allowed))}, not {actions}")
        if {"AUTOMATICALLY_APPROVE", "MANUALLY_REVIEW"} <= set(actions):
            problems.append(f"{code}: approving automatically and reviewing exclude each other")
        for action in entry.get("actions", []):
            if action.get("action") == "REQUEST_RETURN" and not str(action.get("return_reason") or "").strip():
                problems.append(f"{code}: a request to return needs its reason")
    return problems


def money(minor: int, currency: str) -> str:
    """``625, "GBP"`` as ``"£6.25"``."""
    sign = CURRENCY_SIGNS.get(currency, "")
    text = f"{minor // 100}.{minor % 100:02d}"
    return f"{sign}{text}" if sign else f"{text} {currency}"


def places_for(*, open_slots: int, session_size: int) -> int:
    """Participants needed to fill ``open_slots`` annotations when each takes one session."""
    if session_size < 1:
        raise ValueError("a session has at least one item")
    return max(0, math.ceil(open_slots / session_size))


def minimum_reward(*, minutes: int, currency: str) -> int:
    """The smallest reward (minor units) Prolific allows for a study of ``minutes``."""
    try:
        hourly = MIN_HOURLY_REWARD[currency]
    except KeyError:
        raise RuleBroken(f"no known Prolific minimum rate for the currency {currency!r} (GBP or USD)") from None
    return math.ceil(hourly * minutes / 60)


def reward_check(*, reward: int, minutes: int, currency: str) -> None:
    """Refuse a reward under Prolific's minimum hourly rate, with the figures."""
    if minutes < 1:
        raise RuleBroken("the estimated completion time must be at least 1 minute")
    if reward < 1:
        raise RuleBroken("the reward must be at least 1 (minor unit)")
    least = minimum_reward(minutes=minutes, currency=currency)
    if reward < least:
        hourly = reward * 60 / minutes
        raise RuleBroken(
            f"a reward of {money(reward, currency)} for {minutes} minutes is "
            f"{money(round(hourly), currency)} per hour, "
            f"under Prolific's minimum of {money(MIN_HOURLY_REWARD[currency], currency)} per hour: "
            f"pay at least {money(least, currency)}"
        )


def least_maximum_minutes(estimated: int) -> int:
    """The smallest ``maximum_allowed_time`` sure to be accepted for an estimate: Prolific's
    reference gives 2 + 2·est + 2·√est (an older page 2 + est + 2·√est); the larger is taken."""
    return math.ceil(2 + 2 * estimated + 2 * math.sqrt(estimated))


def is_loopback_url(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def site_url_problem(*, site_url: str, api_url: str) -> str | None:
    """Why participants may not be sent to ``site_url``, or None: Prolific sends them to an https
    address only, except in a trial against a Prolific on a loopback address (the tests' fake)."""
    parts = urlsplit(site_url)
    if not parts.hostname:
        return f"SITE_URL ({site_url!r}) is not an address: set it to the site's public https address"
    if parts.scheme == "https" or is_loopback_url(api_url):
        return None
    return (
        f"SITE_URL is {site_url}, but Prolific sends participants only to an https address: set SITE_URL to "
        "the site's public https address (e.g. https://tessera.example.org) before launching"
    )


# --- bonuses ---------------------------------------------------------------------------------

BONUS_LINE_MAX = 1000
_AMOUNT = re.compile(r"^\d{1,6}(?:\.\d{1,2})?$")
_PROLIFIC_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")


def bonus_lines(text: str) -> list[tuple[str, int]]:
    """A pasted list of bonuses, one ``<submission or participant id>,<amount>`` a line (a comma,
    a tab or spaces between; amounts in major units, ``4.25`` = £4.25, as Prolific's own CSV), as
    (id, minor units). Raises ``RuleBroken`` naming the first bad line; an id given twice is refused
    (the same person would be paid twice)."""
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        parts = [p for p in re.split(r"[,\t; ]+", line) if p]
        if len(parts) != 2:
            raise RuleBroken(f"line {number}: write an id and an amount, e.g. '5f3e…,1.50' (got {line!r})")
        who, amount = parts
        if not out and not seen and not _AMOUNT.match(amount) and re.search(r"[A-Za-z]", amount):
            continue  # a spreadsheet's header line ("participant,amount")
        if not _PROLIFIC_ID.match(who):
            raise RuleBroken(f"line {number}: {who!r} is not a Prolific id")
        if not _AMOUNT.match(amount):
            raise RuleBroken(f"line {number}: {amount!r} is not an amount like 1.50 (two decimals at most)")
        whole, _, cents = amount.partition(".")
        minor = int(whole) * 100 + int((cents + "00")[:2])
        if minor <= 0:
            raise RuleBroken(f"line {number}: a bonus must be more than 0")
        if who in seen:
            raise RuleBroken(f"line {number}: {who} is listed twice")
        seen.add(who)
        out.append((who, minor))
    if not out:
        raise RuleBroken("no bonus given: one line per participant, '<id>,<amount>'")
    if len(out) > BONUS_LINE_MAX:
        raise RuleBroken(f"at most {BONUS_LINE_MAX} bonuses at once (got {len(out)}); split the list")
    return out


def screen_out_reward_check(*, reward: int, currency: str) -> None:
    """Refuse a screen-out reward under Prolific's minimum (issue 28, part 2), with the figures."""
    least = MIN_SCREEN_OUT_REWARD.get(currency)
    if least is None:
        raise RuleBroken(
            f"Prolific's minimum screen-out reward is known for GBP and USD only, not {currency or 'no currency'}"
        )
    if reward < least:
        raise RuleBroken(
            f"a screen-out reward of {money(reward, currency)} is under Prolific's minimum of {money(least, currency)}"
        )

"""Recruitment's arithmetic and address rules: plain functions over plain data, no ORM, no HTTP."""

from __future__ import annotations

import ipaddress
import math
from urllib.parse import urlsplit

# Prolific's minimum reward per hour, in minor units of the currency it pays in
# (researcher help: "the minimum pay allowed is £6.00 / $8.00 per hour").
MIN_HOURLY_REWARD = {"GBP": 600, "USD": 800}
CURRENCY_SIGNS = {"GBP": "£", "USD": "$"}


class RuleBroken(ValueError):
    """A launch that a rule of ours refuses; the message says which rule and the figures."""


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

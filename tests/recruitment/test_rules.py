"""recruitment/rules.py: places, Prolific's minimum rate, the maximum time, the SITE_URL rule, bonus lines (pure)."""

import pytest

from recruitment.rules import (
    RuleBroken,
    bonus_lines,
    is_loopback_url,
    least_maximum_minutes,
    minimum_reward,
    money,
    places_for,
    reward_check,
    site_url_problem,
)


def test_places_are_whole_sessions():
    assert [places_for(open_slots=n, session_size=5) for n in (0, 1, 5, 6, 10, 11)] == [0, 1, 1, 2, 2, 3]
    with pytest.raises(ValueError):
        places_for(open_slots=3, session_size=0)


def test_money():
    assert (money(600, "GBP"), money(5, "USD"), money(1234, "EUR")) == ("£6.00", "$0.05", "12.34 EUR")


def test_the_minimum_reward_rounds_up():
    assert minimum_reward(minutes=10, currency="GBP") == 100
    assert minimum_reward(minutes=7, currency="GBP") == 70
    assert minimum_reward(minutes=10, currency="USD") == 134  # 133.3 rounded up
    with pytest.raises(RuleBroken, match="EUR"):
        minimum_reward(minutes=10, currency="EUR")


def test_the_reward_check_shows_the_figures():
    reward_check(reward=100, minutes=10, currency="GBP")
    figures = r"£0.99 for 10 minutes is £5.94 per hour, under Prolific's minimum of £6.00 per hour: pay at least £1.00"
    with pytest.raises(RuleBroken, match=figures):
        reward_check(reward=99, minutes=10, currency="GBP")
    with pytest.raises(RuleBroken, match="at least 1 minute"):
        reward_check(reward=100, minutes=0, currency="GBP")


def test_the_least_maximum_time():
    assert [least_maximum_minutes(n) for n in (1, 10, 30)] == [6, 29, 73]


@pytest.mark.parametrize(
    ("url", "loopback"),
    [("http://127.0.0.1:8000/api/v1/", True), ("http://[::1]:1/", True), ("http://localhost/", True),
     ("http://127.9.9.9/", True), ("https://api.prolific.com/api/v1/", False), ("http://10.0.0.1/", False)],
)
def test_loopback(url, loopback):
    assert is_loopback_url(url) is loopback


def test_the_site_url_rule():
    real = "https://api.prolific.com/api/v1/"
    assert site_url_problem(site_url="https://tessera.example.org", api_url=real) is None
    plain = site_url_problem(site_url="http://tessera.example.org", api_url=real)
    assert "SITE_URL is http://tessera.example.org" in plain
    assert site_url_problem(site_url="http://127.0.0.1:8000", api_url="http://127.0.0.1:5555/api/v1/") is None
    assert "not an address" in site_url_problem(site_url="tessera", api_url=real)


def test_bonus_lines_in_minor_units():
    text = "participant_id,amount\n5f3e0c1a2b,1.5\n\n60a7d9e4c3\t2\nabc123; 0.05\n"
    assert bonus_lines(text) == [("5f3e0c1a2b", 150), ("60a7d9e4c3", 200), ("abc123", 5)]


@pytest.mark.parametrize("text, error", [
    ("", "no bonus given"),
    ("abc,1.00,2", "write an id and an amount"),
    ("abc,1.001", "two decimals at most"),
    ("abc,-1", "not an amount"),
    ("abc,0.00", "more than 0"),
    ("abc,1\nabc,2", "line 2: abc is listed twice"),
    ("ab-c,1", "not a Prolific id"),
])
def test_bonus_lines_refused(text, error):
    with pytest.raises(RuleBroken, match=error):
        bonus_lines(text)

"""Login rate limiting (django-axes) on /login/ and /admin/login/: per account, per address, with
its page, its expiry and its unlock; the suite's own logins never counted."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.db.models import F
from django.test import override_settings
from django.urls import reverse

from config.lockout import client_ip

PASSWORD = "pass-for-tests-1"  # tests.factories.make_researcher's
LIMIT = 5
lockout_on = override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=LIMIT, AXES_COOLOFF_TIME=timedelta(minutes=15))


def attempt(client, username, password, *, url="login", ip="10.0.0.1"):
    return client.post(reverse(url), {"username": username, "password": password}, REMOTE_ADDR=ip)


def logged_in(response) -> bool:
    return response.status_code == 302


@pytest.mark.parametrize("url", ["login", "admin:login"])
@lockout_on
def test_it_refuses_the_right_password_after_too_many_wrong_ones(client, owner, url):
    statuses = [attempt(client, "owner", "wrong", url=url).status_code for _ in range(LIMIT)]
    assert statuses == [200] * (LIMIT - 1) + [429], "the limit-th failure locks"

    response = attempt(client, "owner", PASSWORD, url=url)

    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many failed logins" in page
    assert "Wait 15 minutes" in page and "Ask the operator" in page
    assert "_auth_user_id" not in client.session


@lockout_on
def test_the_lockout_holds_an_account_from_another_address(client, owner):
    for _ in range(LIMIT):
        attempt(client, "owner", "wrong", ip="10.0.0.1")

    assert attempt(client, "owner", PASSWORD, ip="10.0.0.2").status_code == 429


@lockout_on
def test_the_lockout_holds_an_address_trying_many_accounts(client, owner, other_researcher):
    for n in range(LIMIT):
        attempt(client, f"guess-{n}", "wrong", ip="10.0.0.1")

    assert attempt(client, "owner", PASSWORD, ip="10.0.0.1").status_code == 429
    assert logged_in(attempt(client, "other", PASSWORD, ip="10.0.0.9")), "another address is not locked"


@lockout_on
def test_fewer_failures_than_the_limit_then_success_resets_the_count(client, owner):
    for _ in range(LIMIT - 1):
        attempt(client, "owner", "wrong")
    assert logged_in(attempt(client, "owner", PASSWORD))
    client.logout()

    for _ in range(LIMIT - 1):
        attempt(client, "owner", "wrong")
    assert logged_in(attempt(client, "owner", PASSWORD))


@lockout_on
def test_a_success_on_ones_own_account_does_not_lift_the_address_lockout(client, owner, other_researcher):
    """An attacker who holds one valid account ("owner") guesses others from one address; logging in
    to their own account in between must not give the address its guesses back."""
    for n in range(LIMIT - 1):
        attempt(client, f"guess-{n}", "wrong", ip="10.0.0.1")
    assert logged_in(attempt(client, "owner", PASSWORD, ip="10.0.0.1"))
    client.logout()

    assert attempt(client, "guess-x", "wrong", ip="10.0.0.1").status_code == 429, "the address's failures kept"
    assert attempt(client, "other", PASSWORD, ip="10.0.0.1").status_code == 429
    assert logged_in(attempt(client, "other", PASSWORD, ip="10.0.0.9")), "another address is not locked"


@lockout_on
def test_a_success_forgives_its_own_mistakes_not_the_guesses_at_its_account_from_elsewhere(client, owner):
    for _ in range(LIMIT - 2):
        attempt(client, "owner", "wrong", ip="10.0.0.9")  # someone else guessing the owner's password
    attempt(client, "owner", "wrong", ip="10.0.0.1")  # the owner mistypes, then logs in
    assert logged_in(attempt(client, "owner", PASSWORD, ip="10.0.0.1"))
    client.logout()
    assert not AccessAttempt.objects.filter(username="owner", ip_address="10.0.0.1").exists()

    statuses = [attempt(client, "owner", "wrong", ip="10.0.0.9").status_code for _ in range(2)]

    assert statuses == [200, 429], "the guesses from elsewhere still count towards the account's lockout"


@lockout_on
def test_the_lockout_expires_after_the_cool_off(client, owner):
    for _ in range(LIMIT):
        attempt(client, "owner", "wrong")
    assert attempt(client, "owner", PASSWORD).status_code == 429

    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=16))

    assert logged_in(attempt(client, "owner", PASSWORD))


@lockout_on
def test_an_operator_unlocks_an_account(client, owner):
    for _ in range(LIMIT):
        attempt(client, "owner", "wrong")

    call_command("axes_reset_username", "owner", stdout=None)

    assert logged_in(attempt(client, "owner", PASSWORD, ip="10.0.0.2"))


def test_the_suites_own_logins_are_never_counted(client, owner):
    for _ in range(LIMIT + 2):
        attempt(client, "owner", "wrong")

    assert client.login(username="owner", password=PASSWORD)
    assert logged_in(attempt(client, "owner", PASSWORD))
    assert not AccessAttempt.objects.exists()


@lockout_on
def test_force_login_and_login_work_with_the_lockout_on(client, owner):
    client.force_login(owner)
    assert client.get(reverse("studies:study-list")).status_code == 200


class FakeRequest:
    def __init__(self, remote, forwarded=None):
        self.META = {"REMOTE_ADDR": remote}
        if forwarded is not None:
            self.META["HTTP_X_FORWARDED_FOR"] = forwarded


@pytest.mark.parametrize(("proxies", "remote", "forwarded", "expected"), [
    (0, "203.0.113.5", "1.2.3.4", "203.0.113.5"),  # no proxy: the header is the client's own words
    (1, "10.0.0.1", "1.2.3.4, 198.51.100.7", "198.51.100.7"),  # the proxy appended what it saw
    (2, "10.0.0.1", "1.2.3.4, 198.51.100.7, 10.0.0.2", "198.51.100.7"),
    (1, "10.0.0.1", None, "10.0.0.1"),  # the proxy set nothing: its own address, never a guess
])
def test_the_client_address_trusts_only_the_configured_proxies(settings, proxies, remote, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    assert client_ip(FakeRequest(remote, forwarded)) == expected

"""The Prolific settings page (/prolific/settings/): a researcher sets, replaces and removes their
own token; it is checked with Prolific, never rendered back, and nobody reaches another's."""

import pytest
from django.test import Client
from django.views.debug import SafeExceptionReporterFilter

from recruitment.models import ProlificToken
from recruitment.tokens import token_for, token_set

from .. import factories as f

PAGE = "/prolific/settings/"
SAVE = "/prolific/settings/token/"
REMOVE = "/prolific/settings/token/remove/"


def logged_in(user) -> Client:
    client = Client()
    client.login(username=user.username, password=f.PASSWORD)
    return client


def test_it_needs_a_login(db):
    for response in (Client().get(PAGE), Client().post(SAVE, {"token": "x" * 30}), Client().post(REMOVE)):
        assert response.status_code == 302 and response.url.startswith("/login/")


def test_the_page_says_there_is_no_token(settings, owner):
    settings.PROLIFIC_API_TOKEN = ""
    response = logged_in(owner).get(PAGE)
    assert response.status_code == 200
    assert b"No Prolific token" in response.content and b'type="password"' in response.content


def test_the_page_mentions_the_deployment_s_token(settings, owner):
    settings.PROLIFIC_API_TOKEN = "deployment-token-0123456789"
    response = logged_in(owner).get(PAGE)
    assert b"shared Prolific token" in response.content and b"deployment-token" not in response.content


def test_a_token_prolific_accepts_is_stored_and_never_shown(fake_prolific, owner):
    client = logged_in(owner)
    response = client.post(SAVE, {"token": fake_prolific.token})
    assert response.status_code == 302 and response.url == PAGE
    assert token_for(user=owner) == fake_prolific.token
    assert fake_prolific.calls("GET", "users/me/")[0].authorization == f"Token {fake_prolific.token}"
    page = client.get(PAGE)
    assert b"A token of yours is stored" in page.content and b"Replace the token" in page.content
    assert fake_prolific.token.encode() not in page.content
    assert ProlificToken.objects.get(user=owner).ciphertext.encode() not in page.content


def test_a_token_prolific_refuses_is_not_stored(fake_prolific, owner):
    wrong = "a-revoked-token-0123456789abcdef"
    response = logged_in(owner).post(SAVE, {"token": wrong})
    assert response.status_code == 400 and b"Prolific refused this token" in response.content
    assert wrong.encode() not in response.content  # not even re-filled into the field
    assert not ProlificToken.objects.exists()


def test_a_malformed_token_is_refused_before_asking_prolific(fake_prolific, owner):
    response = logged_in(owner).post(SAVE, {"token": "has spaces in it and is short"})
    assert response.status_code == 400 and b"does not look like a Prolific API token" in response.content
    assert fake_prolific.requests == [] and not ProlificToken.objects.exists()


def test_with_prolific_unreachable_it_is_stored_with_a_warning(settings, owner, closed_port):
    settings.PROLIFIC_API_URL = f"http://127.0.0.1:{closed_port}/api/v1/"
    settings.PROLIFIC_API_RETRIES = 0
    response = logged_in(owner).post(SAVE, {"token": "unchecked-token-0123456789abcdef"}, follow=True)
    assert b"could not be reached to check it" in response.content
    assert token_for(user=owner) == "unchecked-token-0123456789abcdef"


def test_the_form_needs_its_csrf_token(fake_prolific, owner):
    client = Client(enforce_csrf_checks=True)
    client.login(username=owner.username, password=f.PASSWORD)
    assert client.post(SAVE, {"token": fake_prolific.token}).status_code == 403
    assert client.post(REMOVE).status_code == 403
    assert not ProlificToken.objects.exists()


def test_saving_and_removing_are_posts(owner):
    client = logged_in(owner)
    assert client.get(SAVE).status_code == 405 and client.get(REMOVE).status_code == 405
    assert client.post(PAGE).status_code == 405


def test_remove(owner):
    token_set(user=owner, token="owner-token-0123456789abcdef")
    client = logged_in(owner)
    response = client.post(REMOVE, follow=True)
    assert b"Your Prolific token is removed" in response.content and not ProlificToken.objects.exists()
    assert b"You had no Prolific token stored" in client.post(REMOVE, follow=True).content


@pytest.mark.parametrize("action", ["replace", "remove"])
def test_another_researcher_neither_sees_nor_touches_the_owner_s_token(fake_prolific, owner, other_researcher, action):
    token_set(user=owner, token="owner-token-0123456789abcdef")
    before = ProlificToken.objects.get(user=owner).ciphertext
    client = logged_in(other_researcher)
    page = client.get(PAGE)
    assert b"A token of yours is stored" not in page.content and b"owner-token" not in page.content
    if action == "replace":
        client.post(SAVE, {"token": fake_prolific.token})
        assert token_for(user=other_researcher) == fake_prolific.token
    else:
        client.post(REMOVE)
    assert ProlificToken.objects.get(user=owner).ciphertext == before
    assert token_for(user=owner) == "owner-token-0123456789abcdef"


def test_an_error_report_would_hide_the_posted_token(fake_prolific, owner):
    response = logged_in(owner).post(SAVE, {"token": fake_prolific.token})
    shown = SafeExceptionReporterFilter().get_post_parameters(response.wsgi_request)
    assert shown["token"] != fake_prolific.token and set(shown["token"]) == {"*"}

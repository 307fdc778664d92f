"""Personal API tokens: made (shown once, stored hashed), revoked, and checked on each request."""

import hashlib
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from api.models import ApiToken
from api.tokens import TokenInvalid, TokenRefused, api_token_authenticate, api_token_create, api_token_revoke
from tests import factories as f

STUDIES = "/api/v1/studies/"


def test_a_token_is_shown_once_and_only_its_hash_is_stored(owner):
    token, plain = api_token_create(user=owner, name="notebook")
    assert plain.startswith(f"tsr_{token.prefix}_") and len(plain) > 40
    secret = plain.split("_", 2)[2]
    row = ApiToken.objects.get(pk=token.pk)
    assert row.secret_hash == hashlib.sha256(secret.encode()).hexdigest()
    stored = [str(v) for v in ApiToken.objects.filter(pk=token.pk).values().get().values()]
    assert not any(secret in v for v in stored)
    assert api_token_authenticate(plain).pk == token.pk


def test_it_refuses_a_token_without_a_name_an_annotator_like_account_and_an_inactive_one(owner, checker):
    with pytest.raises(TokenRefused) as unnamed:
        api_token_create(user=owner, name="  ")
    assert unnamed.value.field == "name"
    with pytest.raises(TokenRefused, match="for researchers"):
        api_token_create(user=checker, name="x")
    owner.is_active = False
    owner.save()
    with pytest.raises(TokenRefused, match="inactive"):
        api_token_create(user=owner, name="x")
    assert not ApiToken.objects.exists()


def test_a_member_who_is_not_staff_may_hold_a_token(study):
    member = f.make_invited_member(study, "invited", "viewer")
    assert api_token_create(user=member, name="x")[0].user == member


@pytest.mark.parametrize("raw", ["", "tsr_", "tsr_abcd", "tsr_abcdefgh", "tsr_abcdefgh_", "nope_abcdefgh_xyz",
                                 "tsr_abc/efgh_secret"])
def test_a_malformed_token_does_not_authenticate(db, raw):
    with pytest.raises(TokenInvalid, match="Malformed"):
        api_token_authenticate(raw)


def test_an_unknown_or_altered_token_does_not_authenticate(owner):
    _, plain = api_token_create(user=owner, name="x")
    with pytest.raises(TokenInvalid, match="Unknown"):
        api_token_authenticate(plain[:-1] + ("A" if plain[-1] != "A" else "B"))
    with pytest.raises(TokenInvalid, match="Unknown"):
        api_token_authenticate("tsr_00000000_" + plain.split("_", 2)[2])


def test_a_revoked_token_is_refused_and_revoking_twice_changes_nothing(owner, other_researcher):
    token, plain = api_token_create(user=owner, name="x")
    assert not api_token_revoke(user=other_researcher, prefix=token.prefix)  # not theirs
    assert api_token_revoke(user=owner, prefix=token.prefix)
    revoked_at = ApiToken.objects.get(pk=token.pk).revoked_at
    assert not api_token_revoke(user=owner, prefix=token.prefix)
    assert ApiToken.objects.get(pk=token.pk).revoked_at == revoked_at
    with pytest.raises(TokenInvalid, match="revoked"):
        api_token_authenticate(plain)


def test_last_use_is_written_at_most_once_a_minute(owner, django_assert_num_queries):
    token, plain = api_token_create(user=owner, name="x")
    with django_assert_num_queries(2):  # the read, the first use written
        api_token_authenticate(plain)
    with django_assert_num_queries(1):  # the read only
        api_token_authenticate(plain)
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=first - timedelta(minutes=2))
    api_token_authenticate(plain)
    assert ApiToken.objects.get(pk=token.pk).last_used_at >= first


@pytest.mark.parametrize("header, says", [
    ("Bearer tsr_00000000_unknownsecretunknownsecret", "Unknown API token"),
    ("Bearer garbage", "Malformed API token"),
    ("Bearer", "one token"),
    ("Bearer a b", "one token"),
])
def test_the_api_answers_401_with_the_reason(owner, anonymous, header, says):
    response = anonymous.get(STUDIES, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401 and says in response.json()["detail"]
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_revoked_token_gets_401_and_no_login_gets_401(owner, as_user, anonymous):
    client = as_user(owner)
    assert client.get(STUDIES).status_code == 200
    api_token_revoke(user=owner, prefix=client.token.prefix)
    response = client.get(STUDIES)
    assert response.status_code == 401 and "revoked" in response.json()["detail"]
    assert anonymous.get(STUDIES).status_code == 401


def test_a_deactivated_account_s_token_gets_401(owner, as_user):
    client = as_user(owner)
    get_user_model().objects.filter(pk=owner.pk).update(is_active=False)
    response = client.get(STUDIES)
    assert response.status_code == 401 and "inactive" in response.json()["detail"]


def test_a_token_of_an_account_that_is_no_researcher_any_more_gets_403(study, as_user):
    member = f.make_invited_member(study, "invited", "viewer")
    client = as_user(member)
    assert client.get(STUDIES).status_code == 200
    study.members.all().delete()
    response = client.get(STUDIES)
    assert response.status_code == 403 and "for researchers" in response.json()["detail"]


def test_the_session_works_for_the_browser_with_csrf_enforced(owner):
    from rest_framework.test import APIClient

    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(owner)
    assert browser.get(STUDIES).status_code == 200
    refused = browser.post(STUDIES, {"preset": "caire-relevance"}, format="json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]


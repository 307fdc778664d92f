"""Prolific's secured study URL: the entry link's signed token (RS256, keys from the fake's
/.well-known/study/jwks.json, made in the test) is checked; expired, wrong-audience, badly signed or
missing tokens are refused with the entry problems page; Prolific's keys are fetched once and cached."""

import json
import time

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from recruitment.models import ProlificStudy, ProlificSubmission
from recruitment.services import LaunchOptions, prolific_study_launch, prolific_study_transition
from tests.factories import entry_url

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
JWKS = r"/.well-known/study/jwks.json"


def keypair(kid):
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    return private, {**public, "kid": kid, "use": "sig", "alg": "RS256"}


@pytest.fixture
def keys(fake_prolific):
    private, public = keypair("k1")
    fake_prolific.jwks = {"keys": [public]}
    return private


@pytest.fixture
def secured(fake_prolific, owner, pool, items):
    options = LaunchOptions(reward=150, estimated_minutes=10, secured_entry=True)
    row = prolific_study_launch(pool=pool, user=owner, options=options).prolific_study
    prolific_study_transition(prolific_study=row, verb="publish", user=owner)
    row.refresh_from_db()
    return row, fake_prolific.submission_start(row.prolific_id, PID)


def token(private, row, sub_id, *, kid="k1", exp=None, aud=None, pid=PID, **extra):
    claims = {"exp": exp or int(time.time()) + 600, "aud": aud or row.prolific_id,
              "prolific": {"participant_id": pid, "study_id": row.prolific_id, "submission_id": sub_id}, **extra}
    return jwt.encode(claims, private, algorithm="RS256", headers={"kid": kid})


def enter_with(client, row, sub_id, signed=None):
    url = entry_url(row.pool, pid=PID, study_id=row.prolific_id, session_id=sub_id)
    if signed is not None:
        url += f"&prolific_token={signed}"
    return client.get(url)


def jwks_calls(fake):
    return [r for r in fake.requests if r.path == JWKS]


def test_a_well_signed_token_lets_the_participant_in(client, fake_prolific, keys, secured):
    row, sub_id = secured
    response = enter_with(client, row, sub_id, token(keys, row, sub_id))
    assert response.status_code == 302
    assert ProlificSubmission.objects.get().entry_check == "verified"
    assert len(jwks_calls(fake_prolific)) == 1 and jwks_calls(fake_prolific)[0].authorization


def test_the_keys_are_cached(client, fake_prolific, keys, secured):
    row, sub_id = secured
    enter_with(client, row, sub_id, token(keys, row, sub_id))
    enter_with(client.__class__(), row, sub_id, token(keys, row, sub_id))
    assert len(jwks_calls(fake_prolific)) == 1


def test_a_rotated_key_is_fetched_again(client, fake_prolific, keys, secured):
    row, sub_id = secured
    enter_with(client, row, sub_id, token(keys, row, sub_id))
    private2, public2 = keypair("k2")
    fake_prolific.jwks = {"keys": [public2]}
    response = enter_with(client, row, sub_id, token(private2, row, sub_id, kid="k2"))
    assert response.status_code == 302 and len(jwks_calls(fake_prolific)) == 2


@pytest.mark.parametrize(("make", "said"), [
    (lambda k, row, sub: token(k, row, sub, exp=int(time.time()) - 3600), "it has expired"),
    (lambda k, row, sub: token(k, row, sub, aud="f" * 24), "it is for another study"),
    (lambda k, row, sub: token(keypair("k1")[0], row, sub), "its signature does not match"),
    (lambda k, row, sub: token(k, row, sub, pid="6" * 24), "names another PROLIFIC_PID"),
    (lambda k, row, sub: jwt.encode({"exp": int(time.time()) + 60, "aud": row.prolific_id}, k, algorithm="RS256",
                                    headers={"kid": "k1"}), "no Prolific claim"),
    (lambda k, row, sub: token(k, row, sub, kid="unknown"), "a key Prolific does not publish"),
    (lambda k, row, sub: "not-a-token", "it is not a token"),
    (lambda k, row, sub: None, "no signed token"),
])
def test_it_refuses_a_bad_token_with_the_problems_page(client, fake_prolific, keys, secured, make, said):
    row, sub_id = secured
    response = enter_with(client, row, sub_id, make(keys, row, sub_id))
    assert response.status_code == 400
    page = response.content.decode()
    assert "signature is not valid" in page and said in page
    assert not ProlificSubmission.objects.exists()


def test_an_hs256_token_is_refused(client, fake_prolific, keys, secured):
    row, sub_id = secured
    forged = jwt.encode({"exp": int(time.time()) + 60, "aud": row.prolific_id, "prolific": {}}, "secret",
                        algorithm="HS256", headers={"kid": "k1"})
    assert enter_with(client, row, sub_id, forged).status_code == 400


def test_without_prolifics_keys_the_submission_check_decides(client, fake_prolific, keys, secured):
    row, sub_id = secured
    fake_prolific.jwks = {"not": "a jwks"}
    response = enter_with(client, row, sub_id, token(keys, row, sub_id))
    assert response.status_code == 302  # Prolific confirmed the submission itself


def test_a_pool_without_the_secured_url_needs_no_token(client, fake_prolific, participant, pool):
    pid, study_id, sub_id = participant
    assert client.get(entry_url(pool, pid=pid, study_id=study_id, session_id=sub_id)).status_code == 302
    assert not jwks_calls(fake_prolific)
    assert ProlificStudy.objects.get().secured_entry is False


def test_the_parameter_name_is_a_setting(client, settings, fake_prolific, keys, secured):
    settings.PROLIFIC_ENTRY_TOKEN_PARAM = "jwt"
    row, sub_id = secured
    url = entry_url(row.pool, pid=PID, study_id=row.prolific_id, session_id=sub_id)
    assert client.get(url + f"&jwt={token(keys, row, sub_id)}").status_code == 302

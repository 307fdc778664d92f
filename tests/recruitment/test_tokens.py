"""A researcher's Prolific token: encrypted at rest, never in a repr or the admin, and resolved as
theirs, else the deployment's, else a clear "no token"."""

import pytest
from cryptography.fernet import Fernet
from django.contrib import admin
from django.db import connection

from recruitment.models import ProlificToken
from recruitment.tokens import (
    ProlificNotConfigured,
    TokenUnreadable,
    client_for,
    token_for,
    token_remove,
    token_set,
    token_state,
)

TOKEN = "prolific-token-of-the-owner-0123456789ABCDEFGH"


def raw_column(user) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT ciphertext FROM recruitment_prolifictoken WHERE user_id = %s", [user.pk])
        return cursor.fetchone()[0]


def test_the_database_holds_no_plaintext(owner):
    token_set(user=owner, token=TOKEN)
    stored = raw_column(owner)
    assert TOKEN not in stored and TOKEN[:12] not in stored and stored.startswith("gAAAAA")  # a Fernet token
    assert token_for(user=owner) == TOKEN


def test_replacing_keeps_one_row(owner):
    token_set(user=owner, token=TOKEN)
    first = raw_column(owner)
    token_set(user=owner, token=TOKEN + "x")
    assert ProlificToken.objects.filter(user=owner).count() == 1
    assert raw_column(owner) != first and token_for(user=owner) == TOKEN + "x"


def test_no_repr_str_or_admin_shows_it(owner):
    row = token_set(user=owner, token=TOKEN)
    assert TOKEN not in repr(row) and TOKEN not in str(row) and row.ciphertext not in repr(row)
    assert not admin.site.is_registered(ProlificToken)
    assert TOKEN not in repr(client_for(user=owner))


def test_an_explicit_key_and_its_rotation(settings, owner):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.TESSERA_ENCRYPTION_KEY = [old]
    token_set(user=owner, token=TOKEN)
    settings.TESSERA_ENCRYPTION_KEY = [new, old]  # the new key first: it encrypts, both decrypt
    assert token_for(user=owner) == TOKEN
    settings.TESSERA_ENCRYPTION_KEY = [new]
    with pytest.raises(TokenUnreadable, match="enter it again"):
        token_for(user=owner)


def test_the_derived_key_follows_secret_key(settings, owner):
    token_set(user=owner, token=TOKEN)
    settings.SECRET_KEY = "another-secret-key-entirely"
    with pytest.raises(TokenUnreadable):
        token_for(user=owner)


def test_resolution_order(settings, owner, other_researcher):
    settings.PROLIFIC_API_TOKEN = "deployment-token-0123456789"
    token_set(user=owner, token=TOKEN)
    assert token_for(user=owner) == TOKEN
    assert token_for(user=other_researcher) == "deployment-token-0123456789"
    assert token_for(user=None) == "deployment-token-0123456789"
    settings.PROLIFIC_API_TOKEN = ""
    with pytest.raises(ProlificNotConfigured, match="PROLIFIC_API_TOKEN"):
        token_for(user=other_researcher)


def test_state_and_removal(settings, owner):
    settings.PROLIFIC_API_TOKEN = ""
    assert not token_state(user=owner).usable
    token_set(user=owner, token=TOKEN)
    state = token_state(user=owner)
    assert state.usable and state.own is not None and not state.deployment_fallback
    assert token_remove(user=owner) is True and token_remove(user=owner) is False
    assert token_state(user=owner).own is None


def test_an_empty_token_is_refused(owner):
    with pytest.raises(ValueError):
        token_set(user=owner, token="   ")

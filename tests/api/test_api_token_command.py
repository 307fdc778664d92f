"""manage.py api_token USERNAME --name NAME | --list | --revoke PREFIX."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from api.models import ApiToken
from api.tokens import api_token_authenticate


def run(*args) -> str:
    out = StringIO()
    call_command("api_token", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_prints_a_new_token_once_and_keeps_only_its_hash(owner):
    plain = run("owner", "--name", "lab server").strip()
    token = ApiToken.objects.get(user=owner)
    assert token.name == "lab server" and api_token_authenticate(plain).pk == token.pk
    assert plain.split("_", 2)[2] not in token.secret_hash
    listed = run("owner", "--list")
    assert f"tsr_{token.prefix}_…" in listed and "lab server" in listed and plain not in listed


def test_it_revokes_by_prefix(owner):
    plain = run("owner", "--name", "x").strip()
    prefix = ApiToken.objects.get(user=owner).prefix
    assert "Revoked" in run("owner", "--revoke", f"tsr_{prefix}_")
    assert ApiToken.objects.get(user=owner).revoked_at is not None
    with pytest.raises(CommandError, match="no live token"):
        run("owner", "--revoke", prefix)
    assert "revoked" in run("owner", "--list") and plain


def test_it_refuses_an_unknown_account_an_inactive_one_and_one_that_is_no_researcher(owner, checker):
    with pytest.raises(CommandError, match="No account named 'nobody'"):
        run("nobody", "--name", "x")
    with pytest.raises(CommandError, match="for researchers"):
        run("checker-in", "--name", "x")
    owner.is_active = False
    owner.save()
    with pytest.raises(CommandError, match="inactive"):
        run("owner", "--name", "x")
    assert not ApiToken.objects.exists()


def test_another_researchers_token_is_not_revoked_by_its_prefix(owner, other_researcher):
    run("owner", "--name", "x")
    prefix = ApiToken.objects.get(user=owner).prefix
    with pytest.raises(CommandError):
        run("other", "--revoke", prefix)
    assert ApiToken.objects.get(user=owner).revoked_at is None

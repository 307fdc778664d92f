"""manage.py create_researcher: an operator makes a researcher account, who may then create studies;
bad input is refused with a clear message and makes nothing."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from studies.selectors import is_researcher

pytestmark = pytest.mark.django_db
GOOD = "a-long-enough-password-2026"


def test_it_creates_a_researcher_who_can_create_studies(monkeypatch, capsys):
    monkeypatch.setenv("NEW_RESEARCHER_PASSWORD", GOOD)
    call_command("create_researcher", "ana", "--email", "ana@lab.example.org", "--password-env",
                 "NEW_RESEARCHER_PASSWORD")
    assert "Researcher ana created" in capsys.readouterr().out
    ana = get_user_model().objects.get(username="ana")
    assert ana.email == "ana@lab.example.org" and is_researcher(ana) and ana.check_password(GOOD)
    client = Client()
    assert client.login(username="ana", password=GOOD)
    assert client.get("/studies/new").status_code == 200


def test_an_existing_account_is_made_a_researcher_and_keeps_its_password(django_user_model):
    django_user_model.objects.create_user("bo", "bo@lab.example.org", GOOD)
    call_command("create_researcher", "bo", "--no-input")
    bo = django_user_model.objects.get(username="bo")
    assert is_researcher(bo) and bo.check_password(GOOD)


@pytest.mark.parametrize("args, env, message", [
    (["--email", "not-an-address", "--password-env", "P"], {"P": GOOD}, "not an email address"),
    (["--password-env", "P"], {"P": "short"}, "password is refused"),
    (["--password-env", "P"], {}, "is not set"),
    (["--no-input"], {}, "needs a password"),
])
def test_it_refuses_bad_input_and_makes_nothing(monkeypatch, args, env, message):
    monkeypatch.delenv("P", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(CommandError, match=message):
        call_command("create_researcher", "cy", *args)
    assert not get_user_model().objects.filter(username="cy").exists()

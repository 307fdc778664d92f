"""A pool on a generic URL panel: its entry link (signed or not), the refusals, the end page's completion
link, and a Prolific pool of the same study unchanged beside it."""

import re
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse

from annotation.links import panel_signed_links
from annotation.models import Annotator, Session
from studies import panels
from studies.models import PoolPanel
from studies.panel_services import pool_panel_set
from tests import factories as f
from tests.helpers import enter

DONE = "https://connect.example/complete?pid={participant_id}&cc={code}"
OUT = "https://connect.example/screened?pid={participant_id}"


def url_panel(pool, **settings) -> PoolPanel:
    values = {"kind": "url", "name": "CloudResearch Connect", "participant_param": "pid",
              "study_param": "sid", "session_param": "", "verification": "signed",
              "url_completed": DONE, "url_screened_out": OUT} | settings
    return pool_panel_set(pool=pool, **values)


def link_of(pool, panel, pid="worker-1") -> str:
    return panel_signed_links(pool, panel, [pid])[0][1]


def path_of(link: str) -> str:
    return link.split("://", 1)[1].split("/", 1)[1].join(["/", ""])


@pytest.fixture
def panel(pool, items):
    return url_panel(pool)


def test_a_signed_link_lets_the_participant_in(client, pool, panel):
    response = client.get(path_of(link_of(pool, panel)))
    assert response.status_code == 302 and response.url == reverse("annotation:consent")
    annotator = Annotator.objects.get()
    assert annotator.pool == pool and annotator.prolific_pid == "worker-1"
    assert Session.objects.get().prolific_session_id == "worker-1"  # one session per participant


def test_it_refuses_a_tampered_token(client, pool, panel):
    link = link_of(pool, panel)
    tampered = link[:-1] + ("0" if link[-1] != "0" else "1")
    response = client.get(path_of(tampered))
    assert response.status_code == 400
    page = response.content.decode()
    assert "This link is not valid" in page and "CloudResearch Connect" in page
    assert "Prolific" not in page.split("<main", 1)[-1]
    assert not Annotator.objects.exists()


def test_it_refuses_a_link_whose_id_was_changed(client, pool, panel):
    link = link_of(pool, panel).replace("pid=worker-1", "pid=worker-2")
    assert client.get(path_of(link)).status_code == 400
    assert not Annotator.objects.exists()


def test_it_refuses_a_missing_token(client, pool, panel):
    path = reverse("annotation:entry", args=[pool.entry_key]) + "?pid=worker-1"
    response = client.get(path)
    assert response.status_code == 400 and "This link is not valid" in response.content.decode()


def test_it_refuses_a_missing_id_naming_the_panels_parameter(client, pool, panel):
    token = panels.token_for(secret=panel.secret, entry_key=str(pool.entry_key), participant_id="worker-1")
    response = client.get(reverse("annotation:entry", args=[pool.entry_key]) + f"?token={token}")
    assert response.status_code == 400
    page = response.content.decode()
    assert "This link is incomplete" in page and "pid" in page and "CloudResearch Connect" in page


def test_it_refuses_another_pools_token(client, study, pool, other_pool, panel):
    other = url_panel(other_pool)
    token = panels.token_for(secret=other.secret, entry_key=str(other_pool.entry_key), participant_id="worker-1")
    response = client.get(reverse("annotation:entry", args=[pool.entry_key]) + f"?pid=worker-1&token={token}")
    assert response.status_code == 400 and not Annotator.objects.exists()


def test_prolific_parameters_on_a_url_pool_are_ignored(client, pool, panel):
    """A Prolific-shaped link does not enter a URL pool: its own id parameter is missing."""
    response = enter(client, pool)
    assert response.status_code == 400 and "This link is incomplete" in response.content.decode()
    assert not Annotator.objects.exists()


def test_an_unsigned_panel_takes_the_id_as_given(client, pool, items):
    url_panel(pool, verification="none", session_param="ses")
    query = urlencode({"pid": "SONA-77", "sid": "st1", "ses": "s-9", "PROLIFIC_PID": "ignored"})
    response = client.get(reverse("annotation:entry", args=[pool.entry_key]) + "?" + query)
    assert response.status_code == 302
    session = Session.objects.get()
    assert session.annotator.prolific_pid == "SONA-77"
    assert (session.prolific_session_id, session.prolific_study_id) == ("s-9", "st1")


def test_a_malformed_id_is_refused(client, pool, items):
    url_panel(pool, verification="none")
    response = client.get(reverse("annotation:entry", args=[pool.entry_key]) + "?pid=%3Cscript%3E")
    assert response.status_code == 400 and "<script>" not in response.content.decode()


def test_the_end_page_leads_to_the_panels_completion_link(client, study, pool, panel):
    client.get(path_of(link_of(pool, panel)))
    Annotator.objects.update(outcome=Annotator.Outcome.ALL_SKIPPED)
    Session.objects.update(completed_at="2026-01-01T00:00Z")
    page = client.get(reverse("annotation:end")).content.decode()
    # all_skipped has no link of its own: the screened-out one (its fallback)
    assert 'href="https://connect.example/screened?pid=worker-1"' in page
    assert "Continue to CloudResearch Connect" in page and "app.prolific.com" not in page
    assert f'id="completion-code">{study.code_all_skipped}<' in page


def test_a_completed_session_gets_the_completed_link_with_its_code(client, study, pool, panel):
    client.get(path_of(link_of(pool, panel)))
    Annotator.objects.update(consented_at="2026-01-01T00:00Z")
    Session.objects.update(completed_at="2026-01-01T00:00Z")
    from annotation.selectors import ending_for

    annotator = Annotator.objects.get()
    ending = ending_for(annotator, annotator.sessions.get())
    assert ending is not None and ending.url == f"https://connect.example/complete?pid=worker-1&cc={study.code_completed}"


def test_declining_consent_on_a_panel_never_mentions_prolific(client, study, pool, panel):
    client.get(path_of(link_of(pool, panel)))
    client.post(reverse("annotation:consent"), {"consent": "no"})
    page = client.get(reverse("annotation:end")).content.decode()
    assert 'href="https://connect.example/screened?pid=worker-1"' in page  # no_consent falls back to screened out
    shown = re.sub(r'<script id="ui-messages".*?</script>', "", page, flags=re.S)  # the scripts' words apart
    assert "Prolific" not in shown


def test_a_prolific_pool_of_the_same_study_is_unchanged(client, study, pool, other_pool, items, panel):
    response = enter(client, other_pool)
    assert response.status_code == 302 and Annotator.objects.get().pool == other_pool


def test_a_signed_link_is_no_rebinding_credential(client, pool, panel, settings):
    settings.ANNOTATOR_PROLIFIC_REBIND = True
    path = path_of(link_of(pool, panel))
    client.get(path)
    response = Client().get(path)
    assert response.status_code == 403 and 'name="code"' in response.content.decode()


def test_the_links_command_writes_signed_links(pool, panel, tmp_path):
    from django.core.management import call_command

    ids = tmp_path / "ids.txt"
    ids.write_text("a-1\nb-2, a-1\n")
    out = tmp_path / "links.csv"
    call_command("panel_links", str(pool.study_id), "--pool", "in", "--ids", str(ids), "--out", str(out))
    lines = out.read_text().splitlines()
    assert lines[0] == "participant_id,link" and len(lines) == 3
    assert lines[1] == "a-1," + link_of(pool, panel, "a-1")


def test_the_links_command_refuses_a_prolific_pool(other_pool, tmp_path):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    ids = tmp_path / "ids.txt"
    ids.write_text("a-1\n")
    with pytest.raises(CommandError, match="Prolific"):
        call_command("panel_links", str(other_pool.study_id), "--pool", "JP", "--ids", str(ids))


def test_tokens_are_pure_and_bound_to_pool_and_id():
    t = panels.token_for(secret="s", entry_key="k", participant_id="p")
    assert panels.token_matches(secret="s", entry_key="k", participant_id="p", token=t)
    assert not panels.token_matches(secret="s", entry_key="k2", participant_id="p", token=t)
    assert not panels.token_matches(secret="s", entry_key="k", participant_id="q", token=t)
    assert not panels.token_matches(secret="", entry_key="k", participant_id="p", token=t)
    assert not panels.token_matches(secret="s", entry_key="k", participant_id="p", token="")


@pytest.mark.parametrize("template, ok", [
    ("https://x.example/c?id={participant_id}", True),
    ("http://x.example/{code}", True),
    ("javascript:alert(1)", False),
    ("ftp://x.example/", False),
    ("/relative", False),
    ("https://x.example/{nope}", False),
    ("https://x.example/{", False),
])
def test_completion_templates_are_checked(template, ok):
    assert (panels.template_problem(template) is None) == ok


def test_fill_encodes_values():
    assert panels.template_fill("https://x/?p={participant_id}", {"participant_id": "a&b"}) == "https://x/?p=a%26b"


def test_every_outcome_has_a_link():
    only_done = {"completed": "https://x/done"}
    for outcome in ("", "not_eligible", "failed_mock", "no_consent", "failed_check", "all_skipped"):
        assert panels.completion_template(only_done, panels.ending_of(outcome)) == "https://x/done"


def test_factories_pool_is_prolific_by_default(pool):
    from studies.models import panel_label

    assert panel_label(pool) == "Prolific"
    assert f.make_pool(pool.study, "KE", "Kenya").pk  # a new pool needs no panel row

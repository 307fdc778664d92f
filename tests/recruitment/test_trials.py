"""Walking a study as a participant before publishing: the test link of the study's Prolific page (the
pool's entry link with test ids, signed here) walked in the path preview and counted nowhere; a forged
one refused; Prolific's test participant and test study, made for the owner only, Prolific's refusal
shown; and the test study's entries walked the same way."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.core import signing
from django.urls import reverse

from annotation.models import Annotator, Session
from annotation.trial_entry import TRIAL_PARAM, TRIAL_SALT, trial_link
from recruitment.models import ProlificAction, ProlificStudy, ProlificSubmission
from recruitment.services import LaunchOptions, prolific_study_launch
from tests import factories as f
from tests.annotation.test_path_preview import stored, to_items, url
from tests.factories import valid_answers
from tests.helpers import HX, login


def entry_of(link: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(link)
    return parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}


@pytest.fixture
def draft(fake_prolific, owner, pool, items):
    """India's pool as a draft on the fake Prolific."""
    return prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10)
                                 ).prolific_study


@pytest.fixture
def question(study):
    return f.make_mock_question(study, expected="No")


def prolific_page(client, study) -> str:
    return client.get(reverse("recruitment:study-prolific", args=[study.pk])).content.decode()


# --- the test link, walked here ---------------------------------------------------------------------


def test_the_owners_page_offers_each_pool_its_signed_test_link(client, owner, study, pool, other_pool, draft):
    page = prolific_page(login(client, owner), study)
    assert "Walk it as a participant" in page and 'data-trial-link="IN"' in page and 'data-trial-link="JP"' in page
    assert str(pool.entry_key) in page and f"{TRIAL_PARAM}=" in page and "PROLIFIC_PID=TEST" in page
    assert reverse("recruitment:trial-study", args=[study.pk, pool.pk]) in page  # a draft: Prolific's test study


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_member_is_not_offered_the_test_walk(client, study, pool, draft, role):
    page = prolific_page(login(client, f.make_member(study, role, role)), study)
    assert "Walk it as a participant" not in page and TRIAL_PARAM not in page


def test_the_test_link_walks_the_path_and_counts_nowhere(client, owner, study, pool, draft, question, fake_prolific):
    before = stored()
    path, params = entry_of(trial_link(pool))
    login(client, owner)
    response = client.get(path, params)
    assert response.status_code == 302 and response.url == url(study, pool)
    to_items(client, study, pool, question)
    for position in (1, 2, 3):
        client.post(url(study, pool, "item-submit", position), valid_answers(), **HX)
    assert "Your completion code is" in client.get(url(study, pool, "end")).content.decode()
    # Nothing stored: no annotator, session, lease or annotation, no quota moved, no submission, and
    # Prolific was never asked about the test ids.
    assert stored() == before and not ProlificSubmission.objects.exists()
    assert not fake_prolific.calls("GET", r"submissions/.*")


def test_the_test_link_lets_in_no_one_but_the_studys_members(client, study, pool, draft, other_researcher, checker):
    path, params = entry_of(trial_link(pool))
    for who in (other_researcher, checker):
        login(client, who)
        assert client.get(client.get(path, params).url).status_code == 404
    client.logout()
    assert "/login/" in client.get(client.get(path, params).url).url
    assert not Annotator.objects.exists() and not Session.objects.exists()


def forged(pool, other_pool, how: str) -> dict[str, str]:
    _, params = entry_of(trial_link(pool))
    if how == "altered":
        params[TRIAL_PARAM] = params[TRIAL_PARAM][:-2] + ("AA" if not params[TRIAL_PARAM].endswith("AA") else "BB")
    elif how == "other_pool":
        params[TRIAL_PARAM] = entry_of(trial_link(other_pool))[1][TRIAL_PARAM]
    elif how == "ids_changed":
        params["PROLIFIC_PID"] = "TEST" + "0" * 20
    elif how == "made_elsewhere":
        params[TRIAL_PARAM] = signing.dumps({"pool": pool.pk, "ids": [params[n] for n in (
            "PROLIFIC_PID", "STUDY_ID", "SESSION_ID")]}, salt=TRIAL_SALT, key="another site's key")
    elif how == "expired":
        params[TRIAL_PARAM] = signing.dumps({"pool": pool.pk, "ids": []}, salt=TRIAL_SALT)
    return params


@pytest.mark.parametrize(("how", "says"), [
    ("altered", "not Tessera"), ("made_elsewhere", "not Tessera"), ("other_pool", "another pool"),
    ("ids_changed", "ids were changed"), ("expired", "expired"),
])
def test_a_forged_test_link_is_refused_and_creates_nothing(
    client, owner, study, pool, other_pool, draft, how, says, monkeypatch
):
    if how == "expired":
        monkeypatch.setattr("annotation.trial_entry.TRIAL_LINK_MAX_AGE", -1)
    login(client, owner)
    response = client.get(reverse("annotation:entry", args=[pool.entry_key]), forged(pool, other_pool, how))
    page = response.content.decode()
    assert response.status_code == 400 and "This test link is not valid" in page and says in page
    assert not Annotator.objects.exists() and not Session.objects.exists()


def test_test_ids_without_the_signature_are_an_ordinary_entry_checked_with_prolific(
    client, study, pool, fake_prolific, on_prolific
):
    _, params = entry_of(trial_link(pool))
    del params[TRIAL_PARAM]
    params.update(STUDY_ID=on_prolific.prolific_id, SESSION_ID="6b" + "0" * 22)
    response = client.get(reverse("annotation:entry", args=[pool.entry_key]), params)
    assert response.status_code == 400 and not Annotator.objects.exists()  # Prolific knows no such submission


# --- Prolific's test participant and test study ----------------------------------------------------


def make_test_study(client, study, pool):
    return client.post(reverse("recruitment:trial-study", args=[study.pk, pool.pk]))


def test_the_owner_gets_a_test_participant_and_a_test_study(client, owner, study, pool, draft, fake_prolific):
    owner.email = "owner@example.org"
    owner.save()
    response = make_test_study(login(client, owner), study, pool)
    draft.refresh_from_db()
    assert [p["email"] for p in fake_prolific.test_participants] == ["owner@example.org"]
    assert draft.test_participant_id == fake_prolific.test_participants[0]["participant_id"]
    assert draft.test_study_id and f"test study {draft.test_study_id} is ready" in prolific_page(
        client, study) and response.status_code == 302
    assert ProlificAction.objects.filter(kind="test_study", ok=True).count() == 2
    make_test_study(client, study, pool)  # again: the same test participant, a new test study
    assert len(fake_prolific.test_participants) == 1
    assert len(fake_prolific.calls("POST", r"studies/[0-9a-f]{24}/test-study/")) == 2


def test_the_test_studys_entry_is_walked_and_counts_nowhere(client, owner, study, pool, draft, fake_prolific):
    owner.email = "owner@example.org"
    owner.save()
    make_test_study(login(client, owner), study, pool)
    draft.refresh_from_db()
    before = stored()
    response = client.get(reverse("annotation:entry", args=[pool.entry_key]), {
        "PROLIFIC_PID": fake_prolific.test_participants[0]["participant_id"], "STUDY_ID": draft.test_study_id,
        "SESSION_ID": "6a" + "0" * 22})
    assert response.status_code == 302 and response.url == url(study, pool)
    assert stored() == before and not ProlificSubmission.objects.exists()


def test_prolifics_refusal_is_shown_and_the_test_link_still_offered(client, owner, study, pool, draft, fake_prolific):
    owner.email = "owner@example.org"
    owner.save()
    fake_prolific.test_participants_enabled = False
    make_test_study(login(client, owner), study, pool)
    page = prolific_page(client, study)
    assert "Prolific refused a test study for India" in page and "not enabled for this workspace" in page
    assert 'data-trial-link="IN"' in page
    draft.refresh_from_db()
    assert draft.test_study_id == "" and ProlificAction.objects.filter(kind="test_study", ok=False).exists()


@pytest.mark.parametrize("why", ["published", "no_email", "not_on_prolific"])
def test_it_refuses_before_asking_prolific(client, owner, study, pool, other_pool, draft, fake_prolific, why):
    owner.email = "" if why == "no_email" else "owner@example.org"
    owner.save()
    if why == "published":
        ProlificStudy.objects.filter(pk=draft.pk).update(status="ACTIVE")
    target = other_pool if why == "not_on_prolific" else pool
    make_test_study(login(client, owner), study, target)
    page = prolific_page(client, study)
    assert "No test study on Prolific" in page
    said = {"published": "drafts only", "no_email": "no email address", "not_on_prolific": "not on Prolific"}
    assert said[why] in page
    assert not fake_prolific.calls("POST", r"researchers/participants/") and not fake_prolific.test_participants


@pytest.mark.parametrize("who", ["other_researcher", "checker", "viewer", "editor"])
def test_no_one_but_the_owner_makes_a_test_study(client, request, study, pool, draft, fake_prolific, who):
    user = f.make_member(study, who, who) if who in ("viewer", "editor") else request.getfixturevalue(who)
    response = make_test_study(login(client, user), study, pool)
    assert response.status_code == (403 if who in ("viewer", "editor") else 404)
    assert not fake_prolific.test_participants and not fake_prolific.calls("POST", r"studies/.*/test-study/")



def test_the_command_gives_the_test_link_and_makes_prolifics_test_study(owner, study, pool, draft, fake_prolific):
    from io import StringIO

    from django.core.management import CommandError, call_command

    owner.email = "owner@example.org"
    owner.save()
    out, err = StringIO(), StringIO()
    call_command("prolific", "test-study", str(study.pk), "--pool", "IN", stdout=out, stderr=err)
    draft.refresh_from_db()
    assert f"{TRIAL_PARAM}=" in out.getvalue() and f"Prolific's test study {draft.test_study_id}" in out.getvalue()
    assert err.getvalue() == "" and len(fake_prolific.test_participants) == 1
    owner.email = ""
    owner.save()
    call_command("prolific", "test-study", str(study.pk), "--pool", "IN", stdout=(out := StringIO()), stderr=err)
    assert f"{TRIAL_PARAM}=" in out.getvalue()
    assert "no test study on Prolific: Your account has no email" in err.getvalue()
    with pytest.raises(CommandError, match="--pool is required"):
        call_command("prolific", "test-study", str(study.pk), stdout=StringIO())

"""The rounds pages, posted at their addresses: invite back (the preview's count, each error under its
field, the group made on Prolific), the researcher's groups, and their block list (add with a reason,
remove; its table scrolls on a phone). The roles are tests/test_route_roles.py's; here, what each page
does and that a refusal changes nothing."""

import re

import pytest
from django.urls import reverse

from recruitment.models import BlockedParticipant, ParticipantGroup
from recruitment.services import rounds
from recruitment.services.rounds import ScoreRow
from tests import factories as f

pytestmark = pytest.mark.django_db

TOP = ["aa0000000000000000000001", "aa0000000000000000000002"]
LOW = "bb0000000000000000000003"
OUT = "cc0000000000000000000004"
BETWEEN = "Give a number between 0 and 1 (e.g. 0.8), or leave it empty."


@pytest.fixture(autouse=True)
def scores(monkeypatch):
    """The analysis's scores (the real reader is tests/recruitment/test_rounds_scores.py's)."""
    rows = [ScoreRow(TOP[0], 0.9, 1.0, False), ScoreRow(TOP[1], 0.85, 0.9, False),
            ScoreRow(LOW, 0.3, 0.5, False), ScoreRow(OUT, 0.95, 1.0, True)]
    monkeypatch.setattr(rounds, "_score_source", [lambda study: rows])


def field_block(html: str, name: str) -> str:
    """The markup of the form field ``name``: its label, input, help and errors (up to the next field)."""
    start = html.index(f'<label for="id_{name}"')
    rest = html[start:]
    end = min((i for i in (rest.find('<div class="field">'), rest.find("</form>")) if i > 0), default=len(rest))
    return rest[:end]


def errors_of(block: str) -> list[str]:
    found = re.search(r'<ul class="error" role="alert">(.*?)</ul>', block, re.S)
    return re.findall(r"<li>(.*?)</li>", found[1]) if found else []


def invite_url(study) -> str:
    return reverse("recruitment:rounds-invite-back", args=[study.pk])


# --- invite back -------------------------------------------------------------------------------


def test_the_page_shows_the_bar_with_no_exclusions_ticked(client, owner, study):
    client.force_login(owner)
    response = client.get(invite_url(study))
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r'<input type="checkbox" name="no_exclusions"[^>]*checked', html)
    assert 'id="invite-preview"' not in html and 'name="create"' not in html  # previewed first


def test_a_preview_shows_how_many_meet_the_bar_and_makes_nothing(client, owner, study, fake_prolific):
    client.force_login(owner)
    response = client.post(invite_url(study), {"name": "Top", "min_quality": "0.8", "no_exclusions": "on",
                                               "preview": "1"})
    assert response.status_code == 200
    html = response.content.decode()
    preview = re.search(r'<p role="status" id="invite-preview">(.*?)</p>', html, re.S)[1]
    assert re.sub(r"<[^>]+>", "", preview) == "2 of 4 annotators meet the bar."
    assert 'name="create"' in html  # now it may be made
    assert not ParticipantGroup.objects.exists() and not fake_prolific.requests


def test_a_preview_nobody_meets_offers_no_creation(client, owner, study, fake_prolific):
    client.force_login(owner)
    html = client.post(invite_url(study), {"name": "Top", "min_quality": "0.99", "no_exclusions": "on",
                                           "preview": "1"}).content.decode()
    assert "<strong>0</strong> of 4 annotators" in html and 'name="create"' not in html


@pytest.mark.parametrize("post, field, says", [
    ({"name": "Top", "min_quality": "1.5"}, "min_quality", BETWEEN),
    ({"name": "Top", "min_gold": "-0.2"}, "min_gold", BETWEEN),
    ({"name": "Top", "min_quality": "high"}, "min_quality", "Enter a number."),
    ({"name": "", "min_quality": "0.8"}, "name", "This field is required."),
    ({"name": "Top"}, "min_quality",
     "Set at least one part of the bar: a least quality score, a least gold accuracy, or no exclusions."),
])
@pytest.mark.parametrize("action", ["preview", "create"])
def test_each_error_is_shown_under_its_field_and_nothing_is_made(
    client, owner, study, fake_prolific, post, field, says, action
):
    client.force_login(owner)
    response = client.post(invite_url(study), {**post, action: "1"})
    assert response.status_code == 400
    html = response.content.decode()
    assert errors_of(field_block(html, field)) == [says]
    others = [n for n in ("name", "min_quality", "min_gold") if n != field]
    assert all(errors_of(field_block(html, n)) == [] for n in others)
    assert 'id="invite-preview"' not in html
    assert not ParticipantGroup.objects.exists() and not fake_prolific.requests


def test_creating_makes_the_group_on_prolific_and_lists_it(client, owner, study, fake_prolific):
    client.force_login(owner)
    response = client.post(invite_url(study), {"name": "Round 1 top", "min_quality": "0.8", "no_exclusions": "on",
                                               "create": "1"}, follow=True)
    assert response.redirect_chain == [(reverse("recruitment:rounds-groups"), 302)]
    group = ParticipantGroup.objects.get()
    assert sorted(fake_prolific.members[group.prolific_id]) == TOP
    html = response.content.decode()
    assert "The group &#x27;Round 1 top&#x27; is on Prolific with 2 participant(s)" in html
    row = re.search(r"<tr><td>Round 1 top</td>(.*?)</tr>", html, re.S)[1]
    assert f"<td>{study.name}</td><td>2</td>" in row and "quality ≥ 0.8" in row and "no exclusions" in row
    assert f"<code>{group.prolific_id}</code>" in row


def test_creating_what_nobody_meets_says_so_above_the_form(client, owner, study, fake_prolific):
    client.force_login(owner)
    response = client.post(invite_url(study), {"name": "Top", "min_quality": "0.99", "create": "1"})
    assert response.status_code == 400
    alert = re.search(r'<form method="post" class="card has-error">.*?<ul class="error" role="alert">(.*?)</ul>',
                      response.content.decode(), re.S)[1]
    assert "Nobody in this study meets the bar: lower it, or run the analysis first." in alert
    assert not ParticipantGroup.objects.exists() and not fake_prolific.groups


def test_a_name_taken_by_another_bar_is_refused_and_the_first_group_stays(client, owner, study, fake_prolific):
    client.force_login(owner)
    client.post(invite_url(study), {"name": "Top", "min_quality": "0.8", "no_exclusions": "on", "create": "1"})
    response = client.post(invite_url(study), {"name": "Top", "min_quality": "0.5", "create": "1"})
    assert response.status_code == 400 and "choose another name" in response.content.decode()
    assert ParticipantGroup.objects.get().bar["min_quality"] == 0.8 and len(fake_prolific.groups) == 1


def test_an_editor_may_not_invite_back(client, study, fake_prolific):
    editor = f.make_member(study, "editor", "editor")
    client.force_login(editor)
    response = client.post(invite_url(study), {"name": "Top", "min_quality": "0.8", "create": "1"})
    assert response.status_code == 403
    assert not ParticipantGroup.objects.exists() and not fake_prolific.requests


# --- the groups page ---------------------------------------------------------------------------


def test_the_groups_page_lists_only_mine_newest_first(client, owner, other_researcher, study, fake_prolific):
    for name in ("First", "Second"):
        rounds.invite_back(study=study, bar=rounds.Bar(min_quality=0.8), name=name, user=owner)
    theirs = f.make_study(other_researcher, name="Theirs")
    ParticipantGroup.objects.create(owner=other_researcher, name="Not mine", source_study=theirs)
    client.force_login(owner)
    html = client.get(reverse("recruitment:rounds-groups")).content.decode()
    assert re.findall(r"<tr><td>(\w+)</td>", html) == ["Second", "First"]
    client.force_login(other_researcher)
    html = client.get(reverse("recruitment:rounds-groups")).content.decode()
    assert re.findall(r"<tr><td>([\w ]+)</td>", html) == ["Not mine"]
    assert "not yet: run its invite-back again" in html


def test_the_groups_page_costs_a_fixed_number_of_queries(client, owner, study, fake_prolific,
                                                         django_assert_max_num_queries):
    for name in ("A", "B", "C"):
        rounds.invite_back(study=study, bar=rounds.Bar(min_quality=0.8), name=name, user=owner)
    client.force_login(owner)
    client.get(reverse("recruitment:rounds-groups"))
    with django_assert_max_num_queries(6):  # the session, the user, the groups with their counts, the bar
        client.get(reverse("recruitment:rounds-groups"))


def test_no_group_yet_says_where_to_make_one(client, owner):
    client.force_login(owner)
    assert "No group yet" in client.get(reverse("recruitment:rounds-groups")).content.decode()


# --- the block list ----------------------------------------------------------------------------

BLOCKED = "recruitment:rounds-blocked"


def test_blocking_lists_the_participant_with_why_and_unblocking_removes_them(client, owner):
    client.force_login(owner)
    response = client.post(reverse(BLOCKED), {"participant_id": LOW, "reason": "Copied answers"}, follow=True)
    assert response.redirect_chain == [(reverse(BLOCKED), 302)]
    html = response.content.decode()
    assert "Blocked: none of your launches will recruit this participant." in html
    assert f"<tr><td><code>{LOW}</code></td><td>Copied answers</td>" in html
    entry = BlockedParticipant.objects.get()
    assert (entry.owner, entry.created_by, entry.reason) == (owner, owner, "Copied answers")
    response = client.post(reverse("recruitment:rounds-unblock"), {"participant_id": LOW}, follow=True)
    assert "Unblocked: your next launches may recruit this participant again." in response.content.decode()
    assert not BlockedParticipant.objects.exists() and "Nobody is blocked." in response.content.decode()


@pytest.mark.parametrize("post, field, says", [
    ({"participant_id": LOW, "reason": ""}, "reason", "This field is required."),
    ({"participant_id": LOW, "reason": "   "}, "reason", "This field is required."),
    ({"participant_id": "not an id!", "reason": "spam"}, "participant_id",
     "A Prolific participant id is letters and digits (24 characters, usually)."),
    ({"participant_id": "", "reason": "spam"}, "participant_id", "This field is required."),
])
def test_a_bad_block_shows_its_error_under_the_field_and_blocks_nobody(client, owner, post, field, says):
    client.force_login(owner)
    response = client.post(reverse(BLOCKED), post)
    assert response.status_code == 400
    html = response.content.decode()
    assert errors_of(field_block(html, field)) == [says]
    assert not BlockedParticipant.objects.exists()


def test_blocking_twice_is_refused_under_the_id_and_the_first_reason_stays(client, owner):
    client.force_login(owner)
    client.post(reverse(BLOCKED), {"participant_id": LOW, "reason": "Copied answers"})
    response = client.post(reverse(BLOCKED), {"participant_id": LOW, "reason": "Again"})
    assert response.status_code == 400
    assert errors_of(field_block(response.content.decode(), "participant_id")) == [
        "This participant is on your block list already."]
    assert list(BlockedParticipant.objects.values_list("reason", flat=True)) == ["Copied answers"]


def test_unblocking_someone_not_on_my_list_changes_nothing(client, owner, other_researcher):
    rounds.participant_block(user=owner, participant_id=LOW, reason="Copied answers")
    client.force_login(other_researcher)
    response = client.post(reverse("recruitment:rounds-unblock"), {"participant_id": LOW}, follow=True)
    html = response.content.decode()
    assert "This participant was not on your block list." in html and LOW not in html
    assert BlockedParticipant.objects.filter(owner=owner, participant_id=LOW).exists()


def test_the_block_list_reads_on_a_phone(client, owner):
    """A narrow screen: the page scales to the device, every input has its label, the table scrolls on
    its own, and each row's Unblock is a real button naming whom it unblocks."""
    rounds.participant_block(user=owner, participant_id=LOW, reason="Copied answers")
    client.force_login(owner)
    html = client.get(reverse(BLOCKED)).content.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert '<label for="id_participant_id">' in html and '<label for="id_reason">' in html
    assert re.search(r'<div class="workspace-scroll"><table>.*?</table></div>', html, re.S)
    assert f'<button type="submit" aria-label="Unblock {LOW}">Unblock</button>' in html
    assert '<th scope="col"><span class="visually-hidden">Action</span></th>' in html


# --- a group brought up to date after a later round ------------------------------------------


def test_bringing_a_group_up_to_date_adds_newcomers_and_removes_nobody(client, owner, study, fake_prolific,
                                                                       monkeypatch):
    group = rounds.invite_back(study=study, bar=rounds.Bar(min_quality=0.8), name="Top", user=owner)
    later = [ScoreRow(TOP[0], 0.5, 1.0, False), ScoreRow(TOP[1], 0.85, 0.9, False),  # TOP[0] fell under the bar
             ScoreRow(LOW, 0.82, 0.5, False), ScoreRow(OUT, 0.95, 1.0, True)]  # LOW now meets it; OUT excluded
    monkeypatch.setattr(rounds, "_score_source", [lambda study: later])
    client.force_login(owner)
    response = client.post(reverse("recruitment:rounds-group-sync", args=[group.pk]), follow=True)
    assert response.redirect_chain == [(reverse("recruitment:rounds-groups"), 302)]
    assert ("&#x27;Top&#x27;: 1 participant(s) newly meeting the bar added. 1 member(s) no longer meet the bar: "
            "kept (a group never loses anyone).") in response.content.decode()
    assert sorted(group.members.values_list("participant_id", flat=True)) == sorted([*TOP, LOW])
    assert sorted(fake_prolific.members[group.prolific_id]) == sorted([*TOP, LOW])
    assert not fake_prolific.calls("DELETE", r"participant-groups/.*")
    pushes = len(fake_prolific.calls("POST", r"participant-groups/[0-9a-f]+/participants/"))
    client.post(reverse("recruitment:rounds-group-sync", args=[group.pk]))  # nothing new: Prolific not asked
    assert len(fake_prolific.calls("POST", r"participant-groups/[0-9a-f]+/participants/")) == pushes


def test_the_groups_page_offers_bringing_each_group_up_to_date(client, owner, study, fake_prolific):
    group = rounds.invite_back(study=study, bar=rounds.Bar(min_quality=0.8), name="Top", user=owner)
    client.force_login(owner)
    html = client.get(reverse("recruitment:rounds-groups")).content.decode()
    assert f'action="{reverse("recruitment:rounds-group-sync", args=[group.pk])}"' in html
    assert '<button type="submit" aria-label="Bring Top up to date"' in html


def test_another_researcher_cannot_bring_my_group_up_to_date(client, owner, other_researcher, study, fake_prolific,
                                                              monkeypatch):
    group = rounds.invite_back(study=study, bar=rounds.Bar(min_quality=0.8), name="Top", user=owner)
    monkeypatch.setattr(rounds, "_score_source", [lambda study: [ScoreRow(LOW, 0.99, 1.0, False)]])
    client.force_login(other_researcher)
    assert client.post(reverse("recruitment:rounds-group-sync", args=[group.pk])).status_code == 404
    assert group.members.count() == 2 and len(fake_prolific.members[group.prolific_id]) == 2


def test_a_group_whose_study_is_gone_says_so(client, owner, study, fake_prolific):
    group = rounds.invite_back(study=study, bar=rounds.Bar(min_quality=0.8), name="Top", user=owner)
    ParticipantGroup.objects.filter(pk=group.pk).update(source_study=None)
    client.force_login(owner)
    response = client.post(reverse("recruitment:rounds-group-sync", args=[group.pk]), follow=True)
    assert "The study this group was drawn from is gone" in response.content.decode()
    assert group.members.count() == 2


def test_the_command_brings_a_group_up_to_date(owner, study, fake_prolific, monkeypatch):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    group = rounds.invite_back(study=study, bar=rounds.Bar(min_quality=0.8), name="Top", user=owner)
    monkeypatch.setattr(rounds, "_score_source", [lambda study: [
        ScoreRow(TOP[1], 0.85, 0.9, False), ScoreRow(LOW, 0.82, 0.5, False)]])
    out = StringIO()
    call_command("prolific", "invite-back", str(study.pk), "--name", "Top", "--sync", "--dry-run", stdout=out)
    assert out.getvalue().strip() == "1 newly meeting the bar would be added; 1 no longer meet it (kept)"
    assert group.members.count() == 2
    call_command("prolific", "invite-back", str(study.pk), "--name", "Top", "--sync", stdout=out)
    assert "1 newly meeting the bar added; 1 no longer meet it (kept)" in out.getvalue()
    assert sorted(fake_prolific.members[group.prolific_id]) == sorted([*TOP, LOW])
    with pytest.raises(CommandError, match="keeps the group's own bar"):
        call_command("prolific", "invite-back", str(study.pk), "--name", "Top", "--sync", "--min-quality", "0.1")
    with pytest.raises(CommandError, match="no participant group of yours named 'Nope'"):
        call_command("prolific", "invite-back", str(study.pk), "--name", "Nope", "--sync")

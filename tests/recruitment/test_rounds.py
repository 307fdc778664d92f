"""Rounds: the bar, invite-back as a Prolific participant group (idempotent, resumable), the block
list, and the filters a launch sends (block list always; groups and earlier studies resolved)."""

import pytest
from django.http import Http404

from recruitment.models import BlockedParticipant, ParticipantGroup, ProlificStudy
from recruitment.prolific import ProlificServerError, ProlificUnavailable
from recruitment.services import (
    LaunchOptions,
    RecruitmentRefused,
    prolific_study_launch,
    prolific_study_transition,
    rounds,
)
from recruitment.services.rounds import Bar, ScoreRow, qualifying
from tests import factories as f

pytestmark = pytest.mark.django_db

TOP = ["aa0000000000000000000001", "aa0000000000000000000002"]
REST = "bb0000000000000000000003"


def test_the_bar_keeps_who_meets_every_part_of_it():
    rows = [
        ScoreRow(TOP[0], 0.9, 1.0, False), ScoreRow(TOP[1], 0.8, 0.8, False),
        ScoreRow("low", 0.5, 1.0, False), ScoreRow("nogold", 0.9, None, False), ScoreRow("excl", 0.95, 1.0, True),
    ]
    assert qualifying(rows, Bar(min_quality=0.8, min_gold=0.8)) == TOP
    assert "excl" in qualifying(rows, Bar(min_quality=0.8, no_exclusions=False))


BETWEEN = "Give a number between 0 and 1 (e.g. 0.8), or leave it empty."
NO_BAR = "Set at least one part of the bar: a least quality score, a least gold accuracy, or no exclusions."


@pytest.mark.parametrize("bar, problems", [
    (Bar(min_quality=1.5), {"min_quality": BETWEEN}),
    (Bar(min_quality=-0.01), {"min_quality": BETWEEN}),
    (Bar(min_gold=-0.1), {"min_gold": BETWEEN}),
    (Bar(min_gold=1.01), {"min_gold": BETWEEN}),
    (Bar(min_quality=float("nan")), {"min_quality": BETWEEN}),
    (Bar(min_gold=float("inf")), {"min_gold": BETWEEN}),
    (Bar(min_quality=2, min_gold=-1), {"min_quality": BETWEEN, "min_gold": BETWEEN}),
    (Bar(no_exclusions=False), {"min_quality": NO_BAR}),
])
def test_it_refuses_a_bad_bar_with_its_message_under_the_field_and_changes_nothing(
    fake_prolific, owner, study, bar, problems
):
    assert bar.problems() == problems
    with pytest.raises(RecruitmentRefused) as refused:
        rounds.invite_back(study=study, bar=bar, name="Round 1 top", user=owner)
    assert str(refused.value) == "; ".join(problems.values())
    assert not ParticipantGroup.objects.exists() and not fake_prolific.groups and not fake_prolific.requests


@pytest.mark.parametrize("bar", [Bar(), Bar(min_quality=0), Bar(min_gold=1), Bar(min_quality=1, min_gold=0),
                                 Bar(min_quality=0.5, no_exclusions=False)])
def test_a_bar_within_bounds_has_no_problem(bar):
    assert bar.problems() == {}


def _invite(study, owner, ids=TOP, name="Round 1 top"):
    return rounds.invite_back(study=study, bar=Bar(min_quality=0.8), name=name, user=owner, participant_ids=ids)


def test_invite_back_makes_the_group_on_prolific_with_its_members(fake_prolific, owner, study):
    group = _invite(study, owner)
    assert group.prolific_id in fake_prolific.groups
    assert sorted(fake_prolific.members[group.prolific_id]) == TOP
    assert fake_prolific.groups[group.prolific_id]["workspace_id"] == fake_prolific.workspaces[0]["id"]
    assert group.members.filter(added_at__isnull=False).count() == 2


def test_invite_back_again_duplicates_nothing(fake_prolific, owner, study):
    first = _invite(study, owner)
    again = _invite(study, owner)
    assert again.pk == first.pk and len(fake_prolific.groups) == 1
    assert len(fake_prolific.calls("POST", r"participant-groups/")) == 1
    assert len(fake_prolific.calls("POST", r"participant-groups/[0-9a-f]+/participants/")) == 1


def test_invite_back_resumes_after_a_failure_half_way(fake_prolific, owner, study):
    fake_prolific.fail_next("POST", r"participant-groups/[0-9a-f]+/participants/", 500, times=2)
    with pytest.raises(ProlificServerError):
        _invite(study, owner)
    group = ParticipantGroup.objects.get()
    assert group.prolific_id and not group.members.filter(added_at__isnull=False).exists()
    _invite(study, owner)
    assert len(fake_prolific.groups) == 1 and sorted(fake_prolific.members[group.prolific_id]) == TOP


def test_invite_back_finds_a_group_prolific_made_before_the_answer_was_lost(fake_prolific, owner, study):
    fake_prolific.hang_next("POST", r"participant-groups/", 3, after_processing=True)
    with pytest.raises(ProlificUnavailable):
        _invite(study, owner)
    _invite(study, owner)
    assert len(fake_prolific.groups) == 1


def test_it_refuses_the_same_name_for_another_study(fake_prolific, owner, study):
    _invite(study, owner)
    with pytest.raises(RecruitmentRefused, match="another name"):
        _invite(f.make_study(owner, name="Pilot"), owner)


def test_it_refuses_an_invite_back_nobody_meets(fake_prolific, owner, study):
    with pytest.raises(RecruitmentRefused, match="Nobody"):
        _invite(study, owner, ids=[])
    assert not fake_prolific.groups


def test_another_researcher_neither_sees_nor_uses_my_groups(fake_prolific, owner, other_researcher, study):
    group = _invite(study, owner)
    assert not rounds.groups_of(user=other_researcher).exists()
    with pytest.raises(Http404):
        rounds.group_for_user(user=other_researcher, pk=group.pk)
    theirs = f.make_study(other_researcher, name="Theirs")
    pool = f.make_pool(theirs, "IN", "India")
    f.make_items(theirs, "IN", 2)
    result_error = None
    try:
        prolific_study_launch(pool=pool, user=other_researcher,
                              options=LaunchOptions(reward=150, estimated_minutes=10, allow_groups=(group.pk,)))
    except RecruitmentRefused as exc:
        result_error = str(exc)
    assert result_error and "not one of yours" in result_error
    assert not fake_prolific.studies


def test_the_block_list_refuses_nonsense_and_repeats(owner, other_researcher):
    with pytest.raises(RecruitmentRefused, match="letters and digits"):
        rounds.participant_block(user=owner, participant_id="not an id!", reason="spam")
    with pytest.raises(RecruitmentRefused, match="Say why"):
        rounds.participant_block(user=owner, participant_id=REST, reason=" ")
    rounds.participant_block(user=owner, participant_id=REST, reason="copied answers")
    with pytest.raises(RecruitmentRefused, match="already"):
        rounds.participant_block(user=owner, participant_id=REST, reason="again")
    assert not rounds.blocked_of(user=other_researcher).exists()
    assert not rounds.participant_unblock(user=other_researcher, participant_id=REST)
    assert BlockedParticipant.objects.count() == 1


def test_every_launch_sends_the_block_list(fake_prolific, owner, study, pool, items):
    rounds.participant_block(user=owner, participant_id=REST, reason="copied answers")
    row = prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10))
    sent = fake_prolific.calls("POST", r"studies/")[-1].body["filters"]
    blocklist = next(x for x in sent if x["filter_id"] == "participant_group_blocklist")
    (gid,) = blocklist["selected_values"]
    assert list(fake_prolific.members[gid]) == [REST]
    prolific_study_transition(prolific_study=row.prolific_study, verb="publish", user=owner)
    with pytest.raises(ValueError, match="excludes"):
        fake_prolific.submission_start(row.prolific_study.prolific_id, REST)


def test_a_launch_without_a_block_list_asks_prolific_nothing_more(fake_prolific, owner, study, pool, items):
    prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10))
    assert not fake_prolific.calls("GET", r"participant-groups/.*")
    assert [x["filter_id"] for x in fake_prolific.calls("POST", r"studies/")[-1].body["filters"]] == [
        "current-country-of-residence"]


def test_round_two_is_restricted_to_the_group_and_excludes_what_was_chosen(fake_prolific, owner, study, pool, items):
    first = prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10))
    group = _invite(study, owner)
    pilot_other = _invite(study, owner, ids=[REST], name="Others")
    round2 = f.make_study(owner, name="Round 2")
    pool2 = f.make_pool(round2, "IN", "India")
    f.make_items(round2, "IN", 2)
    options = LaunchOptions(reward=150, estimated_minutes=10, allow_groups=(group.pk,), block_groups=(pilot_other.pk,))
    prolific_study_launch(pool=pool2, user=owner, options=options)
    sent = fake_prolific.calls("POST", r"studies/")[-1].body["filters"]
    assert sent[1:] == [
        {"filter_id": "participant_group_allowlist", "selected_values": [group.prolific_id]},
        {"filter_id": "participant_group_blocklist", "selected_values": [pilot_other.prolific_id]},
    ]
    assert ProlificStudy.objects.get(pool=pool2).filters == sent
    # Excluding an earlier study's participants: resolved to its Prolific studies.
    round3 = f.make_study(owner, name="Round 3")
    pool3 = f.make_pool(round3, "IN", "India")
    f.make_items(round3, "IN", 2)
    prolific_study_launch(pool=pool3, user=owner,
                          options=LaunchOptions(reward=150, estimated_minutes=10, exclude_studies=(study.pk,)))
    sent = fake_prolific.calls("POST", r"studies/")[-1].body["filters"]
    assert sent[-1] == {"filter_id": "previous_studies_blocklist",
                        "selected_values": [first.prolific_study.prolific_id]}


def test_it_refuses_to_exclude_the_study_a_restricted_group_came_from(fake_prolific, owner, study, pool, items):
    prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10))
    group = _invite(study, owner)
    round2 = f.make_study(owner, name="Round 2")
    pool2 = f.make_pool(round2, "IN", "India")
    f.make_items(round2, "IN", 2)
    options = LaunchOptions(reward=150, estimated_minutes=10, allow_groups=(group.pk,), exclude_studies=(study.pk,))
    with pytest.raises(RecruitmentRefused, match="drawn from a study you exclude"):
        prolific_study_launch(pool=pool2, user=owner, options=options)


def test_it_refuses_to_exclude_a_study_that_is_not_mine(fake_prolific, owner, other_researcher, study, pool, items):
    theirs = f.make_study(other_researcher, name="Theirs")
    with pytest.raises(RecruitmentRefused, match="not one of yours"):
        prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(
            reward=150, estimated_minutes=10, exclude_studies=(theirs.pk,)))


def test_the_fake_refuses_a_participant_outside_the_allowed_group(fake_prolific, owner, study, pool, items):
    group = _invite(study, owner)
    row = prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(
        reward=150, estimated_minutes=10, allow_groups=(group.pk,)))
    prolific_study_transition(prolific_study=row.prolific_study, verb="publish", user=owner)
    assert fake_prolific.submission_start(row.prolific_study.prolific_id, TOP[0])
    with pytest.raises(ValueError, match="not in the participant group"):
        fake_prolific.submission_start(row.prolific_study.prolific_id, REST)


def test_the_fake_answers_prolifics_errors_for_groups(fake_prolific):
    from recruitment.prolific import ProlificClient, ProlificRequestError

    with ProlificClient(fake_prolific.token, base_url=fake_prolific.url) as client:
        with pytest.raises(ProlificRequestError):
            client.participant_group_create(name="", workspace_id=fake_prolific.workspaces[0]["id"])
        with pytest.raises(ProlificRequestError):
            client.participant_group_add("0" * 24, ["x"])
        other = ProlificClient(fake_prolific.lab_add(), base_url=fake_prolific.url)
        mine = client.participant_group_create(name="G", workspace_id=fake_prolific.workspaces[0]["id"])
        with pytest.raises(ProlificRequestError):
            other.participant_group_members(mine["id"])
        client.participant_group_add(mine["id"], ["p1", "p2", "p1"])
        client.participant_group_remove(mine["id"], ["p2"])
        assert client.participant_group_members(mine["id"]) == ["p1"]
        assert [g["name"] for g in client.participant_groups(fake_prolific.workspaces[0]["id"])] == ["G"]
        other.close()


# --- manage.py prolific invite-back, groups, block, unblock, blocked ------------------------------


def test_the_command_invites_back_blocks_and_lists(fake_prolific, owner, study, pool, items, monkeypatch):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    monkeypatch.setattr(rounds, "_score_source", [lambda s: [ScoreRow(TOP[0], 0.9, 1.0, False),
                                                             ScoreRow(REST, 0.2, 1.0, False)]])
    out = StringIO()
    call_command("prolific", "invite-back", str(study.pk), "--name", "Top", "--min-quality", "0.8", "--dry-run",
                 stdout=out)
    assert "1 of 2 annotators meet the bar" in out.getvalue() and not fake_prolific.groups
    call_command("prolific", "invite-back", str(study.pk), "--name", "Top", "--min-quality", "0.8", stdout=out)
    assert list(fake_prolific.members[ParticipantGroup.objects.get().prolific_id]) == [TOP[0]]
    with pytest.raises(CommandError, match="between 0 and 1"):
        call_command("prolific", "invite-back", str(study.pk), "--name", "X", "--min-gold", "7")
    call_command("prolific", "block", REST, "--reason", "copied answers", "--as", owner.username, stdout=out)
    call_command("prolific", "blocked", "--as", owner.username, stdout=out)
    call_command("prolific", "groups", "--as", owner.username, stdout=out)
    assert REST in out.getvalue() and "Top" in out.getvalue()
    call_command("prolific", "launch", str(study.pk), "--reward", "150", "--minutes", "10", "--pool", "IN",
                 "--only-group", "Top", stdout=out)
    sent = fake_prolific.calls("POST", r"studies/")[-1].body["filters"]
    assert [x["filter_id"] for x in sent] == [
        "current-country-of-residence", "participant_group_allowlist", "participant_group_blocklist"]
    call_command("prolific", "unblock", REST, "--as", owner.username, stdout=out)
    with pytest.raises(CommandError, match="not on the block list"):
        call_command("prolific", "unblock", REST, "--as", owner.username)

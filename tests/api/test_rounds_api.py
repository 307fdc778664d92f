"""/api/v1/participant-groups/ and /api/v1/blocked-participants/: the researcher's own groups (an
invite-back made or previewed, one read with its members) and block list (listed, added, removed),
against the fake Prolific. Each is its researcher's alone: another researcher 404, a member of the
study 403 on its invite-back, a checker's account 403, an annotator's browser and no login 401; every
refusal sends nothing to Prolific and writes nothing."""

import pytest

from recruitment.models import BlockedParticipant, ParticipantGroup
from recruitment.services import rounds
from recruitment.services.rounds import ScoreRow
from tests import factories as f

GROUPS = "/api/v1/participant-groups/"
BLOCKED = "/api/v1/blocked-participants/"
TOP = ["aa0000000000000000000001", "aa0000000000000000000002"]
LOW = "bb0000000000000000000003"
OUT = "cc0000000000000000000004"  # excluded by the researcher


@pytest.fixture(autouse=True)
def scores(monkeypatch):
    """The analysis's scores as the reader would give them (tests/recruitment/test_rounds_scores.py
    reads a real analysis run)."""
    rows = [ScoreRow(TOP[0], 0.9, 1.0, False), ScoreRow(TOP[1], 0.85, 0.9, False),
            ScoreRow(LOW, 0.3, 0.5, False), ScoreRow(OUT, 0.95, 1.0, True)]
    monkeypatch.setattr(rounds, "_score_source", [lambda study: rows])


def invite(of, **body):
    return {"study": of.pk, "name": "Round 1 top", "min_quality": 0.8, **body}


def nothing_made(fake_prolific):
    assert not ParticipantGroup.objects.exists() and not fake_prolific.groups
    assert not fake_prolific.calls("POST", r"participant-groups/.*")


# --- participant groups ------------------------------------------------------------------------


def test_the_owner_previews_how_many_meet_the_bar_and_nothing_is_made(fake_prolific, owner, study, as_user):
    response = as_user(owner).post(GROUPS, {"study": study.pk, "min_quality": 0.8, "preview": True}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"count": 2, "annotators": 4}
    nothing_made(fake_prolific)


def test_a_preview_without_exclusions_counts_the_excluded_too(fake_prolific, owner, study, as_user):
    body = {"study": study.pk, "min_quality": 0.8, "no_exclusions": False, "preview": True}
    assert as_user(owner).post(GROUPS, body, format="json").json() == {"count": 3, "annotators": 4}


def test_the_owner_invites_back_and_reads_the_group_with_its_members(fake_prolific, owner, study, as_user):
    client = as_user(owner)
    response = client.post(GROUPS, invite(study, min_gold=0.9), format="json")
    assert response.status_code == 201, response.json()
    made = response.json()
    group = ParticipantGroup.objects.get()
    assert made["id"] == group.pk and made["name"] == "Round 1 top" and made["study"] == study.pk
    assert made["bar"] == {"min_quality": 0.8, "min_gold": 0.9, "no_exclusions": True}
    assert made["prolific_id"] == group.prolific_id != "" and made["members"] == 2
    assert made["participants"] == [{"participant_id": pid, "on_prolific": True} for pid in TOP]
    assert response["Location"] == made["url"] and made["url"].endswith(f"{GROUPS}{group.pk}/")
    assert sorted(fake_prolific.members[group.prolific_id]) == TOP
    listed = client.get(GROUPS).json()
    assert [(g["id"], g["members"]) for g in listed["results"]] == [(group.pk, 2)]
    assert "participants" not in listed["results"][0]  # ids only in the one group's own resource
    assert client.get(made["url"]).json() == made


def test_posting_the_same_invite_back_again_duplicates_nothing(fake_prolific, owner, study, as_user):
    client = as_user(owner)
    first = client.post(GROUPS, invite(study), format="json").json()
    again = client.post(GROUPS, invite(study), format="json")
    assert again.status_code == 201 and again.json()["id"] == first["id"]
    assert len(fake_prolific.groups) == 1 and ParticipantGroup.objects.count() == 1


def test_the_same_name_for_another_bar_is_a_409(fake_prolific, owner, study, as_user):
    client = as_user(owner)
    client.post(GROUPS, invite(study), format="json")
    response = client.post(GROUPS, invite(study, min_quality=0.5), format="json")
    assert response.status_code == 409 and "choose another name" in response.json()["detail"]
    assert ParticipantGroup.objects.count() == 1 and len(fake_prolific.groups) == 1


def test_a_bar_nobody_meets_is_a_409_and_nothing_is_made(fake_prolific, owner, study, as_user):
    response = as_user(owner).post(GROUPS, invite(study, min_quality=1.0), format="json")
    assert response.status_code == 409 and response.json()["detail"].startswith("Nobody in this study meets the bar")
    nothing_made(fake_prolific)


@pytest.mark.parametrize("body, field, says", [
    ({"min_quality": 1.5}, "min_quality", "Give a number between 0 and 1 (e.g. 0.8), or leave it empty."),
    ({"min_gold": -0.1}, "min_gold", "Give a number between 0 and 1 (e.g. 0.8), or leave it empty."),
    ({"min_quality": None, "no_exclusions": False}, "min_quality",
     "Set at least one part of the bar: a least quality score, a least gold accuracy, or no exclusions."),
    ({"min_quality": "high"}, "min_quality", "A valid number is required."),
    ({"name": ""}, "name", "This field is required."),
    ({"name": "x" * 121}, "name", "Ensure this value has at most 120 characters (it has 121)."),
    ({"study": "one"}, "study", "A valid integer is required."),
    ({"colour": "red"}, "colour", "Unknown field."),
])
def test_a_bad_invite_back_is_a_400_naming_the_field_and_nothing_is_made(
    fake_prolific, owner, study, as_user, body, field, says
):
    response = as_user(owner).post(GROUPS, invite(study, **body), format="json")
    assert response.status_code == 400 and response.json()[field] == [says], response.json()
    nothing_made(fake_prolific)


def test_a_preview_with_a_bad_bar_is_a_400_too(fake_prolific, owner, study, as_user):
    response = as_user(owner).post(GROUPS, {"study": study.pk, "min_gold": 2, "preview": True}, format="json")
    assert response.status_code == 400 and list(response.json()) == ["min_gold"]


@pytest.mark.parametrize("preview", [False, True])
def test_only_the_studys_owner_invites_back_or_previews(fake_prolific, study, refuse_all_but_the_owner, preview):
    refuse_all_but_the_owner("post", GROUPS, invite(study, preview=preview))
    nothing_made(fake_prolific)


def test_a_study_that_does_not_exist_is_a_404(fake_prolific, owner, study, as_user):
    response = as_user(owner).post(GROUPS, {**invite(study), "study": study.pk + 1000}, format="json")
    assert response.status_code == 404
    nothing_made(fake_prolific)


def test_without_a_prolific_token_it_is_a_409(fake_prolific, no_deployment_token, owner, study, as_user):  # noqa: F811
    response = as_user(owner).post(GROUPS, invite(study), format="json")
    assert response.status_code == 409 and "token" in response.json()["detail"].lower()
    assert not fake_prolific.groups


def test_prolific_refusing_is_a_502_and_the_post_again_resumes(fake_prolific, owner, study, as_user):
    client = as_user(owner)
    fake_prolific.fail_next("POST", r"participant-groups/[0-9a-f]+/participants/", 500, times=2)
    assert client.post(GROUPS, invite(study), format="json").status_code == 502
    assert client.post(GROUPS, invite(study), format="json").status_code == 201
    (gid,) = fake_prolific.groups
    assert sorted(fake_prolific.members[gid]) == TOP


def test_nobody_else_reads_or_lists_my_group(
    fake_prolific, owner, study, viewer, editor, other_researcher, checker, as_user, anonymous, pool
):
    group = as_user(owner).post(GROUPS, invite(study), format="json").json()
    one = f"{GROUPS}{group['id']}/"
    for who in (viewer, editor, other_researcher):  # researchers all: the group is not theirs
        assert as_user(who).get(one).status_code == 404, who
        assert as_user(who).get(GROUPS).json()["results"] == [], who
    assert anonymous.get(one).status_code == 401 and anonymous.get(GROUPS).status_code == 401
    anonymous.get(f.entry_url(pool))  # an annotator's browser: no account
    assert anonymous.get(one).status_code == 401 and anonymous.get(GROUPS).status_code == 401
    anonymous.force_login(checker)
    assert anonymous.get(one).status_code == 403 and anonymous.get(GROUPS).status_code == 403


def test_the_group_list_costs_a_fixed_number_of_queries(fake_prolific, owner, study, as_user,
                                                        django_assert_num_queries):
    client = as_user(owner)
    for name in ("A", "B", "C"):
        client.post(GROUPS, invite(study, name=name), format="json")
    client.get(GROUPS)  # the token's last use written once a minute: not counted below
    with django_assert_num_queries(2):  # the token (a staff account: no study read), the page with its counts
        assert len(client.get(GROUPS).json()["results"]) == 3


# --- the block list ----------------------------------------------------------------------------


def test_the_researcher_blocks_lists_reads_and_unblocks(owner, as_user):
    client = as_user(owner)
    response = client.post(BLOCKED, {"participant_id": LOW, "reason": "copied answers"}, format="json")
    assert response.status_code == 201, response.json()
    entry = response.json()
    assert (entry["participant_id"], entry["reason"], entry["blocked_by"]) == (LOW, "copied answers", "owner")
    assert client.get(BLOCKED).json()["results"] == [entry]
    assert client.get(f"{BLOCKED}{LOW}/").json() == entry
    assert client.delete(f"{BLOCKED}{LOW}/").status_code == 204
    assert not BlockedParticipant.objects.exists()
    assert client.delete(f"{BLOCKED}{LOW}/").status_code == 404  # not on the list (any more)


@pytest.mark.parametrize("body, field, says", [
    ({"participant_id": LOW, "reason": ""}, "reason", "This field is required."),
    ({"participant_id": LOW, "reason": "   "}, "reason", "This field is required."),
    ({"participant_id": LOW, "reason": "x" * 501}, "reason",
     "Ensure this value has at most 500 characters (it has 501)."),
    ({"participant_id": "not an id!", "reason": "spam"}, "participant_id",
     "A Prolific participant id is letters and digits (24 characters, usually)."),
    ({"participant_id": "", "reason": "spam"}, "participant_id", "This field is required."),
    ({"reason": "spam"}, "participant_id", "This field is required."),
    ({"participant_id": LOW, "reason": "spam", "until": "never"}, "until", "Unknown field."),
])
def test_a_bad_block_is_a_400_naming_the_field_and_nothing_is_written(owner, as_user, body, field, says):
    response = as_user(owner).post(BLOCKED, body, format="json")
    assert response.status_code == 400 and response.json()[field] == [says], response.json()
    assert not BlockedParticipant.objects.exists()


def test_blocking_someone_twice_is_a_400_and_the_first_reason_stays(owner, as_user):
    client = as_user(owner)
    client.post(BLOCKED, {"participant_id": LOW, "reason": "copied answers"}, format="json")
    response = client.post(BLOCKED, {"participant_id": LOW, "reason": "again"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"participant_id": ["This participant is on your block list already."]}
    assert list(BlockedParticipant.objects.values_list("reason", flat=True)) == ["copied answers"]


def test_a_block_list_is_its_researchers_alone(owner, study, pool, viewer, other_researcher, checker, as_user,
                                               anonymous):
    as_user(owner).post(BLOCKED, {"participant_id": LOW, "reason": "copied answers"}, format="json")
    one = f"{BLOCKED}{LOW}/"
    for who in (viewer, other_researcher):
        client = as_user(who)
        assert client.get(BLOCKED).json()["results"] == [] and client.get(one).status_code == 404
        assert client.delete(one).status_code == 404
    assert anonymous.delete(one).status_code == 401 and anonymous.post(
        BLOCKED, {"participant_id": OUT, "reason": "spam"}, format="json").status_code == 401
    anonymous.get(f.entry_url(pool))  # an annotator's browser
    assert anonymous.get(BLOCKED).status_code == 401 and anonymous.delete(one).status_code == 401
    anonymous.force_login(checker)
    assert anonymous.get(BLOCKED).status_code == 403 and anonymous.delete(one).status_code == 403
    assert anonymous.post(BLOCKED, {"participant_id": OUT, "reason": "spam"}, format="json").status_code == 403
    assert list(BlockedParticipant.objects.values_list("owner__username", "participant_id")) == [("owner", LOW)]
    # another researcher blocks the same participant on their own list
    theirs = as_user(other_researcher).post(BLOCKED, {"participant_id": LOW, "reason": "theirs"}, format="json")
    assert theirs.status_code == 201 and BlockedParticipant.objects.count() == 2


def test_an_excluded_annotator_is_never_invited_back_over_the_api(fake_prolific, owner, study, as_user):
    response = as_user(owner).post(GROUPS, invite(study), format="json")  # OUT's quality 0.95 meets the bar
    assert [p["participant_id"] for p in response.json()["participants"]] == TOP
    assert OUT not in fake_prolific.members[ParticipantGroup.objects.get().prolific_id]

"""/api/v1/studies/{id}/prolific/: the pools' link status, the launch and the transitions, against the
fake Prolific; the owner's only (a member 403, another researcher 404, a checker 403, no login 401),
and nothing is sent to Prolific for anyone refused."""

import pytest

from recruitment.models import ProlificStudy
from recruitment.services import LaunchOptions, prolific_study_launch

LAUNCH = {"reward": "1.50", "minutes": 10, "filters": ["Nationality"]}


def url(study, rest=""):
    return f"/api/v1/studies/{study.pk}/prolific/{rest}"


@pytest.fixture
def drafts(fake_prolific, owner, pool, other_pool, items):  # noqa: F811
    options = LaunchOptions(reward=150, estimated_minutes=10)
    return [prolific_study_launch(pool=p, user=owner, options=options).prolific_study for p in (pool, other_pool)]


def test_a_study_not_on_prolific_lists_nothing(study, pool, as_user):
    response = as_user(study.owner).get(url(study))
    assert response.status_code == 200 and response.json()["results"] == []


def test_the_owner_launches_every_pool_as_drafts_and_sees_their_status(
    fake_prolific, owner, study, pool, other_pool, items, as_user  # noqa: F811
):
    client = as_user(owner)
    response = client.post(url(study, "launch/"), LAUNCH, format="json")
    assert response.status_code == 200, response.json()
    launched = response.json()
    assert [(r["created"], r["prolific_study"]["country"]) for r in launched] == [(True, "IN"), (True, "JP")]
    india = launched[0]["prolific_study"]
    row = ProlificStudy.objects.get(pool=pool)
    assert india["prolific_id"] == row.prolific_id != "" and india["status"] == "UNPUBLISHED"
    assert (india["reward"], india["estimated_minutes"], india["devices"]) == (150, 10, ["desktop"])
    assert india["actions"] == ["publish"] and india["submissions"] == {}
    assert fake_prolific.studies[row.prolific_id]["reward"] == 150
    listed = client.get(url(study)).json()["results"]
    assert [r["pool"] for r in listed] == [pool.pk, other_pool.pk]
    again = client.post(url(study, "launch/"), LAUNCH, format="json").json()
    assert [r["created"] for r in again] == [False, False]  # already on Prolific: nothing created twice
    assert len(fake_prolific.studies) == 2


def test_a_launch_of_one_pool_leaves_the_others(fake_prolific, owner, study, pool, other_pool, items, as_user):  # noqa: F811
    response = as_user(owner).post(url(study, "launch/"), {**LAUNCH, "pool": other_pool.pk}, format="json")
    assert response.status_code == 200 and [r["prolific_study"]["pool"] for r in response.json()] == [other_pool.pk]
    assert list(ProlificStudy.objects.values_list("pool", flat=True)) == [other_pool.pk]


@pytest.mark.parametrize("body, field, says", [
    ({"minutes": 10}, "reward", "required"),
    ({**LAUNCH, "reward": "0"}, "reward", "greater than or equal to 0.01"),
    ({**LAUNCH, "reward": "1.505"}, "reward", "no more than 2 decimal places"),
    ({**LAUNCH, "reward": "nope"}, "reward", "valid number"),
    ({**LAUNCH, "minutes": 0}, "minutes", "greater than or equal to 1"),
    ({**LAUNCH, "minutes": 10**30}, "minutes", "less than or equal to 600"),
    ({**LAUNCH, "devices": ["watch"]}, "devices", "Select a valid choice"),
    ({**LAUNCH, "devices": "desktop"}, "devices", "list"),
    ({**LAUNCH, "filters": ["=Hindi"]}, "filters", "names no filter"),
    ({**LAUNCH, "description": ["a list"]}, "description", "Not a valid string"),
    ({**LAUNCH, "pool": 10**12}, "pool", "less than or equal to"),
    ({**LAUNCH, "colour": "red"}, "colour", "Unknown field"),
])
def test_a_bad_launch_is_a_400_naming_the_field_and_nothing_is_sent(
    fake_prolific, owner, study, pool, items, as_user, body, field, says  # noqa: F811
):
    response = as_user(owner).post(url(study, "launch/"), body, format="json")
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()
    assert fake_prolific.requests == [] and not ProlificStudy.objects.exists()


def test_a_pool_of_another_study_is_refused_by_name(fake_prolific, owner, study, pool, items, as_user):  # noqa: F811
    from tests import factories as f

    elsewhere = f.make_pool(f.make_study(owner, name="Another"), "KE", "Kenya")
    response = as_user(owner).post(url(study, "launch/"), {**LAUNCH, "pool": elsewhere.pk}, format="json")
    assert response.status_code == 400 and response.json() == {"pool": ["Not a pool of this study."]}
    assert fake_prolific.requests == []


def test_a_launch_under_prolifics_minimum_pay_says_why(fake_prolific, owner, study, pool, items, as_user):  # noqa: F811
    response = as_user(owner).post(url(study, "launch/"), {**LAUNCH, "reward": "0.10"}, format="json")
    assert response.status_code == 409 and "under Prolific's minimum of £6.00 per hour" in response.json()["detail"]
    assert not ProlificStudy.objects.exclude(prolific_id="").exists()


def test_without_a_token_the_launch_is_a_409_with_the_pages_message(
    fake_prolific, no_deployment_token, owner, study, pool, items, as_user  # noqa: F811
):
    response = as_user(owner).post(url(study, "launch/"), LAUNCH, format="json")
    assert response.status_code == 409 and response.json()["detail"].startswith("No Prolific token: add yours")
    assert fake_prolific.requests == []


def test_prolific_refusing_the_launch_is_a_502_naming_the_pool(fake_prolific, owner, study, pool, items, as_user):  # noqa: F811
    fake_prolific.fail_next("POST", "studies/", 400)
    response = as_user(owner).post(url(study, "launch/"), {**LAUNCH, "pool": pool.pk}, format="json")
    assert response.status_code == 502 and "India: Prolific refused POST studies/ (400)" in response.json()["detail"]
    assert ProlificStudy.objects.get(pool=pool).prolific_id == ""


def test_one_pool_refused_the_others_are_launched_and_each_result_says_so(
    fake_prolific, owner, study, pool, items, as_user  # noqa: F811
):
    fake_prolific.fail_next("POST", "studies/", 400)
    response = as_user(owner).post(url(study, "launch/"), LAUNCH, format="json")
    assert response.status_code == 200
    india, japan = response.json()
    assert not india["ok"] and india["error"].startswith("India: Prolific refused POST studies/ (400)")
    assert japan["ok"] and japan["created"] and japan["error"] == ""


def test_publish_one_pool_then_pause_every_pool(fake_prolific, owner, study, drafts, as_user):  # noqa: F811
    client, (india, japan) = as_user(owner), drafts
    response = client.post(url(study, "publish/"), {"pool": india.pool.pk}, format="json")
    assert response.status_code == 200
    assert response.json() == [{"pool": india.pool.pk, "ok": True, "message": "India: Active", "status": "ACTIVE"}]
    assert fake_prolific.studies[japan.prolific_id]["status"] == "UNPUBLISHED"
    paused = {r["pool"]: r for r in client.post(url(study, "pause/"), {}, format="json").json()}
    assert paused[india.pool.pk]["ok"] and paused[india.pool.pk]["status"] == "PAUSED"
    assert not paused[japan.pool.pk]["ok"] and "Japan: Prolific refused" in paused[japan.pool.pk]["message"]
    listed = {r["pool"]: r["actions"] for r in client.get(url(study)).json()["results"]}
    assert listed == {india.pool.pk: ["resume", "stop"], japan.pool.pk: ["publish"]}


def test_an_unknown_verb_is_a_404_and_a_study_not_on_prolific_a_409(fake_prolific, owner, study, pool, as_user):  # noqa: F811
    client = as_user(owner)
    assert client.post(url(study, "delete/"), {}, format="json").status_code == 404
    response = client.post(url(study, "publish/"), {}, format="json")
    assert response.status_code == 409 and response.json() == {"detail": "No pool of this study is on Prolific yet."}
    assert fake_prolific.requests == []


def test_the_status_list_costs_the_same_for_many_pools(
    owner, study, drafts, as_user, django_assert_max_num_queries
):
    client = as_user(owner)
    client.get(url(study))  # the token's first use is written once
    with django_assert_max_num_queries(4):  # the token, the study scoped, the page, the counts
        rows = client.get(url(study)).json()["results"]
    assert len(rows) == 2


def test_the_status_list_is_paged_by_a_cursor(owner, study, drafts, as_user, settings):
    settings.API_PAGE_SIZE = 1
    client = as_user(owner)
    page = client.get(url(study)).json()
    second = client.get(page["next"]).json()
    assert [r["pool"] for r in page["results"] + second["results"]] == [d.pool.pk for d in drafts]
    assert second["next"] is None


@pytest.mark.parametrize("method, rest, body", [
    ("get", "", None),
    ("post", "launch/", LAUNCH),
    ("post", "publish/", {}),
    ("post", "stop/", {}),
])
def test_only_the_owner_acts_and_nothing_is_sent_for_anyone_else(
    fake_prolific, study, drafts, editor, viewer, other_researcher, checker, as_user, anonymous,  # noqa: F811
    method, rest, body,
):
    before = len(fake_prolific.requests)
    for who, code in ((editor, 403), (viewer, 403), (other_researcher, 404)):
        response = getattr(as_user(who), method)(url(study, rest), body, format="json")
        assert response.status_code == code, (who, response.json())
    anonymous.force_login(checker)  # no token for a checker's account: their browser's session
    assert getattr(anonymous, method)(url(study, rest), body, format="json").status_code == 403
    anonymous.logout()
    assert getattr(anonymous, method)(url(study, rest), body, format="json").status_code == 401
    assert len(fake_prolific.requests) == before
    assert {s["status"] for s in fake_prolific.studies.values()} == {"UNPUBLISHED"}


def test_a_maximum_time_of_zero_is_refused_as_on_the_page(fake_prolific, owner, study, pool, items, as_user):  # noqa: F811
    response = as_user(owner).post(url(study, "launch/"), {**LAUNCH, "max_minutes": 0}, format="json")
    assert response.status_code == 400 and "greater than or equal to 1" in response.json()["max_minutes"][0]


@pytest.mark.parametrize("rest, body", [
    ("approve/", {"submissions": [1]}),
    ("bonuses/", {"pool": 1, "lines": ["x,1.00"]}),
    ("refresh/", {}),
    ("resume/", {}),
])
def test_the_actions_of_a_study_not_on_prolific_are_a_409(owner, study, pool, as_user, rest, body):
    response = as_user(owner).post(url(study, rest), body, format="json")
    assert response.status_code == 409 and response.json() == {"detail": "No pool of this study is on Prolific yet."}


def test_the_api_launch_takes_the_pages_screen_out_secured_entry_and_round_choices(
    fake_prolific, owner, study, pool, items, as_user  # noqa: F811
):
    from recruitment.services import rounds
    from recruitment.services.rounds import Bar

    group = rounds.invite_back(study=study, bar=Bar(min_quality=0.8), name="Round 1 top", user=owner,
                               participant_ids=["aa1b2c3d4e5f6a7b8c9d0e1f"])
    body = {**LAUNCH, "screen_out_reward": "0.10", "secured_entry": True, "allow_groups": [group.pk]}
    response = as_user(owner).post(url(study, "launch/"), body, format="json")
    assert response.status_code == 200, response.json()
    row = ProlificStudy.objects.get(pool=pool)
    assert (row.screen_out_reward, row.secured_entry) == (10, True)
    sent = fake_prolific.calls("POST", r"studies/")[-1].body
    assert sent["is_custom_screening"] is True
    assert {"filter_id": "participant_group_allowlist", "selected_values": [group.prolific_id]} in sent["filters"]


@pytest.mark.parametrize("body, field", [
    ({**LAUNCH, "allow_groups": [1]}, "allow_groups"),  # no group of the user's: refused, never dropped
    ({**LAUNCH, "exclude_studies": [1]}, "exclude_studies"),
    ({**LAUNCH, "allow_groups": "1"}, "allow_groups"),
    ({**LAUNCH, "screen_out_reward": "nope"}, "screen_out_reward"),
])
def test_a_launch_choice_the_user_cannot_make_is_a_400_and_nothing_is_sent(
    fake_prolific, owner, study, pool, items, as_user, body, field  # noqa: F811
):
    response = as_user(owner).post(url(study, "launch/"), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert fake_prolific.requests == [] and not ProlificStudy.objects.exists()

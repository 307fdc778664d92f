"""/api/v1/studies/{id}/prolific/messages/: a message to one participant of a pool's study or to all of
them, and the messages received, against the fake Prolific; the page's form and rules (a 400 naming the
field), a pool not on Prolific a 409, Prolific's refusal a 502; the owner's only, and nothing is sent
for anyone refused."""

import pytest

from recruitment.models import ProlificAction
from recruitment.services.messages import MESSAGE_MAX
from tests import factories as f
from tests.recruitment.review_helpers import read_back, take_part


def url(study):
    return f"/api/v1/studies/{study.pk}/prolific/messages/"


@pytest.fixture
def took_part(fake_prolific, live, owner):
    """Two participants of India's study, read back from Prolific: their Prolific ids."""
    ids = [take_part(fake_prolific, live) for _ in range(2)]
    subs = read_back(live, owner)
    return sorted(subs[i].participant_id for i in ids)


def test_the_owner_messages_one_participant(fake_prolific, owner, study, pool, live, took_part, as_user):
    response = as_user(owner).post(url(study), {"pool": pool.pk, "participant": took_part[0], "body": "Round 2!"},
                                   format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"sent": 1, "calls": 1, "summary": "Sent to 1 participant."}
    assert fake_prolific.messages_sent == [
        {"recipient_id": took_part[0], "study_id": live.prolific_id, "body": "Round 2!"}]
    assert ProlificAction.objects.filter(kind="message", ok=True, target=took_part[0]).exists()


def test_the_owner_messages_the_whole_pool(fake_prolific, owner, study, pool, live, took_part, as_user):
    response = as_user(owner).post(url(study), {"pool": pool.pk, "body": "Round 2 opens tomorrow."}, format="json")
    assert response.status_code == 200 and response.json()["sent"] == 2
    assert sorted(m["recipient_id"] for m in fake_prolific.messages_sent) == took_part
    assert len(fake_prolific.calls("POST", r"messages/bulk/")) == 1


@pytest.mark.parametrize(("body", "field", "says"), [
    ({"body": "Hi"}, "pool", "required"),
    ({"pool": 1, "body": "Hi", "colour": "red"}, "colour", "Unknown field"),
    ({"pool": 10**12, "body": "Hi"}, "pool", "less than or equal to"),
    ({"pool": "POOL", "body": ["Hi"]}, "body", "Not a valid string"),
    ({"pool": "POOL", "body": "   "}, "body", "may not be blank"),
    ({"pool": "POOL", "body": "x" * (MESSAGE_MAX + 1)}, "body", f"at most {MESSAGE_MAX}"),
    ({"pool": "POOL", "body": "Hi", "participant": "5f0000000000000000000000"}, "participant", "took no part"),
    ({"pool": "OTHER_STUDY", "body": "Hi"}, "pool", "Not a pool of this study"),
])
def test_a_message_that_breaks_a_rule_is_a_400_naming_the_field_and_nothing_is_sent(
    fake_prolific, owner, study, pool, live, took_part, as_user, body, field, says
):
    if body.get("pool") == "POOL":
        body = {**body, "pool": pool.pk}
    elif body.get("pool") == "OTHER_STUDY":
        body = {**body, "pool": f.make_pool(f.make_study(owner, name="Another"), "KE", "Kenya").pk}
    response = as_user(owner).post(url(study), body, format="json")
    assert response.status_code == 400 and says in " ".join(response.json()[field]), response.json()
    assert not fake_prolific.calls("POST", r"messages/.*")


def test_a_pool_not_on_prolific_is_a_409(fake_prolific, owner, study, other_pool, live, as_user):
    response = as_user(owner).post(url(study), {"pool": other_pool.pk, "body": "Hi"}, format="json")
    assert response.status_code == 409 and "not on Prolific" in response.json()["detail"]
    assert not fake_prolific.calls("POST", r"messages/.*")


def test_prolific_refusing_is_a_502_with_its_message(fake_prolific, owner, study, pool, live, took_part, as_user):
    fake_prolific.fail_next("POST", r"messages/bulk/", 400)
    response = as_user(owner).post(url(study), {"pool": pool.pk, "body": "Hi"}, format="json")
    assert response.status_code == 502 and "Injected failure 400" in response.json()["detail"]
    assert ProlificAction.objects.filter(kind="message_bulk", ok=False).exists()


def test_the_owner_reads_the_messages_about_the_study(fake_prolific, owner, study, live, took_part, as_user):
    fake_prolific.message_receive(sender_id=took_part[0], study_id=live.prolific_id, body="When is round 2?",
                                  sent_at="2999-01-01T10:00:00Z")
    fake_prolific.message_receive(sender_id=took_part[0], study_id="f" * 24, body="Another study",
                                  sent_at="2999-01-01T10:00:00Z")
    response = as_user(owner).get(url(study))
    assert response.status_code == 200
    [message] = response.json()
    assert (message["body"], message["sender_id"], message["study_id"]) == (
        "When is round 2?", took_part[0], live.prolific_id)


def test_no_pool_on_prolific_reads_nothing(fake_prolific, owner, study, pool, as_user):
    response = as_user(owner).get(url(study))
    assert response.status_code == 200 and response.json() == [] and not fake_prolific.requests


def test_prolific_failing_to_list_is_a_502(fake_prolific, owner, study, live, as_user):
    fake_prolific.fail_next("GET", r"messages/", 500, times=5)
    assert as_user(owner).get(url(study)).status_code == 502


@pytest.mark.parametrize("method", ["post", "get"])
def test_only_the_owner_sends_or_reads(fake_prolific, study, pool, live, took_part, refuse_all_but_the_owner, method):
    refuse_all_but_the_owner(method, url(study), {"pool": pool.pk, "body": "Hi"} if method == "post" else {})
    assert not fake_prolific.messages_sent and not fake_prolific.calls("GET", r"messages/")

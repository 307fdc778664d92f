"""Messages to a pool's Prolific participants and the messages received: the owner's only; the rules
(empty, too long, a participant not of the study) refuse before anything is sent."""

import pytest
from django.urls import reverse

from recruitment.models import ProlificAction
from recruitment.services.messages import MESSAGE_MAX, MessageRefused, prolific_message_send
from tests.helpers import enter, login


@pytest.fixture
def entered(client, fake_prolific, participant, pool):
    """The participant entered (their submission known here)."""
    pid, study_id, sub_id = participant
    enter(client, pool, pid=pid, study_id=study_id, session_id=sub_id)
    return pid


def send(client, study, pool, body="Round 2 opens tomorrow.", participant=""):
    return client.post(reverse("recruitment:message-send", args=[study.pk]),
                       {"pool": pool.pk, "participant": participant, "body": body})


def test_the_owner_messages_one_participant(client, owner, study, pool, fake_prolific, entered, on_prolific):
    response = send(login(client, owner), study, pool, participant=entered)
    assert response.status_code == 302
    assert fake_prolific.messages_sent == [
        {"recipient_id": entered, "study_id": on_prolific.prolific_id, "body": "Round 2 opens tomorrow."}]
    assert ProlificAction.objects.filter(kind="message", ok=True, target=entered).exists()


def test_the_owner_messages_the_whole_pool(client, owner, study, pool, fake_prolific, entered, on_prolific):
    second = fake_prolific.submission_start(on_prolific.prolific_id, "6a1a2b3c4d5e6f7a8b9c0d1e")
    from recruitment.services import prolific_study_sync

    prolific_study_sync(prolific_study=on_prolific, user=owner)
    send(login(client, owner), study, pool)
    assert {m["recipient_id"] for m in fake_prolific.messages_sent} == {entered, "6a1a2b3c4d5e6f7a8b9c0d1e"}
    assert fake_prolific.calls("POST", r"messages/bulk/")[0].body["study_id"] == on_prolific.prolific_id
    assert second and ProlificAction.objects.filter(kind="message_bulk", ok=True).count() == 1


def test_bulk_messages_go_in_chunks(monkeypatch, owner, pool, fake_prolific, entered, on_prolific):
    from recruitment.services import messages

    fake_prolific.submission_start(on_prolific.prolific_id, "6a1a2b3c4d5e6f7a8b9c0d1e")
    from recruitment.services import prolific_study_sync

    prolific_study_sync(prolific_study=on_prolific, user=owner)
    monkeypatch.setattr(messages, "BULK_CHUNK", 1)
    result = prolific_message_send(pool=pool, user=owner, body="Hello")
    assert (result.sent, result.calls) == (2, 2) and len(fake_prolific.calls("POST", r"messages/bulk/")) == 2


@pytest.mark.parametrize(("body", "recipient", "said"), [
    ("   ", "", "The message is empty"),
    ("x" * (MESSAGE_MAX + 1), "", f"at most {MESSAGE_MAX}"),
    ("Hello", "5f0000000000000000000000", "took no part"),
])
def test_it_refuses_a_message_that_breaks_a_rule(owner, pool, fake_prolific, entered, body, recipient, said):
    with pytest.raises(MessageRefused, match=said):
        prolific_message_send(pool=pool, user=owner, body=body, participant_id=recipient)
    assert not fake_prolific.calls("POST", r"messages/.*")


def test_it_refuses_a_pool_not_on_prolific(owner, other_pool, fake_prolific, on_prolific):
    with pytest.raises(MessageRefused, match="not on Prolific"):
        prolific_message_send(pool=other_pool, user=owner, body="Hello")


def test_the_page_says_why_nothing_was_sent(client, owner, study, pool, fake_prolific, entered):
    response = send(login(client, owner), study, pool, body="Hi", participant="5f0000000000000000000000")
    page = client.get(response.url).content.decode()
    assert "Not sent" in page and "took no part" in page and not fake_prolific.messages_sent


@pytest.mark.parametrize("who", ["other_researcher", "checker"])
def test_others_cannot_message_my_participants(client, request, study, pool, fake_prolific, entered, who):
    login(client, request.getfixturevalue(who))
    response = send(client, study, pool, participant=entered)
    assert response.status_code in (403, 404) and not fake_prolific.messages_sent


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_member_cannot_message_the_participants_nor_read_them(client, study, pool, fake_prolific, entered, role):
    from tests import factories as f

    login(client, f.make_member(study, role, role))
    assert send(client, study, pool, participant=entered).status_code == 403
    assert client.get(reverse("recruitment:messages", args=[study.pk])).status_code == 403
    assert not fake_prolific.messages_sent


def test_the_owner_reads_the_messages_about_the_study(client, owner, study, fake_prolific, entered, on_prolific):
    fake_prolific.message_receive(sender_id=entered, study_id=on_prolific.prolific_id, body="When is round 2?",
                                  sent_at="2999-01-01T10:00:00Z")
    fake_prolific.message_receive(sender_id=entered, study_id="f" * 24, body="About another study",
                                  sent_at="2999-01-01T10:00:00Z")
    page = login(client, owner).get(reverse("recruitment:messages", args=[study.pk])).content.decode()
    assert "When is round 2?" in page and "About another study" not in page
    assert "created_after" in fake_prolific.calls("GET", r"messages/")[0].query


@pytest.mark.parametrize("who", ["other_researcher", "checker"])
def test_others_cannot_read_my_messages(client, request, study, fake_prolific, on_prolific, who):
    login(client, request.getfixturevalue(who))
    assert client.get(reverse("recruitment:messages", args=[study.pk])).status_code in (403, 404)
    assert not fake_prolific.calls("GET", r"messages/")


def test_prolific_failing_is_said_in_place(client, owner, study, fake_prolific, on_prolific):
    fake_prolific.fail_next("GET", r"messages/", 500, times=5)
    page = login(client, owner).get(reverse("recruitment:messages", args=[study.pk])).content.decode()
    assert "could not be read" in page

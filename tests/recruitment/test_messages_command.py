"""manage.py prolific message|messages: a message to one participant of a pool's study or to all of
them, and the messages received, against the fake Prolific; a rule broken or Prolific's refusal is a
CommandError with the reason, and nothing is sent."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from recruitment.models import ProlificAction
from recruitment.services.messages import MESSAGE_MAX

from .review_helpers import read_back, take_part


def run(*args) -> str:
    out = StringIO()
    call_command("prolific", *map(str, args), stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def took_part(fake_prolific, on_prolific, owner):
    """Two participants of India's study, read back from Prolific: their Prolific ids."""
    fake_prolific.studies[on_prolific.prolific_id]["total_available_places"] = 50
    ids = [take_part(fake_prolific, on_prolific) for _ in range(2)]
    subs = read_back(on_prolific, owner)
    return sorted(subs[i].participant_id for i in ids)


def test_it_messages_one_participant(fake_prolific, study, on_prolific, took_part):
    out = run("message", study.pk, "--pool", "in", "--participant", took_part[0], "--body", "Round 2!")
    assert "India (IN): Sent to 1 participant." in out
    assert fake_prolific.messages_sent == [
        {"recipient_id": took_part[0], "study_id": on_prolific.prolific_id, "body": "Round 2!"}]
    assert ProlificAction.objects.filter(kind="message", ok=True).count() == 1


def test_it_messages_the_whole_pool(fake_prolific, study, on_prolific, took_part):
    out = run("message", study.pk, "--pool", "IN", "--body", "Round 2 opens tomorrow.")
    assert "Sent to 2 participants." in out
    assert sorted(m["recipient_id"] for m in fake_prolific.messages_sent) == took_part


@pytest.mark.parametrize(("args", "says"), [
    (("--pool", "IN", "--body", "   "), "The message is empty"),
    (("--pool", "IN", "--body", "x" * (MESSAGE_MAX + 1)), f"at most {MESSAGE_MAX}"),
    (("--pool", "IN", "--participant", "5f0000000000000000000000", "--body", "Hi"), "took no part"),
    (("--pool", "JP", "--body", "Hi"), "not on Prolific"),
    (("--pool", "KE", "--body", "Hi"), "no pool KE"),
    (("--body", "Hi"), "--pool is required"),
])
def test_it_refuses_and_sends_nothing(fake_prolific, study, other_pool, on_prolific, took_part, args, says):
    with pytest.raises(CommandError, match=says):
        run("message", study.pk, *args)
    assert not fake_prolific.calls("POST", r"messages/.*")


def test_prolific_refusing_is_said(fake_prolific, study, on_prolific, took_part):
    fake_prolific.fail_next("POST", r"messages/bulk/", 400)
    with pytest.raises(CommandError, match="Injected failure 400"):
        run("message", study.pk, "--pool", "IN", "--body", "Hi")
    assert ProlificAction.objects.filter(kind="message_bulk", ok=False).exists()


def test_it_lists_the_messages_about_the_study(fake_prolific, study, on_prolific, took_part):
    fake_prolific.message_receive(sender_id=took_part[0], study_id=on_prolific.prolific_id, body="When is round 2?",
                                  sent_at="2999-01-01T10:00:00Z")
    fake_prolific.message_receive(sender_id=took_part[0], study_id="f" * 24, body="Another study",
                                  sent_at="2999-01-01T10:00:00Z")
    out = run("messages", study.pk)
    assert "When is round 2?" in out and took_part[0] in out and "Another study" not in out


def test_it_says_when_there_is_no_message(fake_prolific, study, on_prolific):
    assert "No message about this study's Prolific studies" in run("messages", study.pk)


def test_prolific_failing_to_list_is_said(fake_prolific, study, on_prolific):
    fake_prolific.fail_next("GET", r"messages/", 500, times=5)
    with pytest.raises(CommandError):
        run("messages", study.pk)

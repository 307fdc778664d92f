"""Prolific's webhooks: set up by the command and the page's button, and their deliveries
verified (signature over the raw body and timestamp, freshness, one application per event id)."""

import json
import time

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Annotator, Assignment
from annotation.services import assignment_next
from recruitment.models import ProlificEvent, ProlificStudy, ProlificSubmission, ProlificWebhook
from studies.models import ItemQuota
from tests.helpers import enter, login

from .fake_prolific import sign

WEBHOOK = "/prolific/webhook/"


@pytest.fixture
def https_site(settings):
    settings.SITE_URL = "https://testserver"


@pytest.fixture
def hooked(fake_prolific, https_site, owner, on_prolific):
    call_command("prolific", "webhooks", str(on_prolific.pool.study_id))
    return fake_prolific


@pytest.fixture
def leased(client, hooked, participant, pool):
    """The participant entered and holds a lease on an item of India: (session, assignment)."""
    pid, study_id, session_id = participant
    enter(client, pool, pid=pid, study_id=study_id, session_id=session_id)
    Annotator.objects.update(consented_at="2026-01-01T00:00Z", cleared_at="2026-01-01T00:00Z")
    session = ProlificSubmission.objects.get().session
    hooked.events.clear()  # the ACTIVE event of the start
    return session, assignment_next(session=session)


def secret(fake):
    return next(iter(fake.hook_secrets.values()))["value"]


def post(client, body, *, key, age=0, event_id="evt-1", signature=None):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    stamp = str(int(time.time()) - age)
    return client.post(
        WEBHOOK, data=raw, content_type="application/json",
        HTTP_X_PROLIFIC_REQUEST_SIGNATURE=signature or sign(key, stamp, raw),
        HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp, HTTP_X_EVENT_ID=event_id,
    )


def returned(sid):
    return {"resource_id": sid, "event_type": "submission.status.change", "participant_id": "p", "status": "RETURNED"}


def test_the_command_creates_the_secret_and_both_subscriptions_once(hooked, on_prolific, capsys):
    subs = list(hooked.subscriptions.values())
    assert sorted(s["event_type"] for s in subs) == ["study.status.change", "submission.status.change"]
    assert all(s["is_enabled"] and s["target_url"] == "https://testserver/prolific/webhook/" for s in subs)
    row = ProlificWebhook.objects.get()
    assert secret(hooked) not in row.secret_ciphertext  # stored encrypted
    call_command("prolific", "webhooks", str(on_prolific.pool.study_id))
    assert "signing secret kept" in capsys.readouterr().out
    assert len(hooked.subscriptions) == 2 and len(hooked.calls("POST", r"hooks/secrets/")) == 1


def test_the_command_refuses_a_site_prolific_cannot_reach(fake_prolific, on_prolific):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="https"):
        call_command("prolific", "webhooks", str(on_prolific.pool.study_id))
    assert not fake_prolific.calls("POST", r"hooks/.*")


def test_the_owner_sets_them_up_from_the_study_page(fake_prolific, https_site, owner, other_researcher, on_prolific):
    url = reverse("recruitment:study-webhooks", args=[on_prolific.pool.study_id])
    assert login(Client(), other_researcher).post(url).status_code == 404
    assert not fake_prolific.subscriptions
    response = login(Client(), owner).post(url)
    assert response.status_code == 302 and len(fake_prolific.subscriptions) == 2
    page = login(Client(), owner).get(response.url).content.decode()
    assert "submission.status.change" in page and "Check the webhooks" in page


def test_a_returned_submission_gives_its_lease_back(hooked, leased, participant, pool):
    session, lease = leased
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 1
    hooked.submission_return(participant[2])
    [response] = hooked.deliver(Client(enforce_csrf_checks=True))
    assert response.status_code == 200
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 0
    row = ProlificSubmission.objects.get()
    assert row.status == "RETURNED" and row.released_at is not None


@pytest.mark.parametrize("status", ["TIMED-OUT", "REJECTED"])
def test_timed_out_and_rejected_give_the_lease_back_too(hooked, leased, participant, pool, status):
    session, lease = leased
    hooked.submission_return(participant[2], status)
    assert hooked.deliver(Client())[0].status_code == 200
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 0
    assert ProlificSubmission.objects.get().status == status


def test_a_replayed_event_does_nothing(hooked, leased, participant, pool):
    session, lease = leased
    assert post(Client(), returned(participant[2]), key=secret(hooked)).status_code == 200
    assert ProlificSubmission.objects.get().status == "RETURNED"
    ProlificSubmission.objects.update(status="ACTIVE")  # as a later read of Prolific said
    response = post(Client(), returned(participant[2]), key=secret(hooked))  # the same X-Event-ID
    assert response.status_code == 200 and response.json()["message"] == "already applied"
    assert ProlificSubmission.objects.get().status == "ACTIVE"  # the replay changed nothing
    assert ProlificEvent.objects.count() == 1


def test_prolifics_duplicate_delivery_is_applied_once(hooked, leased, participant):
    hooked.submission_return(participant[2])
    first, second = hooked.deliver(Client(), repeat=2)
    assert first.status_code == second.status_code == 200
    assert second.json()["message"] == "already applied" and ProlificEvent.objects.count() == 1


def test_it_refuses_a_forged_signature(hooked, leased, participant, pool):
    session, lease = leased
    hooked.submission_return(participant[2])
    [response] = hooked.deliver(Client(), secret="not-the-workspace-secret")
    assert response.status_code == 403
    assert post(Client(), returned(participant[2]), key=secret(hooked), signature="AAAA").status_code == 403
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.LEASED
    assert ProlificSubmission.objects.get().status == "ACTIVE" and not ProlificEvent.objects.exists()


def test_it_refuses_a_body_altered_after_signing(hooked, leased, participant):
    hooked.submission_return(participant[2])
    [response] = hooked.deliver(Client(), tamper=True)
    assert response.status_code == 403 and ProlificSubmission.objects.get().status == "ACTIVE"


def test_it_refuses_a_stale_timestamp(hooked, leased, participant):
    hooked.submission_return(participant[2])
    [response] = hooked.deliver(Client(), age=3600)
    assert response.status_code == 403 and response.json()["message"] == "stale timestamp"
    assert ProlificSubmission.objects.get().status == "ACTIVE" and not ProlificEvent.objects.exists()


def test_a_study_status_change_is_mirrored(hooked, on_prolific, owner):
    from recruitment.services import prolific_study_transition

    hooked.events.clear()
    prolific_study_transition(prolific_study=on_prolific, verb="pause", user=owner)
    ProlificStudy.objects.filter(pk=on_prolific.pk).update(status="ACTIVE")  # as if our answer was lost
    [response] = hooked.deliver(Client())
    assert response.status_code == 200
    on_prolific.refresh_from_db()
    assert on_prolific.status == "PAUSED"


@pytest.mark.parametrize(
    "body, status",
    [
        (b"not json", 400),
        (b"[1, 2]", 400),
        (b'{"resource_id": "x"}', 400),
        (json.dumps({"event_type": "submission.status.change", "resource_id": "0" * 24, "status": "RETURNED"}).encode(),
         200),
        (json.dumps({"event_type": "study.status.change", "resource_id": "", "status": "PAUSED"}).encode(), 200),
        (json.dumps({"event_type": "study.status.change", "resource_id": "0" * 24, "status": 7}).encode(), 200),
    ],
)
def test_bad_input_is_refused_or_ignored_never_an_error(hooked, on_prolific, body, status):
    response = post(Client(), body, key=secret(hooked), event_id=f"evt-{hash(body)}")
    assert response.status_code == status
    on_prolific.refresh_from_db()
    assert on_prolific.status == "ACTIVE"


def test_unsigned_oversized_and_get_requests_are_refused(hooked):
    assert Client().post(WEBHOOK, data=b"{}", content_type="application/json").status_code == 401
    big = b'{"event_type": "x", "pad": "' + b"a" * 70_000 + b'"}'
    assert post(Client(), big, key=secret(hooked)).status_code == 413
    assert Client().get(WEBHOOK).status_code == 405
    stamp = "yesterday"
    response = Client().post(WEBHOOK, data=b"{}", content_type="application/json",
                             HTTP_X_PROLIFIC_REQUEST_SIGNATURE="x", HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp)
    assert response.status_code == 400


def test_a_timestamp_in_milliseconds_is_read_too(hooked, leased, participant):
    raw = json.dumps(returned(participant[2])).encode()
    stamp = str(int(time.time() * 1000))
    response = Client().post(
        WEBHOOK, data=raw, content_type="application/json", HTTP_X_EVENT_ID="evt-ms",
        HTTP_X_PROLIFIC_REQUEST_SIGNATURE=sign(secret(hooked), stamp, raw), HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp,
    )
    assert response.status_code == 200 and ProlificSubmission.objects.get().status == "RETURNED"
    stale = str(int(time.time() * 1000) - 3_600_000)
    response = Client().post(
        WEBHOOK, data=raw, content_type="application/json", HTTP_X_EVENT_ID="evt-ms-2",
        HTTP_X_PROLIFIC_REQUEST_SIGNATURE=sign(secret(hooked), stale, raw), HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stale,
    )
    assert response.status_code == 403


def test_a_delivery_signed_over_prolifics_reserialised_body_is_accepted(hooked, leased, participant):
    event = returned(participant[2])
    raw = json.dumps(event, indent=2).encode()  # what arrives; the docs' example signs json.dumps(parsed)
    stamp = str(int(time.time()))
    response = Client().post(
        WEBHOOK, data=raw, content_type="application/json", HTTP_X_EVENT_ID="evt-re",
        HTTP_X_PROLIFIC_REQUEST_SIGNATURE=sign(secret(hooked), stamp, json.dumps(event).encode()),
        HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp,
    )
    assert response.status_code == 200 and ProlificSubmission.objects.get().status == "RETURNED"


def test_event_ids_are_forgotten_after_a_week(hooked, leased, participant):
    from datetime import timedelta

    from django.utils import timezone

    from recruitment.tasks import prolific_sync_task

    assert post(Client(), returned(participant[2]), key=secret(hooked), event_id="old").status_code == 200
    later = {**returned(participant[2]), "status": "TIMED-OUT"}  # another delivery (the same one is a replay)
    assert post(Client(), later, key=secret(hooked), event_id="new").status_code == 200
    ProlificEvent.objects.filter(event_id="old").update(received_at=timezone.now() - timedelta(days=8))
    prolific_sync_task.delay()
    assert list(ProlificEvent.objects.values_list("event_id", flat=True)) == ["new"]


# --- two labs on one deployment: a workspace's secret acts on its own resources only ------------


@pytest.fixture
def lab_b(hooked, other_researcher):
    """A second lab: the other researcher's own Prolific token, which sees only its own workspace,
    and its webhooks set up through the real path; returns lab B's signing secret."""
    from recruitment.services.hooks import prolific_webhooks_setup
    from recruitment.tokens import token_set

    token_set(user=other_researcher, token=hooked.lab_add("Lab B"))
    [result] = prolific_webhooks_setup(user=other_researcher)
    hooked.events.clear()
    return next(s["value"] for s in hooked.hook_secrets.values() if s["workspace_id"] == result.workspace_id)


def test_the_launch_records_the_workspace_that_holds_the_study(hooked, on_prolific):
    on_prolific.refresh_from_db()
    assert on_prolific.workspace_id == hooked.workspaces[0]["id"]


def test_another_labs_secret_cannot_return_our_participant(hooked, lab_b, leased, participant, pool, caplog):
    session, lease = leased
    response = post(Client(), returned(participant[2]), key=lab_b, event_id="evt-b")
    assert response.status_code == 200 and "another workspace" in response.json()["message"]
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.LEASED
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 1
    row = ProlificSubmission.objects.get()
    assert row.status == "ACTIVE" and row.released_at is None
    assert ProlificEvent.objects.get(event_id="evt-b").workspace_id != ProlificStudy.objects.get().workspace_id
    assert "another workspace" in caplog.text and lab_b not in caplog.text
    # our own workspace's secret still acts on it
    assert post(Client(), returned(participant[2]), key=secret_of(hooked, 0)).status_code == 200
    assert ProlificSubmission.objects.get().status == "RETURNED"


def test_another_labs_secret_cannot_change_our_study(hooked, lab_b, on_prolific):
    body = {"resource_id": on_prolific.prolific_id, "event_type": "study.status.change", "status": "PAUSED"}
    response = post(Client(), body, key=lab_b, event_id="evt-b-study")
    assert response.status_code == 200 and "another workspace" in response.json()["message"]
    on_prolific.refresh_from_db()
    assert on_prolific.status == "ACTIVE"


def test_a_study_whose_workspace_is_not_known_is_left_to_the_sync(hooked, leased, participant, on_prolific):
    from recruitment.services import prolific_study_sync

    ProlificStudy.objects.update(workspace_id="")  # launched before workspaces were recorded
    response = post(Client(), returned(participant[2]), key=secret_of(hooked, 0))
    assert "not known" in response.json()["message"] and ProlificSubmission.objects.get().status == "ACTIVE"
    prolific_study_sync(prolific_study=ProlificStudy.objects.get(), user=on_prolific.pool.study.owner)
    assert ProlificStudy.objects.get().workspace_id == hooked.workspaces[0]["id"]


def test_each_lab_receives_only_the_events_of_its_own_studies(hooked, lab_b, leased, participant):
    hooked.submission_return(participant[2])
    assert [e["workspace_id"] for e in hooked.events] == [hooked.workspaces[0]["id"]]


def secret_of(fake, index):
    wid = fake.workspaces[index]["id"]
    return next(s["value"] for s in fake.hook_secrets.values() if s["workspace_id"] == wid)


# --- replays and order ---------------------------------------------------------------------------


def test_a_captured_delivery_resent_under_a_new_event_id_is_not_applied_again(hooked, leased, participant):
    hooked.submission_finish(participant[2], "NOT-A-CODE")  # AWAITING REVIEW, as Prolific signs it
    [delivery] = list(hooked.events)
    body, stamp = delivery["body"], str(int(time.time()))
    signature = sign(secret_of(hooked, 0), stamp, body)

    def send(event_id):
        return Client().post(WEBHOOK, data=body, content_type="application/json", HTTP_X_EVENT_ID=event_id,
                             HTTP_X_PROLIFIC_REQUEST_SIGNATURE=signature, HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp)

    assert send("evt-1").status_code == 200 and ProlificSubmission.objects.get().status == "AWAITING REVIEW"
    ProlificSubmission.objects.update(status="ACTIVE")  # as a later read of Prolific said
    response = send("evt-attacker-2")
    assert response.status_code == 200 and response.json()["message"] == "already applied"
    assert ProlificSubmission.objects.get().status == "ACTIVE" and ProlificEvent.objects.count() == 1


def test_an_older_event_never_undoes_a_newer_one(hooked, leased, participant, on_prolific):
    submission = returned(participant[2])
    newer = post(Client(), submission, key=secret_of(hooked, 0), event_id="evt-new")
    assert newer.status_code == 200 and ProlificSubmission.objects.get().status == "RETURNED"
    active = {**submission, "status": "ACTIVE"}
    older = post(Client(), active, key=secret_of(hooked, 0), age=60, event_id="evt-old")
    assert older.status_code == 200 and "older" in older.json()["message"]
    assert ProlificSubmission.objects.get().status == "RETURNED"
    study = {"resource_id": on_prolific.prolific_id, "event_type": "study.status.change"}
    post(Client(), {**study, "status": "PAUSED"}, key=secret_of(hooked, 0), event_id="evt-pause")
    post(Client(), {**study, "status": "ACTIVE"}, key=secret_of(hooked, 0), age=30, event_id="evt-late")
    assert ProlificStudy.objects.get().status == "PAUSED"
    post(Client(), {**study, "status": "ACTIVE"}, key=secret_of(hooked, 0), event_id="evt-resume")
    assert ProlificStudy.objects.get().status == "ACTIVE"  # a newer event moves it on, back and forth


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/jsonp"])
def test_only_json_is_a_webhook(hooked, leased, participant, content_type):
    raw = json.dumps(returned(participant[2])).encode()
    stamp = str(int(time.time()))
    response = Client().post(
        WEBHOOK, data=raw, content_type=content_type, HTTP_X_EVENT_ID="evt-plain",
        HTTP_X_PROLIFIC_REQUEST_SIGNATURE=sign(secret_of(hooked, 0), stamp, raw),
        HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp,
    )
    assert response.status_code == 415
    assert ProlificSubmission.objects.get().status == "ACTIVE" and not ProlificEvent.objects.exists()


def test_a_loopback_site_may_take_webhooks_from_a_loopback_prolific(fake_prolific, owner, on_prolific, settings):
    """The demo against the fake: http://127.0.0.1 is lifted from the https rule exactly as a
    loopback PROLIFIC_API_URL lifts it for launches."""
    from recruitment.services.hooks import prolific_webhooks_setup

    settings.SITE_URL = "http://127.0.0.1:8000"
    [result] = prolific_webhooks_setup(user=owner)
    assert set(result.subscribed) == {"submission.status.change", "study.status.change"}
    targets = {s["target_url"] for s in fake_prolific.subscriptions.values()}
    assert targets == {"http://127.0.0.1:8000/prolific/webhook/"}


def test_an_http_site_is_refused_webhooks_from_the_real_prolific(settings, owner):
    from recruitment.services import RecruitmentRefused
    from recruitment.services.hooks import prolific_webhooks_setup

    settings.PROLIFIC_API_URL = "https://api.prolific.com/api/v1/"
    settings.SITE_URL = "http://127.0.0.1:8000"
    with pytest.raises(RecruitmentRefused, match="public https address only"):
        prolific_webhooks_setup(user=owner)

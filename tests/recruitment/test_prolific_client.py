"""recruitment/prolific.py against the fake Prolific: request shapes, pagination, money, typed
errors and which calls are retried. No database: the client is plain Python."""

import logging

import pytest

from recruitment.prolific import (
    BonusSetup,
    ProlificAuthError,
    ProlificClient,
    ProlificRateLimited,
    ProlificRequestError,
    ProlificServerError,
    ProlificUnavailable,
    major_units,
)

from .fake_prolific import FakeProlific


@pytest.fixture
def fake():
    fake = FakeProlific().start()
    yield fake
    fake.stop()
    assert not fake.unrouted, fake.unrouted


@pytest.fixture
def waits():
    return []


@pytest.fixture
def client(fake, waits):
    with ProlificClient(fake.token, base_url=fake.url, timeout=1.0, retries=2, sleep=waits.append) as c:
        yield c


def draft_body(**overrides):
    body = {
        "name": "Rate images", "internal_name": "tessera-test", "description": "Rate five images.",
        "external_study_url": "https://tessera.example.org/join/k/?PROLIFIC_PID={{%PROLIFIC_PID%}}"
                              "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
        "prolific_id_option": "url_parameters",
        "completion_codes": [
            {"code": "DONE", "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}],
             "actor": "participant"},
        ],
        "estimated_completion_time": 10, "reward": 150, "total_available_places": 2,
        "device_compatibility": ["desktop"],
        "filters": [{"filter_id": "current-country-of-residence", "selected_values": ["12"]}],
    }
    body.update(overrides)
    return body


def test_it_sends_the_token_header_and_reads_the_user(client, fake):
    me = client.me()
    assert me["currency_code"] == "GBP"
    (call,) = fake.calls("GET", "users/me/")
    assert call.authorization == f"Token {fake.token}"


def test_it_follows_every_page_of_a_list(client, fake):
    filters = client.filters()
    assert [f.title for f in filters] == [
        "Current Country of Residence", "Nationality", "Country of Birth", "First Language", "Age"
    ]
    assert filters[0].choices["12"] == "India" and filters[4].type == "range"
    assert len(fake.calls("GET", "filters/")) == 3  # five filters, two a page


def test_it_refuses_a_next_page_on_another_host(client, fake):
    fake.fail_next("GET", "filters/", 200, {"results": [], "_links": {"next": {"href": "https://elsewhere.example/x/"}}})
    with pytest.raises(ProlificServerError, match="another host"):
        client.filters()


def test_a_refused_token_is_an_auth_error(fake):
    with ProlificClient("not-the-token-0123456789", base_url=fake.url) as wrong:
        with pytest.raises(ProlificAuthError) as caught:
            wrong.me()
    assert caught.value.status == 401 and "Invalid token" in caught.value.message


def test_a_refused_body_carries_prolifics_reasons(client, fake):
    with pytest.raises(ProlificRequestError) as caught:
        client.study_create(draft_body(reward=1.5, completion_code="OLD"))
    assert caught.value.status == 400
    assert "reward" in caught.value.message and "completion_code: This field is retired" in caught.value.message
    assert len(fake.calls("POST", "studies/")) == 1


def test_a_429_with_a_short_retry_after_is_waited_for_on_a_read(client, fake, waits):
    fake.fail_next("GET", "users/me/", 429, headers={"Retry-After": "3"})
    assert client.me()["id"]
    assert waits == [3.0]
    assert len(fake.calls("GET", "users/me/")) == 2


def test_a_429_with_a_long_retry_after_goes_to_the_caller(client, fake, waits):
    fake.fail_next("POST", "submissions/bulk-approve/", 429, headers={"Retry-After": "120"})
    with pytest.raises(ProlificRateLimited) as caught:
        client.submissions_bulk_approve(["a" * 24])
    assert caught.value.retry_after == 120.0 and "retry after 120 s" in caught.value.message
    assert waits == []


def test_a_5xx_on_a_read_is_retried_then_raised(client, fake, waits):
    fake.fail_next("GET", "studies/", 503, times=3)
    with pytest.raises(ProlificServerError) as caught:
        list(client.studies())
    assert caught.value.status == 503
    assert len(fake.calls("GET", "studies/")) == 3 and len(waits) == 2


def test_a_5xx_then_success_on_a_read(client, fake):
    fake.fail_next("GET", "workspaces/", 500)
    assert len(client.workspaces()) == 1


def test_creating_a_study_is_never_retried(client, fake, waits):
    fake.fail_next("POST", "studies/", 500)
    with pytest.raises(ProlificServerError):
        client.study_create(draft_body())
    assert len(fake.calls("POST", "studies/")) == 1 and waits == [] and fake.studies == {}


def test_a_time_out_is_unavailable(fake):
    fake.hang_next("GET", "users/me/", 3)
    with ProlificClient(fake.token, base_url=fake.url, timeout=0.3, retries=0) as slow:
        with pytest.raises(ProlificUnavailable, match="did not answer in time"):
            slow.me()


def test_a_refused_connection_is_unavailable(waits, closed_port):
    nowhere = f"http://127.0.0.1:{closed_port}/api/v1/"
    with ProlificClient("x" * 30, base_url=nowhere, retries=1, sleep=waits.append) as c:
        with pytest.raises(ProlificUnavailable, match="could not be reached"):
            c.me()
    assert len(waits) == 1


def test_a_study_from_draft_to_stopped(client, fake):
    created = client.study_create(draft_body())
    assert created.status == "UNPUBLISHED" and created.total_available_places == 2
    assert created.total_cost == 300 + 100  # rewards and the fake's fees
    assert [s.id for s in client.studies(unpublished_only=True)] == [created.id]
    assert fake.calls("GET", "studies/")[-1].query == {"published": "0"}
    assert client.study_update(created.id, {"total_available_places": 4}).total_available_places == 4
    assert client.study_transition(created.id, "PUBLISH").status == "ACTIVE"
    with pytest.raises(ProlificRequestError, match="Cannot be changed after publishing"):
        client.study_update(created.id, {"reward": 500})
    assert client.study_transition(created.id, "PAUSE").status == "PAUSED"
    assert client.study_transition(created.id, "START").status == "ACTIVE"
    assert client.study_transition(created.id, "STOP").status == "AWAITING REVIEW"
    assert client.study_get(created.id).status == "AWAITING REVIEW"
    with pytest.raises(ValueError):
        client.study_transition(created.id, "DELETE")


def test_submissions_are_listed_reviewed_and_returned(client, fake):
    study = client.study_create(draft_body(total_available_places=5))
    client.study_transition(study.id, "PUBLISH")
    ids = [fake.submission_start(study.id, f"pid{n:021d}") for n in range(3)]
    for sid in ids:
        fake.submission_finish(sid, "DONE")
    listed = list(client.submissions(study.id))
    assert [s.id for s in listed] == ids and {s.status for s in listed} == {"AWAITING REVIEW"}
    assert len(fake.calls("GET", f"studies/{study.id}/submissions/")) == 2
    one = client.submission_get(ids[0])
    assert (one.participant, one.study_id) == ("pid" + "0" * 21, study.id)
    assert client.submission_approve(ids[0]).status == "APPROVED"
    assert client.submission_approve(ids[0]).status == "APPROVED"  # a repeat changes nothing
    with pytest.raises(ValueError, match="100 characters"):
        client.submission_reject(ids[1], message="Too short.", category="LOW_EFFORT")
    with pytest.raises(ValueError, match="category"):
        client.submission_reject(ids[1], message="x" * 100, category="LAZY")
    assert fake.calls("POST", f"submissions/{ids[1]}/transition/") == []
    rejected = client.submission_reject(ids[1], message="The answers were given at random. " * 4, category="LOW_EFFORT")
    assert rejected.status == "REJECTED"
    assert client.submission_request_return(ids[2], ["Not eligible"])["return_requested"]
    client.submissions_bulk_approve([ids[2]])
    fake.drain()
    assert client.submission_get(ids[2]).status == "APPROVED"


def test_bonuses_go_in_major_units_and_come_back_in_minor(client, fake):
    study = client.study_create(draft_body())
    client.study_transition(study.id, "PUBLISH")
    sid = fake.submission_start(study.id, "pid" + "1" * 21)
    setup = client.bonus_setup(study.id, [(sid, 425), ("pid" + "1" * 21, 5)])
    assert fake.calls("POST", "submissions/bonus-payments/")[0].body == {
        "study_id": study.id, "csv_bonuses": f"{sid},4.25\npid{'1' * 21},0.05"
    }
    assert setup == BonusSetup(setup.id, amount=430, fees=143, vat=0, total_amount=573)
    client.bonus_pay(setup.id)
    assert fake.bonuses[setup.id]["payments"] == 1
    # Prolific's pay is not idempotent (a repeat pays again): the client sends it once, never retried
    fake.fail_next("POST", r"bulk-bonus-payments/[0-9a-f]+/pay/", 503)
    with pytest.raises(ProlificServerError):
        client.bonus_pay(setup.id)
    assert len(fake.calls("POST", r"bulk-bonus-payments/[0-9a-f]+/pay/")) == 2
    with pytest.raises(ProlificRequestError, match="did not take part"):
        client.bonus_setup(study.id, [("f" * 24, 100)])


def test_major_units():
    assert [major_units(n) for n in (0, 5, 425, 100000)] == ["0.00", "0.05", "4.25", "1000.00"]
    with pytest.raises(ValueError):
        major_units(-1)


def test_the_eligibility_count_is_asked_with_the_filters(client, fake):
    filters = [{"filter_id": "current-country-of-residence", "selected_values": ["12"]}]
    assert client.eligibility_count(filters) == 6000
    assert fake.calls("POST", "eligibility-count/")[0].body == {"filters": filters}
    with pytest.raises(ProlificRequestError, match="Unknown filter_id"):
        client.eligibility_count([{"filter_id": "nationality", "selected_values": ["1"]}])


def test_webhook_secret_and_subscription(client, fake):
    workspace = client.workspaces()[0]["id"]
    secret = client.hook_secret_create(workspace)
    assert client.hook_secrets(workspace) == [secret]
    assert "submission.status.change" in client.hook_event_types()
    subscription, confirm = client.hook_subscribe(workspace, "submission.status.change", "https://t.example.org/prolific/webhook/")
    assert confirm and subscription["is_enabled"] is False
    assert client.hook_confirm(subscription["id"], confirm)["is_enabled"] is True
    assert [s["id"] for s in client.hook_subscriptions(workspace)] == [subscription["id"]]


def test_the_token_is_in_no_repr_message_or_log(fake, caplog):
    caplog.set_level(logging.DEBUG)
    with ProlificClient(fake.token, base_url=fake.url, retries=0) as c:
        c.me()
        fake.fail_next("GET", "users/me/", 500)
        with pytest.raises(ProlificServerError) as caught:
            c.me()
        assert fake.token not in repr(c)
    assert fake.token not in caplog.text
    assert fake.token not in str(caught.value) and fake.token not in repr(caught.value.body)

"""Launching a pool's Prolific study (recruitment/services/launch.py) against the fake Prolific:
the body, idempotency (a retry, a time-out after Prolific created the study, a crash before the id
was saved), and the refusals (rate, SITE_URL, tokens, Prolific down, a refused body)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.links import entry_link
from recruitment.models import ProlificAction, ProlificStudy
from recruitment.prolific import (
    ProlificAuthError,
    ProlificRequestError,
    ProlificServerError,
    ProlificUnavailable,
)
from recruitment.services import (
    FilterPick,
    LaunchOptions,
    RecruitmentRefused,
    prolific_studies_launch,
    prolific_study_launch,
)
from recruitment.services.launch import reference_for
from recruitment.tokens import ProlificNotConfigured, token_set
from studies.models import ItemQuota

from .. import factories as f

OPTIONS = LaunchOptions(reward=150, estimated_minutes=10, filter_picks=(FilterPick("Nationality"),))


def launch(pool, user, options=OPTIONS):
    return prolific_study_launch(pool=pool, user=user, options=options)


def test_it_creates_a_draft_with_the_issue_s_body(fake_prolific, owner, study, pool, items):
    result = launch(pool, owner)
    assert result.created
    (call,) = fake_prolific.calls("POST", "studies/")
    body = call.body
    assert body["name"] == study.name and body["description"]
    assert body["external_study_url"] == entry_link(pool)
    assert "{{%PROLIFIC_PID%}}" in body["external_study_url"] and str(pool.entry_key) in body["external_study_url"]
    assert body["prolific_id_option"] == "url_parameters"
    assert body["completion_codes"] == [
        {"code": "C0MPLETE", "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}],
         "actor": "participant"},
        {"code": "FAILMOCK", "code_type": "OTHER", "actor": "participant",
         "actions": [{"action": "REQUEST_RETURN",
                      "return_reason": "You did not pass the practice test, so the study ended early."}]},
        {"code": "NOTELIG", "code_type": "OTHER", "actor": "participant",
         "actions": [{"action": "REQUEST_RETURN",
                      "return_reason": "You are not eligible for this study's country pool."}]},
        {"code": "NOCONSENT", "code_type": "NO_CONSENT", "actor": "participant",
         "actions": [{"action": "REQUEST_RETURN", "return_reason": "You did not consent to take part."}]},
        {"code": "ALLSKIP", "code_type": "OTHER", "actions": [{"action": "MANUALLY_REVIEW"}], "actor": "participant"},
        {"code": "FAILCHECK", "code_type": "FAILED_ATTENTION_CHECK", "actions": [{"action": "MANUALLY_REVIEW"}],
         "actor": "participant"},
    ]
    # three items wanting three annotations each, five items a session: two participants
    assert body["total_available_places"] == 2
    assert (body["reward"], body["estimated_completion_time"], body["maximum_allowed_time"]) == (150, 10, 29)
    assert body["device_compatibility"] == ["desktop"]
    # India resolved by its label in Prolific's own list: residence key "12", nationality key "40"
    assert body["filters"] == [
        {"filter_id": "current-country-of-residence", "selected_values": ["12"]},
        {"filter_id": "nationality-2023", "selected_values": ["40"]},
    ]
    assert body["internal_name"] == body["metadata"] == reference_for(pool)
    row = ProlificStudy.objects.get(pool=pool)
    remote_id = next(iter(fake_prolific.studies))
    assert (row.prolific_id, row.status, row.places, row.reward, row.currency) == (
        remote_id, "UNPUBLISHED", 2, 150, "GBP"
    )
    assert row.total_cost == 400 and row.created_by == owner
    (action,) = ProlificAction.objects.filter(study=study)
    assert (action.kind, action.ok, action.user, action.target) == ("create", True, owner, remote_id)
    assert fake_prolific.calls("GET", "studies/") == []  # a first attempt has nothing to look for


def test_auto_approval_and_chosen_filters(fake_prolific, owner, pool, items):
    options = LaunchOptions(
        reward=300, estimated_minutes=20, maximum_allowed_minutes=60, devices=("desktop", "tablet"),
        auto_approve=True,
        filter_picks=(FilterPick("country of birth"), FilterPick.parse("First Language=Hindi|Tamil")),
    )
    launch(pool, owner, options)
    body = fake_prolific.calls("POST", "studies/")[0].body
    assert body["completion_codes"][0]["actions"] == [{"action": "AUTOMATICALLY_APPROVE"}]
    assert body["filters"][1:] == [
        {"filter_id": "birth-country-v3", "selected_values": ["70"]},
        {"filter_id": "first-language_old", "selected_values": ["5", "7"]},
    ]
    assert (body["maximum_allowed_time"], body["device_compatibility"]) == (60, ["desktop", "tablet"])


def test_places_count_only_open_slots(fake_prolific, owner, study, pool, items):
    quotas = list(ItemQuota.objects.filter(pool=pool).order_by("pk"))
    ItemQuota.objects.filter(pk=quotas[0].pk).update(done=3)  # full
    ItemQuota.objects.filter(pk=quotas[1].pk).update(done=1, leased=1)  # one open
    study.items_per_session = 2
    study.save()
    launch(pool, owner)
    assert fake_prolific.calls("POST", "studies/")[0].body["total_available_places"] == 2  # 4 open slots / 2


def test_a_second_launch_creates_nothing(fake_prolific, owner, pool, items):
    first = launch(pool, owner)
    second = launch(pool, owner)
    assert not second.created and second.prolific_study.pk == first.prolific_study.pk
    assert len(fake_prolific.calls("POST", "studies/")) == 1 and len(fake_prolific.studies) == 1


def test_a_time_out_after_prolific_created_the_study_is_found_on_retry(fake_prolific, owner, pool, items):
    fake_prolific.hang_next("POST", "studies/", 3, after_processing=True)
    with pytest.raises(ProlificUnavailable):
        launch(pool, owner)
    row = ProlificStudy.objects.get(pool=pool)
    assert row.prolific_id == "" and row.creating_until is None and "did not answer" in row.last_error
    assert len(fake_prolific.studies) == 1  # Prolific did create it

    result = launch(pool, owner)
    assert not result.created
    assert result.prolific_study.prolific_id == next(iter(fake_prolific.studies))
    assert len(fake_prolific.calls("POST", "studies/")) == 1 and len(fake_prolific.studies) == 1
    kinds = list(ProlificAction.objects.order_by("id").values_list("kind", "ok"))
    assert kinds == [("create", False), ("reconcile", True)]


def test_a_crash_between_prolific_s_answer_and_the_save_is_found_on_retry(fake_prolific, owner, pool, items):
    # what a process that died right after Prolific answered leaves: our row without the id, the study on Prolific
    ProlificStudy.objects.create(pool=pool, reference=reference_for(pool), places=2, reward=150, estimated_minutes=10)
    earlier = fake_prolific.study_create_direct({"name": "x", "internal_name": reference_for(pool), "reward": 150,
                                                 "total_available_places": 2})
    for n in range(3):  # other studies of the account, on other pages of the list
        fake_prolific.study_create_direct({"name": f"other {n}", "internal_name": f"other-{n}", "reward": 100,
                                           "total_available_places": 1})
    result = launch(pool, owner)
    assert not result.created and result.prolific_study.prolific_id == earlier["id"]
    assert fake_prolific.calls("POST", "studies/") == []


def test_one_launch_at_a_time_may_create(fake_prolific, owner, pool, items):
    ProlificStudy.objects.create(
        pool=pool, reference=reference_for(pool), places=2, reward=150, estimated_minutes=10,
        creating_until=timezone.now() + timedelta(minutes=1),
    )
    with pytest.raises(RecruitmentRefused, match="already under way"):
        launch(pool, owner)
    assert fake_prolific.calls("POST", "studies/") == []


def test_a_stale_claim_does_not_block(fake_prolific, owner, pool, items):
    ProlificStudy.objects.create(
        pool=pool, reference=reference_for(pool), places=2, reward=150, estimated_minutes=10,
        creating_until=timezone.now() - timedelta(seconds=1),
    )
    assert launch(pool, owner).created


def test_it_refuses_a_reward_under_the_minimum_hourly_rate(fake_prolific, owner, pool, items):
    with pytest.raises(RecruitmentRefused) as caught:
        launch(pool, owner, LaunchOptions(reward=50, estimated_minutes=10))
    message = str(caught.value)
    assert "£3.00 per hour" in message and "minimum of £6.00 per hour" in message and "at least £1.00" in message
    assert fake_prolific.calls("POST", "studies/") == [] and not ProlificStudy.objects.exists()


def test_it_uses_the_account_s_currency(fake_prolific, owner, pool, items):
    fake_prolific.user["currency_code"] = "USD"
    with pytest.raises(RecruitmentRefused, match=r"minimum of \$8.00 per hour: pay at least \$1.34"):
        launch(pool, owner, LaunchOptions(reward=133, estimated_minutes=10))
    assert launch(pool, owner, LaunchOptions(reward=134, estimated_minutes=10)).prolific_study.currency == "USD"


def test_it_refuses_a_maximum_time_prolific_would_refuse(fake_prolific, owner, pool, items):
    with pytest.raises(RecruitmentRefused, match="at least 29 minutes"):
        launch(pool, owner, LaunchOptions(reward=150, estimated_minutes=10, maximum_allowed_minutes=20))


def test_one_failed_check_ending_a_session_is_refused_for_a_study_of_five_minutes_or_more(
    fake_prolific, owner, study, pool, items
):
    """Prolific's attention-check policy, checked against the estimate the launch sends."""
    study.protocol = {**study.protocol, "quality": {
        "attention": {"placement": "random", "count": 1}, "outcomes": {"warnings": 0, "failures": 1},
        "estimated_minutes": 3,
    }}
    study.save()
    with pytest.raises(RecruitmentRefused, match="attention checks: a study of 10 minutes may end a session only "
                                                 "after 2 failed checks"):
        launch(pool, owner, LaunchOptions(reward=150, estimated_minutes=10))
    assert not ProlificStudy.objects.exists() and not fake_prolific.calls("POST", "studies/")
    assert launch(pool, owner, LaunchOptions(reward=50, estimated_minutes=4)).created


def test_it_refuses_a_plain_http_site(fake_prolific, settings, owner, pool, items):
    settings.PROLIFIC_API_URL = "https://api.prolific.com/api/v1/"
    settings.SITE_URL = "http://tessera.example.org"
    with pytest.raises(RecruitmentRefused, match="SITE_URL is http://tessera.example.org.*https"):
        launch(pool, owner)
    assert fake_prolific.requests == [] and not ProlificStudy.objects.exists()


def test_without_any_token_it_says_so(fake_prolific, no_deployment_token, owner, pool, items):
    with pytest.raises(ProlificNotConfigured, match="No Prolific token: add yours"):
        launch(pool, owner)
    assert fake_prolific.requests == []


def test_the_researcher_s_own_token_comes_first(fake_prolific, settings, owner, pool, items):
    settings.PROLIFIC_API_TOKEN = "the-deployment-token-is-wrong-0123"
    token_set(user=owner, token=fake_prolific.token)
    assert launch(pool, owner).created
    assert {call.authorization for call in fake_prolific.requests} == {f"Token {fake_prolific.token}"}


def test_a_bad_token_creates_nothing(fake_prolific, settings, owner, pool, items):
    settings.PROLIFIC_API_TOKEN = "revoked-token-0123456789abcdef"
    with pytest.raises(ProlificAuthError, match="refused the token"):
        launch(pool, owner)
    assert not ProlificStudy.objects.exists() and fake_prolific.studies == {}


def test_prolific_down_while_reading_filters_creates_nothing(fake_prolific, owner, pool, items):
    fake_prolific.fail_next("GET", "filters/", 502, times=2)
    with pytest.raises(ProlificServerError):
        launch(pool, owner)
    assert not ProlificStudy.objects.exists()


def test_prolific_down_at_create_then_a_retry_creates_once(fake_prolific, owner, study, pool, items):
    fake_prolific.fail_next("POST", "studies/", 500)
    with pytest.raises(ProlificServerError):
        launch(pool, owner)
    row = ProlificStudy.objects.get(pool=pool)
    assert not row.created and "Prolific failed (500" in row.last_error
    failed = ProlificAction.objects.get(study=study)
    assert (failed.kind, failed.ok, failed.status_code) == ("create", False, 500)

    assert launch(pool, owner).created  # looked for first: nothing was created the first time
    assert len(fake_prolific.calls("GET", "studies/")) == 1
    assert len(fake_prolific.studies) == 1 and ProlificStudy.objects.get(pool=pool).last_error == ""


def test_a_body_prolific_refuses_is_shown_and_nothing_is_recorded_as_created(fake_prolific, owner, pool, items):
    fake_prolific.fail_next("POST", "studies/", 400, {"error": {
        "status": 400, "error_code": 140001, "title": "Bad Request",
        "detail": {"external_study_url": ["This URL is not reachable."]}}})
    with pytest.raises(ProlificRequestError, match="external_study_url: This URL is not reachable"):
        launch(pool, owner)
    row = ProlificStudy.objects.get(pool=pool)
    assert not row.created and row.status == ""
    action = ProlificAction.objects.get()
    assert action.answer["error"]["detail"] == {"external_study_url": ["This URL is not reachable."]}


def test_it_refuses_a_pool_country_prolific_does_not_list(fake_prolific, owner, study, items):
    north = f.make_pool(study, "KP", "North Korea")
    f.make_items(study, "KP", 2)
    refusal = (
        r"North Korea: Prolific's list for 'Current Country of Residence' has no choice for North Korea \(KP\): "
        "pick Prolific's choice by hand"
    )
    with pytest.raises(RecruitmentRefused, match=refusal):
        launch(north, owner)
    assert not fake_prolific.calls("POST", "studies/")


def test_it_refuses_a_filter_prolific_does_not_have(fake_prolific, owner, pool, items):
    with pytest.raises(RecruitmentRefused, match="no filter titled 'Favourite colour'"):
        launch(
            pool, owner, LaunchOptions(reward=150, estimated_minutes=10, filter_picks=(FilterPick("Favourite colour"),))
        )


def test_it_refuses_shared_completion_codes(fake_prolific, owner, study, pool, items):
    study.code_no_consent = study.code_not_eligible
    study.save()
    with pytest.raises(RecruitmentRefused, match="'NOTELIG' is used for both 'not_eligible' and 'no_consent'"):
        launch(pool, owner)


def test_it_refuses_a_full_pool(fake_prolific, owner, pool, items):
    ItemQuota.objects.filter(pool=pool).update(done=3)
    with pytest.raises(RecruitmentRefused, match="no open slot"):
        launch(pool, owner)


def test_every_pool_of_a_study(fake_prolific, owner, study, pool, other_pool, items):
    results = prolific_studies_launch(study=study, user=owner, options=OPTIONS)
    assert [r.prolific_study.pool.country for r in results] == ["IN", "JP"]
    japan = fake_prolific.calls("POST", "studies/")[1].body
    assert japan["filters"][0] == {"filter_id": "current-country-of-residence", "selected_values": ["17"]}
    assert japan["external_study_url"] == entry_link(other_pool)


def test_one_pool_that_fails_does_not_stop_the_others(fake_prolific, owner, study, pool, other_pool, items):
    usa = f.make_pool(study, "US", "United States")
    f.make_items(study, "US", 2)
    f.make_items(study, "JP", 1)
    fake_prolific.fail_next("POST", "studies/", 400, {"error": {"status": 400, "title": "Bad", "detail":
                                                              "Refused."}})  # the first pool tried: IN
    results = prolific_studies_launch(study=study, user=owner, options=OPTIONS)
    by_country = {(r.prolific_study.pool.country if r.prolific_study else "?"): r for r in results}
    assert [r.ok for r in results] == [False, True, True], [r.error for r in results]  # IN failed, JP and US launched
    assert results[0].error.startswith("India: ") and ProlificStudy.objects.get(pool=pool).prolific_id == ""
    assert by_country["JP"].created and by_country["US"].created
    retried = prolific_studies_launch(study=study, user=owner, options=OPTIONS, pools=[pool])  # its Retry
    assert retried[0].ok and retried[0].created and ProlificStudy.objects.exclude(prolific_id="").count() == 3
    assert usa.prolific_study.prolific_id


def test_the_page_lists_each_failure_and_gives_each_pool_its_button(fake_prolific, owner, study, pool, other_pool,
                                                                    items, client):
    from django.urls import reverse

    client.force_login(owner)
    fake_prolific.fail_next("POST", "studies/", 400)
    form = {"reward": "1.50", "minutes": "10", "devices": ["desktop", "mobile", "tablet"]}
    response = client.post(reverse("recruitment:study-launch", args=[study.pk]), form, follow=True)
    page = response.content.decode()
    assert "Not launched: India:" in page and "Created as Prolific drafts: Japan" in page
    assert f'form="prolific-launch" name="pool" value="{pool.pk}"' in page and "Retry IN" in page
    response = client.post(reverse("recruitment:study-launch", args=[study.pk]), {**form, "pool": pool.pk}, follow=True)
    assert "Created as Prolific drafts: India" in response.content.decode()

"""Paid screen-outs and messages in the browser, against the fake Prolific: on a phone, a participant
who answers "no" to an eligibility question of a pool whose launch pays screen-outs ends on the page
saying they are screened out and paid (and Prolific is asked to screen them out); on a desktop, the
researcher messages a pool's participants from the study's Prolific page and sees it confirmed."""

import pytest

from recruitment.services import LaunchOptions, prolific_study_launch, prolific_study_transition
from recruitment.services.sync import prolific_study_sync
from tests.browser.helpers import log_in
from tests.recruitment.fake_prolific import fake_prolific_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PID = "6a1b2c3d4e5f6a7b8c9d0e1f"


@pytest.fixture
def prolific(settings, live_server):
    # the participant's browser goes to the live server instead
    with fake_prolific_for(settings, site_url="https://tessera.test") as fake:
        yield fake


def published(owner, pool, **options):
    row = prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(
        reward=150, estimated_minutes=10, **options)).prolific_study
    prolific_study_transition(prolific_study=row, verb="publish", user=owner)
    return row


def test_a_participant_screened_out_on_a_phone_is_told_they_are_paid(
    browser, live_server, prolific, owner, study, pool, items
):
    row = published(owner, pool, screen_out_reward=10)
    assert prolific.studies[row.prolific_id]["is_custom_screening"] is True
    submission = prolific.submission_start(row.prolific_id, PID)

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    participant = phone.new_page()
    participant.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    participant.goto(f"{live_server.url}/join/{pool.entry_key}/?PROLIFIC_PID={PID}&STUDY_ID={row.prolific_id}"
                     f"&SESSION_ID={submission}")
    participant.get_by_role("button", name="I agree, continue").click()
    fieldsets = participant.locator("fieldset").all()
    fieldsets[0].get_by_label("No").check()
    for fieldset in fieldsets[1:]:
        fieldset.get_by_label("Yes").check()
    participant.get_by_role("button", name="Continue").click()

    participant.get_by_role("heading", name="You have been screened out").wait_for()
    said = participant.locator("main").inner_text()
    assert "paid £0.10 for your time" in said and "You do not need to return the study" in said
    assert "completion code" not in said.lower()
    back = participant.get_by_role("link", name="Back to Prolific")
    assert back.get_attribute("href") == "https://app.prolific.com/submissions"
    assert participant.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    phone.close()
    # The screen-out job asked Prolific once, with the launch's fixed reward.
    assert prolific.screen_outs == [{"submission_id": submission, "amount": "0.1"}]
    assert prolific.submissions[submission]["status"] == "SCREENED OUT"


def test_the_researcher_messages_a_pool_from_the_prolific_page(
    browser, page, live_server, prolific, owner, study, pool, items
):
    row = published(owner, pool)
    prolific.submission_start(row.prolific_id, PID)
    prolific_study_sync(prolific_study=row, user=owner)  # the participant's submission known here

    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server, owner.username)
    page.goto(f"{live_server.url}/prolific/studies/{study.pk}/")
    form = page.locator("#message-form")
    form.get_by_label("Pool").select_option(label="India")
    form.get_by_label("Message").fill("Round 2 opens tomorrow at 10:00 UTC.")
    form.get_by_role("button", name="Send the message").click()
    page.get_by_text("India: Sent to 1 participant.").wait_for()
    assert prolific.messages_sent == [
        {"recipient_id": PID, "study_id": row.prolific_id, "body": "Round 2 opens tomorrow at 10:00 UTC."}]

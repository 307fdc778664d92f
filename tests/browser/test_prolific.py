"""A two-country study run on Prolific (the fake one) from the browser: the researcher launches and
publishes it and sets up the webhooks, a participant arrives through the link Prolific sends and
completes, the webhook arrives, the researcher approves the submission and pays a bonus."""

import re

import pytest
from django.test import Client

from recruitment.models import ProlificBonus, ProlificStudy, ProlificSubmission
from tests.browser.helpers import log_in, rate_by_mouse
from tests.recruitment.fake_prolific import fake_prolific_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PID = "6a1b2c3d4e5f6a7b8c9d0e1f"


@pytest.fixture
def prolific(settings, live_server):
    # The public address Prolific is given (its links, the webhooks' target, which must be https);
    # the participant's browser is sent to the live server's own address below, as a proxy would.
    with fake_prolific_for(settings, site_url="https://tessera.test") as fake:
        yield fake



def test_a_researcher_runs_a_two_country_study_from_launch_to_payment(
    browser, page, live_server, prolific, owner, study, pool, other_pool, items
):
    study.items_per_session = 1
    study.save()

    # Launch both pools as drafts, publish them, and subscribe to Prolific's webhooks.
    log_in(page, live_server, owner.username)
    page.goto(f"{live_server.url}/prolific/studies/{study.pk}/")
    page.get_by_label("Reward per participant").fill("1.50")
    page.get_by_label("Estimated completion time (minutes)").fill("10")
    page.get_by_role("button", name="Create the drafts on Prolific").click()
    page.get_by_text("Created as Prolific drafts: India, Japan").wait_for()
    page.get_by_role("button", name="Publish every draft").click()
    page.get_by_text("Japan: Active").wait_for()  # the publish answered before the next button is pressed
    page.get_by_role("button", name="Set up the webhooks").click()
    page.get_by_role("button", name="Check the webhooks").wait_for()
    on_prolific = {row.pool.country: row for row in ProlificStudy.objects.all()}
    assert set(on_prolific) == {"IN", "JP"} and all(row.status == "ACTIVE" for row in on_prolific.values())
    india = on_prolific["IN"].prolific_id

    # A participant in India takes the study on a phone, through the link Prolific sends.
    submission = prolific.submission_start(india, PID)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    participant = phone.new_page()
    participant.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    link = prolific.studies[india]["external_study_url"]  # as created, with Prolific's placeholders
    assert link.startswith(f"https://tessera.test/join/{pool.entry_key}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}")
    participant.goto(live_server.url + link.removeprefix("https://tessera.test").replace(
        "{{%PROLIFIC_PID%}}", PID).replace("{{%STUDY_ID%}}", india).replace("{{%SESSION_ID%}}", submission))
    participant.get_by_role("button", name="I agree, continue").click()
    for fieldset in participant.locator("fieldset").all():
        fieldset.get_by_label("Yes").check()
    participant.get_by_role("button", name="Continue").click()
    participant.get_by_role("button", name="I have read the instructions").click()
    rate_by_mouse(participant)
    participant.wait_for_url(f"https://app.prolific.com/submissions/complete?cc={study.code_completed}")
    phone.close()
    assert ProlificSubmission.objects.get(prolific_id=submission).entry_check == "verified"

    # Prolific takes the completion code and tells the platform by webhook.
    prolific.submission_finish(submission, study.code_completed)
    delivered = prolific.deliver(Client())  # the submission started, then awaiting review
    assert delivered and all(r.status_code == 200 for r in delivered)
    assert ProlificSubmission.objects.get(prolific_id=submission).status == "AWAITING REVIEW"

    # The researcher reviews: what the platform knows, then approval.
    page.goto(f"{live_server.url}/prolific/studies/{study.pk}/review/")
    row = page.locator("tr", has_text=PID)
    assert "1 of 1" in row.inner_text() and "Awaiting review" in row.inner_text()
    row.get_by_label(f"Pick {PID}").check()
    page.get_by_role("button", name="Approve the ticked submissions").click()
    page.locator("td[role=status]", has_text="done").wait_for()
    prolific.drain()  # Prolific applies its bulk approval
    assert prolific.submissions[submission]["status"] == "APPROVED"

    # A bonus for the participant: previewed, set up on Prolific (its fees), paid once.
    page.get_by_role("link", name="Pay bonuses").click()
    page.get_by_label("Pool").select_option(label="India")
    page.get_by_label("Bonuses").fill(f"{PID},0.50")
    page.get_by_role("button", name="Preview the total").click()
    page.get_by_role("button", name="Set up on Prolific").click()
    page.get_by_role("button", name=re.compile(r"^Pay .* now$")).click()
    page.get_by_text("Paid").first.wait_for()
    bonus = ProlificBonus.objects.get()
    assert bonus.state == "paid"
    assert [b["payments"] for b in prolific.bonuses.values()] == [1]

"""The demo study's whole annotator path, by mouse and keyboard, in Chromium."""

import re

import pytest
from django.core.management import call_command

from annotation.models import Annotation, Annotator
from studies.models import CountryPool, Study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"


@pytest.fixture
def demo(live_server):
    call_command("demo_setup", verbosity=0)
    study = Study.objects.get(name="CulturalFrames demo")
    pool = CountryPool.objects.get(study=study, country="IN")
    return study, pool


def entry(live_server, pool, session_id="SUBMISSION1"):
    return f"{live_server.url}/join/{pool.entry_key}/?PROLIFIC_PID={PID}&STUDY_ID=demostudy&SESSION_ID={session_id}"


def onboard(page, study):
    page.get_by_role("button", name="I agree, continue").click()
    for fieldset in page.locator("fieldset").all():
        fieldset.get_by_label("Yes").check()
    page.keyboard.press("Enter")  # submits the eligibility form from the focused radio
    page.get_by_role("heading", name="Instructions").wait_for()
    page.get_by_role("button", name="I have read the instructions").click()
    for question in study.mock_questions.all():
        page.locator("fieldset", has_text=question.text).get_by_label(question.expected, exact=True).check()
    page.get_by_role("button", name="Check my answers").click()


def heading(page, n):
    """Wait for item n, with its form ready for keys (page.js and item.js have set it up)."""
    page.get_by_role("heading", name=f"Image {n} of 5").wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()


def test_an_annotator_completes_the_demo_study(page, live_server, demo):
    study, pool = demo
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    page.goto(entry(live_server, pool))
    onboard(page, study)

    # Item 1: a partial match, with explicit errors and highlighted words; all by keyboard and mouse.
    heading(page, 1)
    page.keyboard.press("2")  # alignment: Partially (the first unanswered question)
    page.get_by_label("Explicit elements missing or incorrect").click()
    tokens = page.locator("label.token")
    tokens.nth(1).click()
    tokens.nth(3).click()
    explanation = page.get_by_role("textbox", name="Explain what is missing or incorrect")
    explanation.fill("The wedding clothes are not traditional.")
    page.keyboard.press("Escape")
    page.locator("fieldset[data-field=stereotype]").get_by_label("No").focus()
    page.keyboard.press("2")  # stereotype: No
    page.keyboard.press("3")  # quality: Good (focus moved on)
    page.keyboard.press("4")  # overall: 4
    page.keyboard.press("Control+Enter")

    # Item 2: an empty submit is refused next to the fields, and nothing is stored.
    heading(page, 2)
    page.keyboard.press("Control+Enter")
    page.get_by_role("alert").filter(has_text="Please fix").wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()  # the refused form, swapped in, takes keys again
    assert page.locator("#err-alignment").inner_text() == "This question needs an answer."
    assert Annotation.objects.count() == 1
    for key in ("3", "2", "3", "5"):  # Completely, No stereotype, Good quality, 5
        page.keyboard.press(key)
    page.keyboard.press("Control+Enter")

    # Item 3: what was typed survives a reload.
    heading(page, 3)
    page.keyboard.press("1")
    page.get_by_label("Implicit elements missing or incorrect").check()
    explanation = page.get_by_role("textbox", name="Explain what is missing or incorrect")
    explanation.fill("Nothing of the festival is visible here.")
    page.locator(".draft-status", has_text="Draft saved").wait_for()
    page.reload()
    heading(page, 3)
    explanation = page.get_by_role("textbox", name="Explain what is missing or incorrect")
    assert explanation.input_value() == "Nothing of the festival is visible here."
    assert page.get_by_label("Implicit elements missing or incorrect").is_checked()
    page.locator("fieldset[data-field=stereotype]").get_by_label("Yes").check()
    page.get_by_role("textbox", name="Describe the stereotype").fill("Everyone is dressed in the same costume.")
    page.locator("fieldset[data-field=quality]").get_by_label("Fair").check()
    page.locator("fieldset[data-field=overall]").get_by_label("2").check()
    page.get_by_role("button", name="Submit and continue").click()

    # Items 4 and 5: quick complete matches; the demo's image is shown at its full size, so Z zooms nothing.
    heading(page, 4)
    page.keyboard.press("z")
    assert not page.locator("#zoom-dialog").is_visible()
    for n in (4, 5):
        heading(page, n)
        for key in ("3", "2", "3", "4"):
            page.keyboard.press(key)
        page.keyboard.press("Control+Enter")

    page.locator("#countdown", has_text="Taking you back to Prolific in").wait_for()  # 10 s to copy the code
    page.wait_for_url(re.compile(r"https://app\.prolific\.com/submissions/complete\?cc="), timeout=20_000)
    assert page.url == f"https://app.prolific.com/submissions/complete?cc={study.code_completed}"

    annotations = list(Annotation.objects.order_by("id"))
    assert len(annotations) == 5
    first = annotations[0].answers
    assert first["alignment"] == 0.5 and first["error_types"] == ["explicit"]
    assert [w["index"] for w in first["words"]] == [1, 3]
    assert first["stereotype"] == "no" and first["quality"] == 1 and first["overall"] == 4
    assert annotations[2].answers["stereotype_description"] == "Everyone is dressed in the same costume."
    assert "error_types" not in annotations[1].answers  # hidden at full alignment: not stored


def test_an_ineligible_annotator_leaves_with_the_not_eligible_code(page, live_server, demo):
    study, pool = demo
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    page.goto(entry(live_server, pool))
    page.get_by_role("button", name="I agree, continue").click()
    fieldsets = page.locator("fieldset").all()
    for fieldset in fieldsets[:-1]:
        fieldset.get_by_label("Yes").check()
    fieldsets[-1].get_by_label("No").check()
    page.get_by_role("button", name="Continue").click()
    # asked to return the study (Prolific's code for it says REQUEST_RETURN): no code to copy
    page.get_by_role("link", name="Return the study on Prolific").click()
    page.wait_for_url(f"https://app.prolific.com/submissions/complete?cc={study.code_not_eligible}")
    assert Annotator.objects.get().outcome == "not_eligible"

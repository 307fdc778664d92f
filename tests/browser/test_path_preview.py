"""A researcher previews a pool's whole annotator path from the pool list, by keyboard and mouse,
on a desktop and on a phone: the annotator's pages under the preview's banner, and nothing stored."""

import pytest
from django.db.models import Sum
from playwright.sync_api import expect

from annotation.models import Annotation, Annotator, Assignment, MockAttempt, Session
from studies.models import ItemQuota
from tests import factories as f

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"
BANNER = "Preview — nothing is saved"


def stored():
    return (Annotator.objects.count(), Session.objects.count(), Assignment.objects.count(),
            Annotation.objects.count(), MockAttempt.objects.count(),
            ItemQuota.objects.aggregate(done=Sum("done"), leased=Sum("leased")))


def item_ready(page, n):
    page.get_by_role("heading", name=f"Image {n} of 2").wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["desktop", "phone"])
def test_a_researcher_walks_a_pools_path_and_nothing_is_stored(browser, live_server, viewport):
    owner = f.make_researcher("researcher")
    study = f.make_study(owner, items_per_session=2)
    f.make_pool(study, "IN", "India")
    f.make_items(study, "IN", 3)
    question = f.make_mock_question(study, expected="No")
    before = stored()
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    try:
        page.goto(f"{live_server.url}/login/?next=/studies/{study.pk}/pools")
        page.get_by_label("Username").fill("researcher")
        page.get_by_label("Password").fill("pass-for-tests-1")
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("link", name="Preview as annotator of India").click()

        page.get_by_role("heading", name="Before you start").wait_for()
        assert page.get_by_role("note", name="Preview").get_by_text(BANNER).is_visible()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        expect(page.get_by_role("button", name="I agree, continue")).to_be_focused()  # autofocus, once applied
        page.keyboard.press("Enter")

        page.get_by_role("heading", name="About you").wait_for()
        for fieldset in page.locator("fieldset").all():
            fieldset.get_by_label("Yes").check()
        page.keyboard.press("Enter")  # submits the form from the focused radio
        page.get_by_role("heading", name="Instructions").wait_for()
        assert page.locator(".prose strong", has_text="Be careful.").is_visible()
        page.get_by_role("button", name="I have read the instructions").click()

        fieldset = page.locator("fieldset", has_text=question.text)
        fieldset.get_by_label("Completely", exact=True).check()
        page.get_by_role("button", name="Check my answers").click()
        page.get_by_text("You answered 0 of 1 correctly").wait_for()
        # the rule of the question answered wrongly (no feedback was written: the general note); no option marked
        feedback = page.locator("#practice-feedback")
        assert feedback.get_by_text("Read what the instructions say about this question again.").is_visible()
        assert not page.locator("fieldset", has_text=question.text).get_by_label("Completely", exact=True).is_checked()
        page.locator("fieldset", has_text=question.text).get_by_label("No", exact=True).check()
        page.get_by_role("button", name="Check my answers").click()

        item_ready(page, 1)
        page.keyboard.press("Control+Enter")  # an empty submit: the engine's errors beside the fields
        page.get_by_role("alert").filter(has_text="Please fix").wait_for()
        page.locator("#item-panel[data-ready=true]").wait_for()
        assert page.locator("#err-alignment").inner_text() == "This question needs an answer."
        for key in ("3", "2", "3", "5"):  # Completely, no stereotype, good quality, 5
            page.keyboard.press(key)
        page.keyboard.press("Control+Enter")

        item_ready(page, 2)
        assert page.get_by_text(BANNER).is_visible()  # the banner stays while items are swapped in
        for key in ("3", "2", "3", "4"):
            page.keyboard.press(key)
        page.get_by_role("button", name="Submit and continue").click()

        page.get_by_role("heading", name="All done, thank you!").wait_for()
        assert page.locator("#completion-code").inner_text() == study.code_completed
        page.wait_for_timeout(3500)  # an annotator would be on Prolific by now; the researcher stays
        assert "/preview/end/" in page.url
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        page.get_by_role("link", name="Exit preview").click()
        page.get_by_role("heading", name="Country pools").wait_for()
        assert stored() == before
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

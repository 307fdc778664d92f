"""A participant's session moves to a second browser (a phone) only with its resume code, read off the
first browser's page, and comes with the item and its draft; the first browser is then told where
its session went."""

import pytest
from django.core.management import call_command

from studies.models import CountryPool, Study
from tests.browser.test_annotator_path import entry, heading, onboard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DRAFT = "The wedding clothes are not traditional."
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def demo(live_server):
    call_command("demo_setup", verbosity=0)
    study = Study.objects.get(name="CulturalFrames demo")
    return study, CountryPool.objects.get(study=study, country="IN")


def test_a_second_browser_continues_the_item_and_its_draft_with_the_resume_code(page, browser, live_server, demo):
    study, pool = demo
    page.goto(entry(live_server, pool))
    onboard(page, study)
    heading(page, 1)
    page.keyboard.press("2")  # alignment: Partially, which opens the explanation
    page.get_by_role("textbox", name="Explain what is missing or incorrect").fill(DRAFT)
    page.locator(".draft-status", has_text="Draft saved").wait_for()
    code = page.locator("#resume-code-note strong").inner_text()
    assert len(code) == 9 and code[4] == "-"

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        second = phone.new_page()
        second.goto(entry(live_server, pool))
        second.get_by_role("heading", name="Continue your session in this browser").wait_for()
        assert DRAFT not in second.content()
        second.get_by_label("Resume code").fill("AAAA-AAAA")
        second.get_by_role("button", name="Continue here").click()
        second.get_by_text("That is not this session").wait_for()
        second.get_by_label("Resume code").fill(code.lower())
        second.get_by_role("button", name="Continue here").click()
        heading(second, 1)
        assert second.get_by_role("textbox", name="Explain what is missing or incorrect").input_value() == DRAFT
        assert second.locator("#resume-code-note strong").inner_text() == code
        assert second.evaluate(NO_SIDEWAYS_SCROLL)  # the bar with its code fits a phone
    finally:
        phone.close()

    page.reload()
    page.get_by_role("heading", name="This session continues in another browser").wait_for()
    assert DRAFT not in page.content()

"""A researcher looks at a preset's annotator form, creates a study from the preset in the browser,
sees the instructions' Markdown rendered while typing, and adds two country pools, on a desktop and
on a phone."""

import pytest

from studies.models import Study
from tests import factories as f

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


VIEWPORTS = [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["desktop", "phone"])
def test_a_researcher_creates_a_study_from_a_preset_and_adds_two_pools(browser, live_server, viewport):
    owner = f.make_researcher("researcher")
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{live_server.url}/login/?next=/studies/")
        page.get_by_label("Username").fill("researcher")
        page.get_by_label("Password").fill("pass-for-tests-1")
        page.get_by_role("button", name="Log in").click()

        page.get_by_role("link", name="New study").click()
        page.get_by_text("The questions annotators answer").first.wait_for()
        page.get_by_role("link", name="See the annotator's form of CulturalFrames image rating").click()
        form = page.get_by_role("form", name="The annotator's form (preview)")
        assert form.get_by_role("radio").first.is_visible()
        assert not Study.objects.exists()
        page.get_by_role("link", name="Start from “CulturalFrames image rating”").click()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)

        page.get_by_label("Name:", exact=True).fill("Festival images, round one")
        instructions = page.get_by_role("textbox", name="Instructions")
        instructions.fill("")
        instructions.press_sequentially("Before you start:\n- look closely\n- answer honestly", delay=5)
        preview = page.locator("#preview-instructions_md")
        preview.get_by_role("listitem").filter(has_text="answer honestly").wait_for()
        assert preview.get_by_role("listitem").count() == 2
        assert "- look closely" not in preview.inner_text()
        assert preview.locator("p").inner_text() == "Before you start:"  # no blank line needed (GitHub's way)
        consent = page.locator("#preview-consent_md")
        page.get_by_role("textbox", name="Consent text").fill("I **agree** to take part.")
        consent.locator("strong", has_text="agree").wait_for()
        assert "look closely" not in consent.inner_text()  # the consent box previews the consent

        page.get_by_label("Failed the practice test").fill(page.get_by_label("Completed").input_value())
        page.get_by_role("button", name="Create the study").click()
        page.get_by_text("every outcome needs its own code").wait_for()
        assert not Study.objects.exists()
        page.get_by_label("Failed the practice test").fill("MOCKFAIL1")
        page.get_by_role("button", name="Create the study").click()

        page.get_by_role("heading", name="Country pools").wait_for()
        study = Study.objects.get()
        assert study.owner == owner and study.instructions_md.endswith("- answer honestly")

        for code, name in (("IN", "India"), ("JP", "Japan")):
            page.get_by_role("link", name="Add a country pool").click()
            page.get_by_label("Country:", exact=True).select_option(code)
            wanted = page.get_by_label("Annotations wanted per item")
            wanted.fill("2")
            wanted.press("Enter")  # the keyboard submits the form
            page.get_by_text(f"The pool for {name} is added.").wait_for()
        rows = page.locator("table.workspace-pools tbody tr")
        assert rows.count() == 2
        assert "India" in rows.nth(0).inner_text() and "Japan" in rows.nth(1).inner_text()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        assert sorted(study.pools.values_list("country", "annotations_per_item")) == [("IN", 2), ("JP", 2)]

        page.get_by_role("link", name=f"← {study.name}").click()
        page.get_by_role("link", name="Country pools").wait_for()
        assert page.get_by_role("link", name="Settings and completion codes").is_visible()
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

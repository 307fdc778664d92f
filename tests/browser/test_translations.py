"""The Translations page at a phone's width, by the keyboard: a text typed shows its rendered Markdown
beside it, Enter on the save button stores it, and neither page scrolls sideways."""

import os

import pytest
from django.urls import reverse

from studies.models import Study
from studies.translations import translations_in
from tests import factories as f
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth + 1"


def test_the_translation_page_by_the_keyboard_on_a_phone(browser, live_server):
    owner = f.make_researcher("researcher")
    study = f.make_study(owner)
    f.make_pool(study, "JP", "Japan", language="ja")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        log_in(page, live_server, "researcher")
        page.goto(live_server.url + reverse("studies:translation-list", args=[study.pk]))
        assert page.get_by_text("Japanese: 0 of").is_visible()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        page.get_by_role("link", name="Translate into Japanese").focus()
        page.keyboard.press("Enter")
        page.get_by_role("heading", name="Japanese texts").wait_for()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)

        page.get_by_role("textbox", name="Consent text").focus()
        page.keyboard.type("**同意**します。")
        preview = page.locator("#preview-consent_md")
        preview.locator("strong", has_text="同意").wait_for()  # the live preview, rendered by the server
        quality = page.get_by_role("group", name="Question “Image quality”")
        quality.get_by_role("textbox", name="Question", exact=True).focus()
        page.keyboard.type("画像の品質")
        if os.environ.get("SCREENSHOTS"):
            page.screenshot(path=os.environ["SCREENSHOTS"] + "/translation-phone.png", full_page=True)
        save = page.get_by_role("button", name="Save the Japanese texts")
        for _ in range(80):  # Tab on from the last text typed to the save button
            page.keyboard.press("Tab")
            if save.evaluate("el => el === document.activeElement"):
                break
        page.keyboard.press("Enter")
        page.get_by_text("The Japanese texts are saved.").wait_for()
        assert page.get_by_text("Japanese: 2 of").is_visible()
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert translations_in(Study.objects.get(pk=study.pk), "ja") == {
        "consent_md": "**同意**します。", "field.quality.label": "画像の品質"}

"""An annotator of an Arabic pool, on a phone and on a desktop: the item page right to left (the bar
mirrored, nothing scrolling sideways), an item answered and submitted by the keyboard, then Japanese
chosen in the bar's language menu by the keyboard: the next item in Japanese, its draft kept."""

import pytest

from tests.factories import add_items, preset_study

from .helpers import start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 900}},
}


def tab_to(page, locator, limit=40):
    """Press Tab until ``locator`` has the focus."""
    for _ in range(limit):
        if locator.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError("the keyboard never reached it")


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("size", SIZES)
def test_an_arabic_annotator_works_right_to_left_then_switches_to_japanese(browser, live_server, size):
    study, pool = preset_study("culturalvqa-answer")
    pool.language = "ar"
    pool.save()
    add_items(study, 3, texts={"question": "What is this?"})
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        start_annotating(page, live_server, pool)
        page.get_by_role("heading", name="Question 1 من 3").wait_for()
        page.locator("#item-panel[data-ready=true]").wait_for()
        assert page.evaluate("document.dir") == "rtl"
        assert page.locator("html").get_attribute("lang") == "ar"
        assert no_sideways_scroll(page), "the Arabic page scrolls sideways"
        # the bar mirrored: the study's name starts it on the right, the language menu is not right of it
        width = page.evaluate("window.innerWidth")
        brand, menu = page.locator(".topbar .brand").bounding_box(), page.locator("#language-menu").bounding_box()
        assert brand["x"] + brand["width"] > width - 40, "the study's name is not on the right"
        assert menu["x"] + menu["width"] <= brand["x"] + brand["width"] + 1
        # the image keeps its own direction; the counter speaks Arabic
        assert page.locator(".item-media").evaluate("el => getComputedStyle(el).direction") == "ltr"
        assert page.get_by_role("button", name="إرسال ومتابعة").is_visible()

        answer = page.get_by_role("textbox", name="Your answer to the question")
        tab_to(page, answer)
        page.keyboard.type("Pongal")
        assert page.locator(".counter").inner_text() == "1 كلمة؛ اكتب من 1 إلى 3."
        page.keyboard.press("Enter")  # a one-line answer: Enter submits the item

        page.get_by_role("heading", name="Question 2 من 3").wait_for()
        page.locator("#item-panel[data-ready=true]").wait_for()
        assert stored_answers() == [{"answer": "Pongal"}]
        tab_to(page, answer)
        page.keyboard.type("Sweet rice")
        page.locator(".draft-status", has_text="تم حفظ المسودة").wait_for()
        assert no_sideways_scroll(page)

        # Japanese, from the bar's menu by the keyboard: the options are en, hi, ja, ar
        menu_select = page.locator("#language-menu")
        tab_to(page, menu_select, limit=80)
        page.keyboard.press("ArrowUp")
        assert menu_select.input_value() == "ja"
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")

        page.get_by_role("heading", name="Question 2 / 3").wait_for()
        page.locator("#item-panel[data-ready=true]").wait_for()
        assert page.evaluate("document.dir") == "ltr"
        assert page.locator("html").get_attribute("lang") == "ja"
        assert page.get_by_role("button", name="送信して次へ").is_visible()
        assert answer.input_value() == "Sweet rice"  # the draft, kept across the switch
        assert page.locator(".counter").inner_text() == "2 語。1〜3 語で書いてください。"
        assert no_sideways_scroll(page)
        assert stored_answers() == [{"answer": "Pongal"}]
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

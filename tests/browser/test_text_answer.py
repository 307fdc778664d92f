"""Text answers: the only text question takes the focus on arrival; a 1–3 word answer is one line
where Enter submits; a longer text keeps Enter for a new line."""

import re

import pytest

from tests.factories import add_items, preset_study, spec_study

from .helpers import item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUSED = "document.activeElement && document.activeElement.name"


def heading(start: str) -> re.Pattern:
    """"Question 1 of …", whatever the count ahead."""
    return re.compile(rf"^{start} of \d+$")


def test_a_short_answer_has_the_focus_on_arrival_and_enter_submits_it(page, live_server):
    study, pool = preset_study("culturalvqa-answer")
    add_items(study, 2, texts={"question": "What is this pattern called?"})
    start_annotating(page, live_server, pool)

    item_ready(page, heading("Question 1"))
    assert page.evaluate(FOCUSED) == "answer"
    assert page.evaluate("document.activeElement.tagName") == "INPUT"
    page.keyboard.type("Kolam")
    page.keyboard.press("Enter")

    item_ready(page, heading("Question 2"))  # the next item arrives by htmx, its answer focused again
    assert [a["answer"] for a in stored_answers()] == ["Kolam"]
    assert page.evaluate(FOCUSED) == "answer"
    page.keyboard.type("one two three four")
    page.keyboard.press("Enter")  # refused by the word limit: the focus stays on the answer
    page.get_by_role("alert").filter(has_text="Please fix 1 answer").wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()
    assert page.locator("#err-answer").inner_text() == "Write at most 3 words (you wrote 4)."
    assert page.evaluate(FOCUSED) == "answer"
    assert len(stored_answers()) == 1


def test_a_longer_text_is_focused_and_enter_makes_a_new_line(page, live_server):
    study, pool = preset_study("culturalvqa-question")
    add_items(study, 2)
    start_annotating(page, live_server, pool)

    item_ready(page, heading("Image 1"))
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    page.keyboard.type("What is the name")
    page.keyboard.press("Enter")
    page.keyboard.type("of this dance?")
    assert page.get_by_role("textbox").input_value() == "What is the name\nof this dance?"
    assert not stored_answers()


def test_a_text_after_another_question_leaves_the_focus_on_the_heading(page, live_server):
    study, pool = spec_study({"fields": [
        {"key": "fits", "type": "choice", "label": "Does it fit?", "choices": ["yes", "no"]},
        {"key": "name", "type": "text", "label": "Its name", "max_words": 3},
    ]})
    add_items(study, 2)
    start_annotating(page, live_server, pool)

    item_ready(page, heading("Image 1"))
    assert page.evaluate("document.activeElement.id") == "item-heading"


def test_a_touch_screen_keeps_its_keyboard_closed_on_arrival(browser, live_server):
    study, pool = preset_study("culturalvqa-answer")
    add_items(study, 2, texts={"question": "What is this pattern called?"})
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        start_annotating(page, live_server, pool)
        item_ready(page, heading("Question 1"))
        assert page.evaluate("document.activeElement.id") == "item-heading"
        assert page.get_by_role("textbox", name="Your answer to the question").get_attribute("enterkeyhint") == "send"
    finally:
        phone.close()

"""CulturalVQA question writing: background behind a click-to-expand, a word counter, a skip with a reason."""

import pytest

from tests.factories import add_items, preset_study

from .helpers import item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_image_is_skipped_with_a_reason_and_the_next_gets_a_question(page, live_server):
    study, pool = preset_study("culturalvqa-question")
    add_items(study, 4, texts={"background": "Pongal is a harvest festival of Tamil Nadu."})
    start_annotating(page, live_server, pool)

    item_ready(page, "Image 1 of 4")
    background = page.locator("details.part-background")
    assert background.locator("summary").inner_text() == "Background (click to expand)"
    assert not page.get_by_text("Pongal is a harvest festival").is_visible()
    background.locator("summary").click()
    assert page.get_by_text("Pongal is a harvest festival").is_visible()

    # Cancel first: nothing happens.
    page.get_by_role("button", name="Skip this image").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name="Cancel").click()
    assert not dialog.is_visible()
    # Then skip by keyboard: the number key picks a reason, Ctrl+Enter sends it.
    page.get_by_role("button", name="Skip this image").click()
    page.keyboard.press("2")
    assert dialog.get_by_role("radio", name="I am not familiar with what it shows").is_checked()
    page.keyboard.press("Control+Enter")

    item_ready(page, "Image 2 of 4")
    question = page.get_by_role("textbox", name="Write a question about this image")
    question.fill("What is this")
    assert page.locator(".counter").inner_text() == "3 words; write at least 3."
    question.fill("Which festival is this dish cooked for?")
    # A skip by mouse on the next image would drop this; submit the question instead.
    page.get_by_role("button", name="Submit and continue").click()

    item_ready(page, "Image 3 of 4")
    page.get_by_role("button", name="Skip this image").click()
    dialog.get_by_role("radio", name="The image is not culturally relevant").check()
    dialog.get_by_role("button", name="Skip this image").click()
    item_ready(page, "Image 4 of 4")

    assert stored_answers() == [
        {"_skip": "I am not familiar with what it shows"},
        {"question": "Which festival is this dish cooked for?"},
        {"_skip": "The image is not culturally relevant"},
    ]

"""CulturalFrames prompt filter: one prompt at a time, no image, Yes/No by number keys."""

import pytest

from tests.factories import add_items, preset_study

from .helpers import item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_prompts_are_answered_yes_or_no_by_keys(page, live_server):
    study, pool = preset_study("culturalframes-prompt-filter")
    add_items(study, 3, prompt="Children flying kites on a rooftop during Makar Sankranti")
    start_annotating(page, live_server, pool)

    item_ready(page, "Prompt 1 of 3")
    assert page.locator(".item-media").count() == 0  # no image: one centred column
    assert page.locator(".item-grid.single").count() == 1
    prompt = page.locator(".part-prompt")
    assert prompt.locator(".part-label").inner_text() == "Prompt"
    assert "flying kites" in prompt.inner_text()
    page.keyboard.press("1")  # Yes
    assert page.get_by_label("Yes").is_checked()
    page.keyboard.press("Control+Enter")

    item_ready(page, "Prompt 2 of 3")
    page.keyboard.press("2")  # No
    page.keyboard.press("Control+Enter")

    item_ready(page, "Prompt 3 of 3")
    assert stored_answers() == [{"fits_culture": "yes"}, {"fits_culture": "no"}]

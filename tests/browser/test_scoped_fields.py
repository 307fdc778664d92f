"""Field behaviour no preset exercises: boxes on the item image by keyboard alone, and conditions
evaluated within each document's own answers."""

import re

import pytest

from studies.models import Document
from tests.factories import add_items, spec_study

from .helpers import drag, item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOXES = {
    "fields": [{"key": "dishes", "type": "bbox", "over": "image", "max": 2, "label": "Box each dish"}],
    "display": {"noun": "Photo", "show": ["image"]},
}

SCOPED = {
    "fields": [{
        "key": "docs", "type": "per_document", "label": "Articles",
        "fields": [
            {"key": "relevant", "type": "choice", "label": "Relevant?", "choices": ["yes", "no"]},
            {"key": "why", "type": "text", "label": "Why is it relevant?",
             "show_if": {"field": "relevant", "eq": "yes"}},
        ],
    }],
    "display": {"show": ["image", "documents"]},
}


def test_boxes_are_drawn_on_the_item_image_by_keyboard_alone(page, live_server):
    study, pool = spec_study(BOXES)
    add_items(study, 2)  # 64 x 48 pixels
    start_annotating(page, live_server, pool)

    item_ready(page, "Photo 1 of 2")
    page.wait_for_function("document.querySelector('.bbox-image').naturalWidth === 64")
    page.locator(".bbox-stage").focus()
    page.keyboard.press("Enter")  # a box of a fifth of each side, in the middle: [26, 19, 13, 10]
    page.keyboard.press("ArrowLeft")  # 1% of 64 rounds to 1 px
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Enter")  # a second box
    page.keyboard.press("Enter")  # a third is refused: two at most
    assert page.locator(".bbox-problem").inner_text() == "At most 2 boxes: clear one first."
    page.keyboard.press("Delete")  # removes the last box
    assert page.locator(".bbox-box").count() == 1
    assert page.locator(".bbox-status").inner_text() == "The box covers 5% of the image."
    assert not page.locator(".bbox-problem").is_visible()
    page.keyboard.press("Control+Enter")

    item_ready(page, "Photo 2 of 2")
    [answers] = stored_answers()
    [box] = answers["dishes"]
    assert (box["x"], box["y"], box["w"], box["h"]) == (25, 19, 14, 10)


SPOT = {
    "fields": [{"key": "spot", "type": "bbox", "over": "image", "max": 1, "min_side": 0.2, "label": "Box the dish"}],
    "display": {"noun": "Photo", "show": ["image"]},
}



def test_a_click_or_a_too_small_drag_says_so_and_a_proper_drag_is_taken(page, live_server):
    study, pool = spec_study(SPOT)
    add_items(study, 2)  # 64 x 48 pixels: a box of 20% of each side is 13 x 10 px at least
    start_annotating(page, live_server, pool)

    item_ready(page, "Photo 1 of 2")  # two items: the count says what is really ahead
    page.wait_for_function("document.querySelector('.bbox-image').naturalWidth === 64")
    problem = page.locator(".bbox-problem")
    clear = page.get_by_role("button", name="Clear box")
    assert not problem.is_visible() and not clear.is_visible()  # nothing to clear yet

    drag(page, (0.5, 0.5), (0.5, 0.5))  # a click
    assert problem.inner_text() == "No box drawn: press on the image and drag across what you mean to mark."
    drag(page, (0.2, 0.2), (0.3, 0.3))  # about 6 x 5 px of the image
    assert problem.inner_text().startswith("That box is too small (")
    assert problem.inner_text().endswith(
        "; a box needs at least 13×10 px): drag across the whole area you mean to mark."
    )
    assert "error" not in page.locator(".bbox-status").get_attribute("class")
    assert page.locator(".bbox-box").count() == 0 and not clear.is_visible()

    drag(page, (0.2, 0.2), (0.7, 0.8))  # 32 x 29 px
    assert page.locator(".bbox-box").count() == 1 and clear.is_visible()
    assert not problem.is_visible()
    assert re.fullmatch(r"The box covers \d+% of the image\.", page.locator(".bbox-status").inner_text())
    page.keyboard.press("Control+Enter")

    item_ready(page, "Photo 2 of 2")
    [answers] = stored_answers()
    [box] = answers["spot"]
    assert abs(box["w"] - 32) <= 1 and abs(box["h"] - 29) <= 1


def test_a_documents_conditions_see_only_that_documents_answers(page, live_server):
    study, pool = spec_study(SCOPED)
    add_items(study, 2, documents=[("Onam", "https://en.wikipedia.org/wiki/Onam", "A harvest festival."),
                                   ("Sadhya", "", "A banquet.")])
    start_annotating(page, live_server, pool)

    item_ready(page, "Image 1 of 2")
    why = page.locator("textarea[name$='.why']")
    assert why.count() == 2 and not why.nth(0).is_visible() and not why.nth(1).is_visible()
    page.keyboard.press("1")  # document 1: yes; its own "why" opens and takes the focus
    assert why.nth(0).is_visible() and not why.nth(1).is_visible()
    assert page.evaluate("document.activeElement.name") == "docs.0.why"
    page.keyboard.type("It is the festival shown.")
    page.locator("[data-document]").nth(1).get_by_role("radio", name="no", exact=True).check()
    assert not why.nth(1).is_visible()
    page.get_by_role("button", name="Submit and continue").click()

    item_ready(page, "Image 2 of 2")
    onam, sadhya = Document.objects.filter(item__annotations__isnull=False).order_by("position")
    assert stored_answers() == [{"docs": [
        {"document": onam.pk, "relevant": "yes", "why": "It is the festival shown."},
        {"document": sadhya.pk, "relevant": "no"},
    ]}]

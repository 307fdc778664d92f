"""Field behaviour no preset exercises: boxes on the item image by keyboard alone, and conditions
evaluated within each document's own answers."""

import pytest

from studies.models import Document
from tests.factories import add_items, spec_study

from .helpers import item_ready, start_annotating, stored_answers

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
    assert page.locator(".bbox-status").inner_text() == "At most 2 boxes: clear one first."
    page.keyboard.press("Delete")  # removes the last box
    assert page.locator(".bbox-box").count() == 1
    assert page.locator(".bbox-status").inner_text() == "The box covers 5% of the image."
    page.keyboard.press("Control+Enter")

    item_ready(page, "Photo 2 of 2")
    [answers] = stored_answers()
    [box] = answers["dishes"]
    assert (box["x"], box["y"], box["w"], box["h"]) == (25, 19, 14, 10)


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

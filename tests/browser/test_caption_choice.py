"""RAVENEA caption choice: three captions in this annotator's own order; the stored order is the one shown."""

import pytest

from annotation.context import candidate_order
from annotation.models import Assignment
from tests.factories import add_items, preset_study

from .helpers import item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CANDIDATES = [
    {"id": "sys-a", "text": "A woman in a red sari lights diyas at dusk."},
    {"id": "sys-b", "text": "Diwali: a woman lights clay oil lamps (diyas) on her doorstep."},
    {"id": "sys-c", "text": "A person holding candles."},
]


def shown_order(page) -> list[str]:
    radios = page.locator("fieldset[data-field=best_caption] input[type=radio]")
    return [radios.nth(i).get_attribute("value") for i in range(radios.count())]


def test_one_caption_is_picked_by_key_and_by_mouse(page, live_server):
    study, pool = preset_study("ravenea-caption-choice")
    add_items(study, 3, candidates=CANDIDATES)
    start_annotating(page, live_server, pool)

    item_ready(page, "Image 1 of 3")
    first = shown_order(page)
    assert first == [c["id"] for c in candidate_order(Assignment.objects.get(position=1))]
    assert page.locator(".keys", has_text="keys 1–3").count() == 1
    page.keyboard.press("2")  # the second caption as shown
    page.keyboard.press("Control+Enter")

    item_ready(page, "Image 2 of 3")
    second = shown_order(page)
    text = next(c["text"] for c in CANDIDATES if c["id"] == second[2])
    page.get_by_label(text).check()  # the third one as shown, by mouse
    page.get_by_role("button", name="Submit and continue").click()

    item_ready(page, "Image 3 of 3")
    assert stored_answers() == [
        {"best_caption": {"choice": first[1], "order": first}},
        {"best_caption": {"choice": second[2], "order": second}},
    ]

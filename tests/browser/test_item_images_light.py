"""Item images on the annotator's page: a lighter copy shown where it is enough (srcset), boxes drawn
on it stored in the original's pixels, and the next item's image fetched before the submit, which then
shows it without fetching it again."""

import pytest

from studies.derivatives import derivatives_make
from tests.factories import add_items, spec_study

from .helpers import drag, item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOX = {
    "fields": [{"key": "spot", "type": "bbox", "over": "image", "max": 1, "label": "Box the dish"}],
    "display": {"noun": "Photo", "show": ["image"]},
}
CHOICE = {
    "fields": [{"key": "fits", "type": "choice", "label": "Does it fit?", "choices": ["yes", "no"]}],
    "display": {"noun": "Photo", "show": ["image"]},
}



def test_a_box_drawn_on_a_lighter_copy_is_stored_in_the_originals_pixels(page, live_server):
    study, pool = spec_study(BOX)
    add_items(study, 2, size=(1400, 1000))
    derivatives_make(study_id=study.pk)
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the 640 px copy is enough
    start_annotating(page, live_server, pool)

    item_ready(page, "Photo 1 of 2")
    # the copy is shown; its naturalWidth is Chrome's density-corrected 390, neither the copy's nor the original's
    page.wait_for_function("(i => i.complete && i.naturalWidth > 0 && i.currentSrc.endsWith('w=640'))"
                           "(document.querySelector('.bbox-image'))")
    drag(page, (0.25, 0.2), (0.75, 0.6))  # half the width, 40% of the height
    page.keyboard.press("Control+Enter")

    item_ready(page, "Photo 2 of 2")
    [answers] = stored_answers()
    [box] = answers["spot"]
    assert abs(box["x"] - 350) <= 8 and abs(box["y"] - 200) <= 8  # of the 1400 x 1000 original, not of the copy
    assert abs(box["w"] - 700) <= 8 and abs(box["h"] - 400) <= 8


def test_the_next_image_is_fetched_before_the_submit_and_not_again_after(page, live_server):
    study, pool = spec_study(CHOICE)
    add_items(study, 3)
    images = []
    page.on("request", lambda r: images.append(r.url) if "/a/images/" in r.url else None)
    start_annotating(page, live_server, pool)

    item_ready(page, "Photo 1 of 3")
    ahead = page.locator("[data-prefetch-src]").get_attribute("data-prefetch-src")
    page.wait_for_function("src => performance.getEntriesByType('resource').some(e => e.name.endsWith(src))",
                           arg=ahead)  # fetched while the first item is on screen, nothing leased for it
    assert [u for u in images if u.endswith(ahead)] and images.count(images[-1]) == 1
    before = len(images)
    page.get_by_label("yes").check()
    page.get_by_role("button", name="Submit and continue").click()

    item_ready(page, "Photo 2 of 3")
    page.wait_for_function("document.querySelector('.item-media img').complete")
    assert page.locator(".item-media img").get_attribute("src") == ahead
    assert not [u for u in images[before:] if u.endswith(ahead)]  # shown from the browser's cache

"""A checker reviews a pairwise annotation in Chromium: the two images compared show side by side in
the order the annotator saw them, labelled by the number the answer names, at desktop and phone
widths, the page not scrolling sideways; Accept by keyboard."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.context import image_order
from annotation.models import Checker, Review
from tests import factories as f
from tests.annotations import annotate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_checker_sees_the_pair_side_by_side_and_accepts(browser, live_server, width):
    study, pool = f.spec_study({"fields": [{"key": "pair", "type": "pairwise", "level": "nominal",
                                             "label": "Which image shows the festival better?"}]})
    item = f.make_comparison_item(study, pool.country, models=("model-a", "model-b"), size=(640, 480))
    annotation = annotate(f.make_annotator(pool), item, {"pair": {"choice": "2", "order": ["2", "1"]}})
    user = get_user_model().objects.create_user("meera", password="pass-for-tests-1")
    Checker.objects.create(pool=pool, user=user)
    shown = [image.ref_id for image in image_order(annotation.assignment)]

    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live_server.url + reverse("annotation:review-pool", args=[study.pk, pool.pk]))
    page.get_by_label("Username").fill("meera")
    page.get_by_label("Password").fill("pass-for-tests-1")
    page.keyboard.press("Enter")
    page.locator("#review-panel[data-ready=true]").wait_for()
    cards = page.locator(".review-compare .compare-card")
    assert cards.count() == 2
    assert [cards.nth(n).locator(".compare-label").inner_text() for n in range(2)] == [
        f"Image {shown[0]}, shown left", f"Image {shown[1]}, shown right"]
    for n in range(2):  # each image loads (served to the checker), none broken: waited for, not sampled
        image = cards.nth(n).locator("img").element_handle()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image, timeout=10_000)
    left, right = (cards.nth(n).bounding_box() for n in range(2))
    assert left["y"] == right["y"] and left["x"] + left["width"] <= right["x"] + 1
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert "model-a" not in page.content()
    page.get_by_text("Image 2 over image 1").wait_for()
    page.keyboard.press("a")
    page.get_by_role("status").filter(has_text="Accepted the annotation by").wait_for()
    assert Review.objects.get(annotation=annotation).outcome == "accepted"
    context.close()
    assert not errors, errors

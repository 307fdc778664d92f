"""GlobalRG grounding: upload an image of the concept, draw one box on it by dragging, refine it by keys."""

import pytest
from PIL import Image, ImageDraw

from annotation.models import Upload
from tests.factories import add_items, preset_study

from .helpers import item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "kathakali.png"
    image = Image.new("RGB", (400, 300), (230, 230, 220))
    ImageDraw.Draw(image).ellipse((40, 60, 120, 120), fill=(200, 40, 40))
    image.save(path)
    return path


def drag(page, stage, start, end):
    """Drag across the stage from and to fractions of its size."""
    box = stage.bounding_box()
    page.mouse.move(box["x"] + start[0] * box["width"], box["y"] + start[1] * box["height"])
    page.mouse.down()
    page.mouse.move(box["x"] + end[0] * box["width"], box["y"] + end[1] * box["height"], steps=4)
    page.mouse.up()


def test_a_box_is_drawn_on_the_uploaded_image_too_big_first_then_tight(page, live_server, photo, tmp_path):
    study, pool = preset_study("globalrg-grounding")
    add_items(study, 2, prompt="Kathakali")
    start_annotating(page, live_server, pool)

    item_ready(page, "Concept 1 of 2")
    concept = page.locator(".part-prompt")
    assert concept.locator(".part-label").inner_text() == "Concept" and "Kathakali" in concept.inner_text()
    assert page.get_by_text("Upload the image first").is_visible()

    # A text file is refused by the server, its message shown next to the field.
    notes = tmp_path / "notes.txt"
    notes.write_text("not an image")
    chooser = page.get_by_label("Choose an image file")
    chooser.set_input_files(notes)
    page.locator(".upload-error").filter(has_text="not an image in an allowed format").wait_for()

    chooser.set_input_files(photo)
    page.locator(".upload-status", has_text="Uploaded.").wait_for()
    assert page.locator(".upload-figure figcaption").inner_text() == "kathakali.png · 400×300 px"
    # The upload survives a reload (its token is in the draft).
    page.locator(".draft-status", has_text="Draft saved").wait_for()
    page.reload()
    item_ready(page, "Concept 1 of 2")
    page.wait_for_function("document.querySelector('.bbox-image').naturalWidth === 400")
    stage = page.locator(".bbox-stage")

    # Too big: the problem line says so (the neutral status steps aside), and the server refuses
    # it with the same words, shown once.
    too_big = "The box covers 68% of the image; it must cover less than 30%. Draw it tighter around the concept."
    assert not page.get_by_role("button", name="Clear box").is_visible()  # no box yet
    drag(page, stage, (0.05, 0.05), (0.85, 0.9))
    status = page.locator(".bbox-status")
    assert page.locator(".bbox-problem").inner_text() == too_big
    assert status.inner_text() == "" and "error" not in status.get_attribute("class")
    assert page.get_by_role("button", name="Clear box").is_visible()
    page.keyboard.press("1")  # prevalent: Yes
    page.keyboard.press("Control+Enter")
    page.get_by_role("alert").filter(has_text="Please fix 1 answer").wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()  # the refused form, swapped in, takes input again
    page.wait_for_function("document.querySelector('.bbox-image').naturalWidth === 400")
    assert page.locator("#err-box").inner_text() == too_big
    assert page.get_by_text("covers 68%").count() == 1  # one message for one problem

    # A tight box replaces it (one box at most), then arrows nudge it and Shift+arrows resize it.
    page.wait_for_function("document.querySelector('.bbox-image').naturalWidth === 400")
    drag(page, stage, (0.1, 0.2), (0.3, 0.4))
    assert page.locator(".bbox-box").count() == 1
    assert status.inner_text() == "The box covers 4% of the image; less than 30% is allowed."
    assert not page.locator("#err-box").is_visible()  # the refused box is gone, and its message with it
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    page.get_by_role("button", name="Submit and continue").click()

    item_ready(page, "Concept 2 of 2")
    [answers] = stored_answers()
    upload = Upload.objects.get(token=answers["photo"]["upload"])
    assert (upload.width, upload.height, upload.original_name) == (400, 300, "kathakali.png")
    assert answers["prevalent"] == "yes"
    [box] = answers["box"]
    assert abs(box["x"] - 44) <= 2 and abs(box["y"] - 60) <= 2  # 10% of 400, nudged by 1% = 4 px; 20% of 300
    assert abs(box["w"] - 80) <= 2 and abs(box["h"] - 63) <= 2  # 20% of 400; 20% of 300 + 1% = 3 px
    assert box["area_ratio"] < 0.3

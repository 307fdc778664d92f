"""What the item page and the review page share (static/annotation/page.js, _item_display.html), tried
on both: the shortcut keys' guard (a key typed into a text box, a list, an editable element or a number
input is text or a choice there, never a shortcut; the same key elsewhere on the page is one), and a
phone's width (one column, the image on top, zoomed by a click)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Checker, Review
from annotation.services import annotation_submit, assignment_next
from tests import factories as f
from tests.factories import add_items, spec_study

from .helpers import item_ready, start_annotating

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROTOCOL = {
    "fields": [
        {"key": "mood", "type": "choice", "label": "Mood", "choices": ["calm", "tense"], "level": "nominal"},
        {"key": "why", "type": "text", "label": "Why?"},
    ],
    "display": {"show": ["image"]},
}

LARGE = (1600, 1200)  # images larger than they are shown, at 1280 px and on a phone: there is something to zoom

# Fields no protocol has yet, added to the form to try the guard on every kind of typing target.
ADD_PROBES = """form => form.insertAdjacentHTML("beforeend", `
  <select id="probe-select"><option value="">-</option><option>2 two</option><option>a apple</option>
    <option>n nut</option><option>z zest</option></select>
  <input id="probe-number" type="number">
  <div id="probe-editable" contenteditable="true"></div>`)"""


def probes(page, form: str):
    page.locator(form).evaluate(ADD_PROBES)
    return page.locator("#probe-select"), page.locator("#probe-number"), page.locator("#probe-editable")


def annotated_for_review(pool):
    """Every item of the pool annotated once; a checker of the pool."""
    session = f.make_session(f.make_annotator(pool))
    while (assignment := assignment_next(session=session)) is not None:
        annotation_submit(assignment=assignment, data={"mood": ["calm"], "why": ["Quiet faces."]})
    checker = get_user_model().objects.create_user("meera", password="pass-for-tests-1")
    Checker.objects.create(pool=pool, user=checker)


def start_reviewing(page, live_server, study, pool):
    page.goto(live_server.url + reverse("annotation:review-pool", args=[study.pk, pool.pk]))
    page.get_by_label("Username").fill("meera")
    page.get_by_label("Password").fill("pass-for-tests-1")
    page.keyboard.press("Enter")
    page.locator("#review-panel[data-ready=true]").wait_for()


def active_id(page) -> str:
    return page.evaluate("document.activeElement.id || document.activeElement.name")


def test_keys_typed_in_fields_of_the_item_page_are_not_shortcuts(page, live_server):
    study, pool = spec_study(PROTOCOL)
    add_items(study, 2, size=LARGE)
    start_annotating(page, live_server, pool)
    item_ready(page, "Image 1 of 2")
    mood = page.locator("fieldset[data-field=mood] input[type=radio]")
    zoom = page.locator("#zoom-dialog")
    select, number, editable = probes(page, "#item-form")

    page.get_by_role("textbox", name="Why?").press_sequentially("2z1")
    assert page.get_by_role("textbox", name="Why?").input_value() == "2z1"
    select.focus()
    page.keyboard.press("2")
    assert select.input_value() == "2 two"
    page.wait_for_timeout(1100)  # a list's type-ahead joins the keys typed within a second
    page.keyboard.press("z")
    assert select.input_value() == "z zest"
    number.press_sequentially("12")
    assert number.input_value() == "12"
    editable.press_sequentially("1z")
    assert editable.inner_text() == "1z"
    assert mood.evaluate_all("inputs => inputs.filter(i => i.checked).length") == 0  # no answer chosen
    assert not zoom.is_visible()
    assert active_id(page) == "probe-editable"

    # Out of the fields the same keys are shortcuts: Z zooms, 2 answers the first unanswered question
    # (and the focus moves on to the text box, where keys are text again).
    page.locator("#item-heading").focus()
    page.keyboard.press("z")
    assert zoom.is_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("2")
    assert page.get_by_role("radio", name="tense").is_checked()
    assert active_id(page) == "why"


def test_keys_typed_in_fields_of_the_review_page_are_not_shortcuts(page, live_server):
    study, pool = spec_study(PROTOCOL)
    add_items(study, 2, size=LARGE)
    annotated_for_review(pool)
    start_reviewing(page, live_server, study, pool)
    accept = page.get_by_role("button", name="Accept")
    zoom = page.locator("#zoom-dialog")
    select, number, editable = probes(page, "#review-form")

    # A (accept), F (flag), N (note), Z (zoom) and the number keys, typed into the note and the probes.
    note = page.get_by_label("Note")
    note.press_sequentially("fine as it is, zero issues 2")
    assert note.input_value() == "fine as it is, zero issues 2"
    select.focus()
    page.keyboard.press("n")
    assert select.input_value() == "n nut"
    page.wait_for_timeout(1100)  # a list's type-ahead joins the keys typed within a second
    page.keyboard.press("a")
    assert select.input_value() == "a apple"
    assert active_id(page) == "probe-select"  # N did not move the focus to the note
    number.press_sequentially("2")
    assert number.input_value() == "2"
    editable.press_sequentially("afnz")
    assert editable.inner_text() == "afnz"
    assert active_id(page) == "probe-editable"
    assert page.locator("#err-review-note").count() == 0  # F did not flag
    assert not zoom.is_visible() and accept.is_enabled()
    assert page.get_by_role("radio", name="calm").is_checked()
    assert not Review.objects.exists()  # A did not accept

    # Out of the fields the same keys are shortcuts: Z zooms, N goes to the note, A accepts.
    page.locator("#review-heading").focus()
    page.keyboard.press("z")
    assert zoom.is_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("n")
    assert active_id(page) == "review-note"
    page.locator("#review-heading").focus()
    page.keyboard.press("a")
    page.get_by_role("status").filter(has_text="Accepted the annotation by").wait_for()
    [review] = Review.objects.all()
    assert (review.outcome, review.note) == ("accepted", "fine as it is, zero issues 2")


def one_column_with_the_image_on_top(page):
    media, questions = page.locator(".item-media").bounding_box(), page.locator(".item-questions").bounding_box()
    assert media["y"] + media["height"] <= questions["y"]
    assert abs(media["x"] - questions["x"]) < 1 and abs(media["width"] - questions["width"]) < 1
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing sideways
    page.locator("[data-zoom]").click()
    zoom = page.locator("#zoom-dialog")
    assert zoom.is_visible()
    zoom.locator("img").click()
    assert not zoom.is_visible()


def test_on_a_phone_both_pages_are_one_column_and_the_image_zooms_on_a_click(page, live_server):
    page.set_viewport_size({"width": 390, "height": 844})
    study, pool = spec_study(PROTOCOL)
    add_items(study, 2, size=LARGE)
    start_annotating(page, live_server, pool)
    item_ready(page, "Image 1 of 2")
    one_column_with_the_image_on_top(page)

    annotated_for_review(pool)
    start_reviewing(page, live_server, study, pool)
    one_column_with_the_image_on_top(page)

"""A refused submit on the item page: what was typed is kept (a reload shows it), and the page shows
the first refused answer, with the focus in it, and links to each one from its error banner."""

import pytest

from annotation.models import Annotation
from tests.factories import add_items, spec_study

from .helpers import item_ready, start_annotating

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPTIONAL = [
    {"key": f"extra{n}", "type": "choice", "label": f"Extra question {n}", "choices": ["yes", "no"],
     "level": "nominal", "required": False}
    for n in range(1, 7)
]
PROTOCOL = {
    "fields": [
        {"key": "why", "type": "text", "label": "Why?"},
        *OPTIONAL,
        {"key": "mood", "type": "choice", "label": "Mood", "choices": ["calm", "tense"], "level": "nominal"},
        {"key": "tone", "type": "choice", "label": "Tone", "choices": ["warm", "cold"], "level": "nominal"},
    ],
    "display": {"show": ["image"]},
}


def typed_then_refused(page, live_server, text: str) -> None:
    """On the first of two items, ``text`` typed and submitted at once (no time for the draft's
    timer) with required answers missing, until the refusal is shown."""
    study, pool = spec_study(PROTOCOL)
    add_items(study, 2)
    start_annotating(page, live_server, pool)
    item_ready(page, "Image 1 of 2")
    page.get_by_role("textbox", name="Why?").fill(text)
    page.get_by_role("button", name="Submit and continue").click()
    page.locator("#form-errors").wait_for()


def test_what_was_typed_before_a_refused_submit_survives_a_reload(page, live_server):
    typed_then_refused(page, live_server, "Typed in the last second")
    page.reload()
    item_ready(page, "Image 1 of 2")
    assert page.get_by_role("textbox", name="Why?").input_value() == "Typed in the last second"
    assert not Annotation.objects.exists()


def test_a_refused_submit_shows_and_focuses_the_first_refused_answer(page, live_server):
    page.set_viewport_size({"width": 1280, "height": 500})
    typed_then_refused(page, live_server, "Quiet faces")
    page.locator("#item-panel[data-ready=true]").wait_for()
    focused = page.evaluate("""() => {
        const el = document.activeElement, r = el.getBoundingClientRect();
        return {field: el.closest('[data-field]')?.dataset.field, name: el.name,
                inView: r.top >= 0 && r.bottom <= window.innerHeight, ring: el.matches(':focus-visible')};
    }""")
    # the focus ring shows though Submit was clicked with the mouse
    assert focused == {"field": "mood", "name": "mood", "inView": True, "ring": True}

    links = page.locator("#form-errors a")
    assert links.evaluate_all("els => els.map(a => [a.textContent, a.getAttribute('href')])") == [
        ["Mood", "#q-mood"], ["Tone", "#q-tone"],
    ]
    page.evaluate("window.scrollTo(0, 0)")
    links.nth(1).click()
    assert page.evaluate("document.activeElement.name") == "tone"
    assert page.locator("fieldset[data-field=tone] input").first.evaluate(
        "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }")


def test_what_was_typed_before_a_reload_survives_a_lost_page_hide_draft(page, live_server):
    # the draft sent as the page goes (a beacon) is lost, as when it reaches the server after the
    # reloaded page was rendered, or never
    page.add_init_script("navigator.sendBeacon = () => true")
    study, pool = spec_study(PROTOCOL)
    add_items(study, 2)
    start_annotating(page, live_server, pool)
    item_ready(page, "Image 1 of 2")

    page.get_by_role("textbox", name="Why?").fill("Typed just before the reload")
    page.reload()
    item_ready(page, "Image 1 of 2")
    page.wait_for_function("document.querySelector('textarea[name=why]').value === 'Typed just before the reload'")
    assert page.locator("#item-panel[data-ready=true]").count() == 1
    assert not Annotation.objects.exists()

"""The annotator's page by the keyboard alone, with its focus always seen and its motion stopped on request:
a box drawn, moved, resized and removed on an uploaded image (stored in the image's own pixels), words of a
prompt marked with Tab and Space, each then submitted; every stop of Tab on the eligibility and item pages
shows a focus outline of at least 2 px with 3:1 contrast; ``prefers-reduced-motion: reduce`` leaves no
transition running."""

import pytest
from django.utils import timezone
from PIL import Image

from tests import factories as f
from tests.factories import add_items, preset_study

from .helpers import item_ready, start_annotating, stored_answers
from .test_rtl_item_page import tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "kathakali.png"
    Image.new("RGB", (1000, 750), (230, 230, 220)).save(path)
    return path


def test_a_box_is_drawn_moved_resized_and_removed_by_the_keyboard_alone(page, live_server, photo):
    study, pool = preset_study("globalrg-grounding")
    add_items(study, 2, prompt="Kathakali")
    start_annotating(page, live_server, pool)
    item_ready(page, "Concept 1 of 2")
    assert page.locator(".bbox .hint").inner_text().endswith(
        "Keyboard: focus the image, press Enter for a box, arrows move it, Shift+arrows resize it, Delete removes it.")

    # the file dialog, opened by the keyboard (listened for first: Chromium then lets Playwright answer it)
    page.once("filechooser", lambda chooser: chooser.set_files(photo))
    tab_to(page, page.get_by_label("Choose an image file"))
    page.keyboard.press("Space")
    page.locator(".upload-status", has_text="Uploaded.").wait_for()
    page.wait_for_function("document.querySelector('.bbox-image').naturalWidth === 1000")

    stage = page.get_by_role("application", name="Draw one box around the concept: the image to draw on")
    tab_to(page, stage)
    assert stage.evaluate("el => getComputedStyle(el).outlineStyle") == "solid"  # the focus is seen
    page.keyboard.press("Enter")  # a box in the middle, a fifth of each side: 200×150 at (400, 300)
    assert page.locator(".bbox-box").count() == 1
    status = page.locator(".bbox-status")
    assert status.inner_text() == "The box covers 4% of the image; less than 30% is allowed."
    page.keyboard.press("Delete")
    assert page.locator(".bbox-box").count() == 0 and status.inner_text() == "No box yet."
    page.keyboard.press("Enter")
    for key in ("ArrowRight",) * 3 + ("ArrowUp",) * 2:  # a step is 1% of a side: 10 px across, 8 px down
        page.keyboard.press(key)
    for key in ("Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowDown"):
        page.keyboard.press(key)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('[data-bbox-clear]')")  # "Clear box", next
    tab_to(page, page.locator("fieldset[data-field=prevalent] input[type=radio]").first)
    page.keyboard.press("Space")  # prevalent: Yes
    page.keyboard.press("Control+Enter")

    item_ready(page, "Concept 2 of 2")
    [answers] = stored_answers()
    [box] = answers["box"]
    assert (box["x"], box["y"], box["w"], box["h"]) == (430, 284, 220, 158)  # the uploaded image's own pixels
    assert answers["prevalent"] == "yes"


def test_words_are_marked_and_unmarked_by_tab_and_space_then_submitted(page, live_server):
    study, pool = preset_study("culturalframes-rating")
    add_items(study, 2, prompt="A family sharing a meal at a festival")
    start_annotating(page, live_server, pool)
    item_ready(page, "Image 1 of 2")
    page.keyboard.press("2")  # alignment: Partially; the focus moves on to "What is missing"
    page.keyboard.press("Space")  # explicit
    words = page.locator("fieldset[data-field=words]")
    assert "Tab to them and press Space" in words.locator(".hint").inner_text()
    family = page.get_by_role("checkbox", name="family", exact=True)
    tab_to(page, family)
    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # on to "sharing"
    page.keyboard.press("Space")
    page.keyboard.press("Space")  # and off again
    page.keyboard.press("Tab")  # "a"
    page.keyboard.press("Tab")  # "meal"
    page.keyboard.press("Space")
    assert family.is_checked() and page.get_by_role("checkbox", name="meal").is_checked()
    assert not page.get_by_role("checkbox", name="sharing").is_checked()
    page.keyboard.press("Tab")
    explanation = page.get_by_role("textbox", name="Explain what is missing or incorrect")
    tab_to(page, explanation)
    page.keyboard.type("No festival food on the table.")
    page.keyboard.press("Tab")  # out of the text, on to the stereotype question
    for key in ("2", "3", "4"):  # stereotype No, quality Good, overall 4
        page.keyboard.press(key)
    page.keyboard.press("Control+Enter")

    item_ready(page, "Image 2 of 2")
    [answers] = stored_answers()
    assert [w["index"] for w in answers["words"]] == [1, 4]  # "family", "meal"
    assert answers["explanation"] == "No festival food on the table."


# --- focus seen, motion stopped -------------------------------------------------------------------

FOCUSED = """() => {
    const el = document.activeElement;
    // a control drawn by its label (a word's check box, hidden under it) shows its focus there
    const hidden = el.getBoundingClientRect().width <= 1 || getComputedStyle(el).opacity === "0";
    const target = hidden && el.id ? document.querySelector(`label[for="${el.id}"]`) || el : el;
    const s = getComputedStyle(target);
    return {key: el.tagName + "#" + el.id + "." + el.className + "[" + (el.name || "") + "=" + (el.value || "") + "]",
            style: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor};
}"""


def luminance(rgb: str) -> float:
    channels = [int(c) / 255 for c in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def tab_round(page, limit=120) -> list[dict]:
    """Press Tab from the top of the page until the focus leaves it: what each stop showed."""
    page.locator(".skip-link").focus()  # the first stop of every page, then reached by the keyboard
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    stops: list[dict] = [page.evaluate(FOCUSED)]
    for _ in range(limit):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED)
        if stop["key"].startswith("BODY#") or (stops and stop["key"] == stops[0]["key"]):
            break
        stops.append(stop)
    return stops


def unseen(stops) -> list[str]:
    """The stops whose focus is not seen: no outline, one under 2 px, or one under 3:1 against white or
    the page's background."""
    return [s["key"] for s in stops if s["style"] in ("none", "hidden") or s["width"] < 2
            or min(contrast(s["color"], "rgb(255, 255, 255)"), contrast(s["color"], "rgb(246, 247, 249)")) < 3]


def test_every_stop_of_tab_shows_its_focus(page, live_server):
    study, pool = preset_study("culturalframes-rating")
    add_items(study, 2, size=(1600, 1200))  # larger than shown: the zoom is a stop
    annotator = f.make_annotator(pool, "focus000000000000000001", onboarded=False)
    annotator.consented_at = timezone.now()
    annotator.save()
    page.goto(live_server.url + f.entry_url(pool, pid=annotator.prolific_pid))
    page.locator("input[name=born]").first.wait_for()
    stops = tab_round(page)
    assert len(stops) >= 8  # the skip link, the language menu and its button, 4 questions, Continue
    assert not unseen(stops), unseen(stops)

    for radio in page.locator("input[type=radio][value=yes]").all():
        radio.check()
    page.locator("main form button[type=submit]").click()
    page.locator("main form button.primary").click()  # instructions read
    item_ready(page, "Image 1 of 2")
    page.locator("fieldset[data-field=alignment] input[value='0.5']").check()  # Partially: words and text open
    page.locator("fieldset[data-field=explanation] textarea").wait_for()
    stops = tab_round(page)
    kinds = " ".join(s["key"] for s in stops)
    assert "token-input" in kinds and "TEXTAREA" in kinds and "zoom" in kinds and "SELECT" in kinds
    assert not unseen(stops), unseen(stops)


def transitions(page) -> set[str]:
    return set(page.locator("label.option").first.evaluate("el => getComputedStyle(el).transitionDuration").split(", "))


@pytest.mark.parametrize("motion, durations", [("reduce", {"0s"}), ("no-preference", {"0.15s"})])
def test_reduced_motion_stops_every_transition(browser, live_server, motion, durations):
    study, pool = preset_study("culturalframes-rating")
    add_items(study, 1)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion=motion)
    try:
        page = context.new_page()
        start_annotating(page, live_server, pool)
        item_ready(page, "Image 1 of 1")
        assert transitions(page) == durations
        if motion == "reduce":  # every element of the page, htmx's own style included
            moving = page.evaluate("""() => [...document.querySelectorAll("*")].filter(el => {
                const s = getComputedStyle(el);
                return s.transitionDuration.split(", ").some(d => d !== "0s")
                    || s.animationDuration.split(", ").some(d => d !== "0s") || s.scrollBehavior === "smooth";
            }).map(el => el.tagName + "." + el.className)""")
            assert moving == []
    finally:
        context.close()

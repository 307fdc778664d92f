"""The item page's controls at WCAG 2.2 contrast, in Chromium: the edges of text boxes, radios, check
boxes and buttons and the focus ring at least 3:1 against what is behind them (1.4.11), radios and
their rows large enough to hit, the "i" buttons at least 24×24 px (2.5.8)."""

import re

import pytest
from django.core.management import call_command

from studies.models import CountryPool, Study
from tests import factories as f
from tests.factories import entry_url

from .test_demo_studies import DEMOS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# An element's colour (its border's, or its outline's) and the colour behind it: the first ancestor
# (its parent first) with a background that is not transparent.
COLOURS = """(el, prop) => {
  let behind = el.parentElement;
  while (behind && getComputedStyle(behind).backgroundColor.match(/rgba\\(.*, 0\\)$|transparent/)) {
    behind = behind.parentElement;
  }
  return [getComputedStyle(el)[prop], behind ? getComputedStyle(behind).backgroundColor : "rgb(255, 255, 255)"];
}"""


def luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_helper_matches_wcag():
    assert round(contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)"), 1) == 21.0
    assert round(contrast("rgb(118, 118, 118)", "rgb(255, 255, 255)"), 2) == 4.54


def edge_contrast(locator, side="Top") -> float:
    return contrast(*locator.evaluate(COLOURS, f"border{side}Color"))


@pytest.fixture
def item_page(page, live_server):
    call_command("demo_setup", verbosity=0)
    pool = CountryPool.objects.get(study=Study.objects.get(name=DEMOS["culturalframes-rating"]), country="IN")
    f.make_annotator(pool, "contrast00000000000000001")
    page.goto(live_server.url + entry_url(pool, pid="contrast00000000000000001"))
    page.locator("#item-panel[data-ready=true]").wait_for()
    page.locator("fieldset[data-field=alignment]").get_by_label("Partially").check()  # shows the text box
    return page


def test_the_edges_of_controls_stand_out_three_to_one(item_page):
    page = item_page
    controls = {
        "radio": page.locator("#item-form input[type=radio]").first,
        "check box": page.locator("#item-form .option input[type=checkbox]").first,
        "text box": page.locator("#item-form textarea:visible").first,
        "button": page.get_by_role("button", name="Keyboard shortcuts"),
        "info button": page.locator("#item-form button.info").first,
        "submit": page.get_by_role("button", name="Submit and continue"),
    }
    controls["button"].evaluate("b => b.classList.remove('link')")  # an ordinary button's edge
    low = {name: round(edge_contrast(el), 2) for name, el in controls.items() if edge_contrast(el) < 3}
    assert low == {}, f"edges under 3:1: {low}"


def test_the_focus_ring_stands_out_three_to_one(item_page):
    page = item_page
    page.locator("#item-heading").focus()
    for target in (page.locator("#item-form input[type=radio]").first, page.locator("#item-form textarea:visible"),
                   page.get_by_role("button", name="Submit and continue")):
        page.keyboard.press("Shift")  # the last input is the keyboard's: focus is shown as for Tab
        target.focus()
        assert target.evaluate("el => el.matches(':focus-visible')")
        style, width = target.evaluate("el => [getComputedStyle(el).outlineStyle, getComputedStyle(el).outlineWidth]")
        assert style == "solid" and float(width.removesuffix("px")) >= 2
        ring, behind = target.evaluate(COLOURS, "outlineColor")
        assert contrast(ring, behind) >= 3, (ring, behind)


def test_radios_and_info_buttons_are_large_enough_to_hit(item_page):
    page = item_page
    radio = page.locator("#item-form input[type=radio]").first.bounding_box()
    assert radio["width"] >= 20 and radio["height"] >= 20
    row = page.locator("#item-form label.option").first.bounding_box()
    assert row["height"] >= 32
    for info in page.locator("#item-form button.info:visible").all():
        box = info.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24

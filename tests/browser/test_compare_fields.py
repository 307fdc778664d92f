"""The comparison fields in Chromium: their templates with the site's style sheets and
static/annotation/compare.js. What the page says a field's value is matches what the server's engine
reads from the same form; a strength is asked only of an image chosen, an image is never both best and
worst, a rank taken is swapped; on a 390 px phone a pair stays side by side, three images or more
swipe sideways, and every target is at least 44 px tall."""

from pathlib import Path

import pytest

from tests.studies.test_compare_forms import page_images, read_back, render

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "static"


@pytest.fixture
def field_page(browser):
    """Open one comparison field, rendered by its template for ``images``, in a page of its own
    (the site's style sheets, compare.js set up as item.js sets a field up)."""
    contexts = []

    def open_page(key, images, *, width=1100):
        context = browser.new_context(viewport={"width": width, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_content(f'<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width">'
                         f'</head><body><main><form id="item-form">{render(key, {}, images, errors={})}</form>'
                         f"</main></body></html>")
        for sheet in ("css/tessera.css", "annotation/page.css", "css/compare.css"):
            page.add_style_tag(path=str(STATIC / sheet))
        page.add_script_tag(path=str(STATIC / "annotation" / "compare.js"))
        page.evaluate("() => { const fs = document.querySelector('[data-type]');"
                      " window.TesseraFields[fs.dataset.type].init(fs); }")
        return page

    yield open_page
    for context in contexts:
        context.close()


def page_value(page):
    """The field's value as compare.js gives it (None: no answer yet)."""
    return page.evaluate("() => { const fs = document.querySelector('[data-type]');"
                         " const v = window.TesseraFields[fs.dataset.type].value(fs);"
                         " return v === undefined ? null : v; }")


def posted(page) -> dict[str, list[str]]:
    """What the form would post now, as the server receives it."""
    entries = page.evaluate("() => Array.from(new FormData(document.getElementById('item-form')).entries())")
    data: dict[str, list[str]] = {}
    for name, value in entries:
        data.setdefault(name, []).append(value)
    return data


def test_a_pairwise_strength_is_asked_once_an_image_is_chosen_and_never_of_a_tie(field_page):
    images = page_images("2", "1")
    page = field_page("strong", images)
    strength = page.locator("[data-strength]")
    assert strength.is_hidden() and page_value(page) is None
    page.get_by_label("Image B is better").check()
    assert strength.is_visible()
    page.get_by_label("Clearly better").check()
    assert page_value(page) == read_back("strong", posted(page), images) == {
        "choice": "1", "order": ["2", "1"], "strength": 2}
    page.get_by_label("About the same (a tie)").check()
    assert strength.is_hidden() and "strong.strength" not in posted(page)  # a disabled strength is not posted
    assert page_value(page) == read_back("strong", posted(page), images) == {"choice": "tie", "order": ["2", "1"]}


def test_an_image_chosen_as_best_is_no_longer_the_worst(field_page):
    images = page_images("3", "1", "2")
    page = field_page("extremes", images)
    page.get_by_label("Image B: Worst", exact=True).check()
    page.get_by_label("Image B: Best", exact=True).check()
    assert posted(page) == {"extremes": ["1"]} and page_value(page) is None  # the worst is to choose again
    page.get_by_label("Image C: Worst", exact=True).check()
    assert page_value(page) == read_back("extremes", posted(page), images) == {
        "best": "1", "worst": "2", "order": ["3", "1", "2"]}


def test_a_rank_another_image_has_is_swapped(field_page):
    images = page_images("3", "1", "2")
    page = field_page("ranked", images)
    page.get_by_label("Rank of Image A").select_option("1")
    page.get_by_label("Rank of Image B").select_option("2")
    page.get_by_label("Rank of Image C").select_option("1")  # Image A had 1: it gets C's old rank, none
    assert posted(page) == {"ranked.3": [""], "ranked.1": ["2"], "ranked.2": ["1"]} and page_value(page) is None
    page.get_by_label("Rank of Image A").select_option("2")  # Image B had 2: it gets A's old rank, none
    page.get_by_label("Rank of Image B").select_option("3")
    assert page_value(page) == read_back("ranked", posted(page), images) == {
        "ranking": ["2", "3", "1"], "order": ["3", "1", "2"]}


def test_on_a_phone_a_pair_stays_side_by_side_and_more_images_swipe(field_page):
    pair = field_page("strong", page_images("2", "1"), width=390)
    left, right = (card.bounding_box() for card in pair.locator(".compare-card").all())
    assert left["y"] == right["y"] and left["x"] + left["width"] <= right["x"] and right["x"] + right["width"] <= 390
    row = field_page("extremes", page_images(*"31245"), width=390)
    scroller = row.locator(".compare-row")
    assert scroller.evaluate("el => el.scrollWidth > el.clientWidth + 100")
    assert scroller.evaluate("el => getComputedStyle(el).scrollSnapType") == "x mandatory"
    assert row.evaluate("() => document.documentElement.scrollWidth") <= 390  # the page itself does not scroll


@pytest.mark.parametrize("key, ids", [("strong", "21"), ("extremes", "312"), ("ranked", "312")])
def test_every_target_is_at_least_44_px_tall_on_a_phone(field_page, key, ids):
    page = field_page(key, page_images(*ids), width=390)
    targets = page.locator("label.option, select, a.compare-zoom").all()
    assert targets and all(t.bounding_box()["height"] >= 44 for t in targets if t.is_visible())

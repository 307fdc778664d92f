"""The item page's small words, in Chromium on demo studies: the list of keyboard shortcuts names only
the keys its protocol's fields answer to, and an image already shown at its full size (its natural size
fits where it is shown) offers no zoom, while the same image on a phone, shown smaller, does."""

import pytest
from django.core.management import call_command

from studies.models import CountryPool, Study
from tests import factories as f
from tests.factories import entry_url

from .test_demo_studies import DEMOS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHORTCUTS = "lis => lis.filter(li => !li.hidden).map(li => li.textContent.replace(/\\s+/g, ' ').trim())"
NUMBERS, WORDS, ZOOM = "1–9: choose an answer", "Space selects a word", "Z: zoom"
BOXES, TEXT = "draws a box", "text box"


@pytest.fixture
def item_page(page, live_server):
    call_command("demo_setup", verbosity=0)
    opened = iter(range(100))

    def open_item(preset, page=page):
        n = next(opened)
        pool = CountryPool.objects.get(study=Study.objects.get(name=DEMOS[preset]), country="IN")
        f.make_annotator(pool, f"shortcuts{n:015d}")
        page.goto(live_server.url + entry_url(pool, pid=f"shortcuts{n:015d}", session_id=f"KEYS{n}"))
        page.locator("#item-panel[data-ready=true]").wait_for()
        # (the zoom dialog's original loads when it opens: lazy)
        page.wait_for_function("[...document.images].every(img => img.complete || img.loading === 'lazy')")
        return page.locator("#shortcuts-help li").evaluate_all(SHORTCUTS)

    return open_item


def names(shortcuts: list[str], *wanted: str) -> set[str]:
    return {w for w in wanted if any(w in s for s in shortcuts)}


def test_a_rating_names_number_keys_words_and_text_but_no_boxes(item_page):
    shortcuts = item_page("culturalframes-rating")
    assert names(shortcuts, NUMBERS, WORDS, BOXES, TEXT) == {NUMBERS, WORDS, TEXT}


def test_a_grounding_names_the_box_keys_and_no_words_zoom_or_text(item_page):
    shortcuts = item_page("globalrg-grounding")
    assert names(shortcuts, NUMBERS, WORDS, ZOOM, BOXES, TEXT) == {NUMBERS, BOXES}


def test_a_written_answer_names_no_number_keys(item_page):
    shortcuts = item_page("culturalvqa-answer")
    assert NUMBERS not in names(shortcuts, NUMBERS) and TEXT in names(shortcuts, TEXT)


def test_an_image_at_its_full_size_has_no_zoom(item_page, page):
    shortcuts = item_page("caire-relevance")  # 512 px images in a column wider than that at 1280 px
    img = page.locator("[data-zoom] img")
    assert img.evaluate("i => i.naturalWidth <= i.clientWidth")
    assert ZOOM not in names(shortcuts, ZOOM)
    assert page.locator("[data-zoom]").is_disabled()
    assert page.locator(".item-media .zoom-hint").is_hidden()
    page.locator("#item-heading").focus()
    page.keyboard.press("z")
    assert not page.locator("#zoom-dialog").is_visible()


def test_the_same_image_on_a_phone_zooms(item_page, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        shortcuts = item_page("caire-relevance", page=page)
        assert page.locator("[data-zoom] img").evaluate("i => i.naturalWidth > i.clientWidth")
        assert ZOOM in names(shortcuts, ZOOM)
        assert page.locator(".item-media figcaption").get_by_text("Tap the image to zoom.").is_visible()
        page.locator("[data-zoom]").click()
        assert page.locator("#zoom-dialog").is_visible()
    finally:
        context.close()

"""The item page on a phone (390 px, touch), for demo studies of several protocols: one column with
nothing pinned over the questions and nothing overlapping, a heading on one line, a progress bar with a
width, no keyboard hints, every target at least 44 px tall, nothing scrolling sideways."""

import pytest
from django.core.management import call_command

from studies.models import CountryPool, Study
from tests import factories as f
from tests.factories import entry_url

from .test_demo_studies import DEMOS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PRESETS = ["culturalframes-rating", "ravenea-doc-relevance", "globalrg-grounding", "culturalvqa-question",
           "culturalframes-pairwise", "culturalframes-best-worst"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

SHOWN = "els => els.filter(e => e.getClientRects().length > 0).length"
TOO_SMALL = """els => els.filter(e => e.getClientRects().length > 0 && !e.closest('dialog, [popover]'))
  .map(e => [e.textContent.trim().slice(0, 30) || e.className, e.getBoundingClientRect().height])
  .filter(([, h]) => h < 44)"""
ONE_LINE = "h => h.getBoundingClientRect().height < 1.6 * parseFloat(getComputedStyle(h).lineHeight)"


def overlap(a, b) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def check_the_item_page(page):
    panel = page.locator("#item-panel[data-ready=true]")
    panel.wait_for()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "scrolls sideways"
    assert page.locator("#item-heading").evaluate(ONE_LINE), "the heading wraps"
    assert page.locator(".item-head progress").bounding_box()["width"] > 100

    hints = page.locator(".kbd-hint, .option kbd, .keys")
    assert hints.count() > 0 and hints.evaluate_all(SHOWN) == 0, "keyboard hints shown on a phone"
    targets = page.locator("#item-panel :is(label.option, label.token, button, input[type=file])")
    small = targets.evaluate_all(TOO_SMALL)
    assert small == [], f"targets under 44 px: {small}"
    info = page.locator("#item-panel button.info:visible")
    for n in range(info.count()):
        box = info.nth(n).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44

    question = page.locator("#item-form .question:visible").first
    media = page.locator(".item-media")
    if media.count():
        caption = page.locator(".item-media figcaption").bounding_box()
        for box in page.locator(".question:visible, label.option:visible").all():
            assert not overlap(caption, box.bounding_box()), "the image's caption covers a question"
        # scrolled down to the first question, the image has gone up with the page
        question.evaluate("q => window.scrollTo(0, q.getBoundingClientRect().top + window.scrollY - 10)")
        page.wait_for_timeout(50)
        assert not overlap(media.bounding_box(), question.bounding_box()), "the image is pinned over the questions"


def test_the_item_page_fits_a_phone_for_several_protocols(browser, live_server):
    call_command("demo_setup", verbosity=0)
    context = browser.new_context(**PHONE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        for n, preset in enumerate(PRESETS):
            pool = CountryPool.objects.get(study=Study.objects.get(name=DEMOS[preset]), country="IN")
            pid = f"phone{n:019d}"
            f.make_annotator(pool, pid)
            page.goto(live_server.url + entry_url(pool, pid=pid, session_id=f"PHONE{n}"))
            check_the_item_page(page)
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

"""At 1280 px, the pool list's action buttons sit inside their card (none clipped behind a scroll),
and the Prolific launch form's inputs look like every other form's (the site's input style)."""

import pytest

from tests import factories as f

from .helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_every_pool_action_is_visible_at_1280_px(browser, live_server):
    owner = f.make_researcher("owner")
    study = f.make_study(owner)
    for code, name in (("IN", "India"), ("JP", "Japan"), ("KR", "South Korea")):
        f.make_pool(study, code, name)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        log_in(page, live_server, "owner")
        page.goto(f"{live_server.url}/studies/{study.pk}/pools")
        card = page.locator(".workspace-scroll").bounding_box()
        for name in ("Edit South Korea", "Preview as annotator of South Korea", "Remove… South Korea"):
            box = page.get_by_role("link", name=name).bounding_box()
            assert box["x"] >= card["x"] and box["x"] + box["width"] <= card["x"] + card["width"], name
        overflow = page.locator(".workspace-scroll").evaluate("el => el.scrollWidth - el.clientWidth")
        assert overflow <= 0  # nothing to scroll to: nothing hidden
    finally:
        context.close()


def test_the_launch_form_inputs_have_the_site_s_style(browser, live_server, settings):
    owner = f.make_researcher("owner")
    study = f.make_study(owner)
    f.make_pool(study, "IN", "India")
    settings.SITE_URL = "https://tessera.test"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        log_in(page, live_server, "owner")
        page.goto(f"{live_server.url}/prolific/studies/{study.pk}/")
        style = "el => [getComputedStyle(el).borderRadius, getComputedStyle(el).paddingTop]"
        reference = page.get_by_label("Public description").evaluate(style)  # a textarea: the site's style
        labels = ("Reward per participant", "Estimated completion time (minutes)", "Maximum allowed time (minutes)")
        for label in labels:
            assert page.get_by_label(label).evaluate(style) == reference, label
        # a checkbox and its words on one line, the words in the body's weight
        for label in ("Desktop", "Let Prolific approve completed submissions (otherwise you review them here)"):
            box = page.get_by_label(label).bounding_box()
            words = page.locator("label", has_text=label).last.bounding_box()
            assert words["y"] <= box["y"] + box["height"] / 2 <= words["y"] + words["height"], label
        weight = page.locator("label", has_text="Desktop").evaluate("el => getComputedStyle(el).fontWeight")
        assert weight == "400"
    finally:
        context.close()

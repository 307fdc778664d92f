"""Every page of a study's workspace at a phone's width: nothing scrolls sideways, the page has its
heading, and the keyboard reaches its controls (the first Tab lands on a visible element)."""

import pytest
from django.urls import reverse

from tests import factories as f
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth + 1"
FOCUS_VISIBLE = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return false;
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}"""

PAGES = [
    ("analysis:study-dashboard", {}), ("studies:study-settings", {}), ("studies:pool-list", {}),
    ("studies:pool-add", {}), ("studies:protocol-edit", {}), ("studies:practice", {}),
    ("studies:practice-add", {}), ("studies:item-list", {}), ("annotation:study-item", {"item_pk": None}),
    ("analysis:import-items", {}), ("studies:members", {}), ("analysis:analysis", {}),
    ("analysis:pool-annotators", {"pool_pk": None}), ("annotation:review-study", {}),
    ("recruitment:study-prolific", {}),
]


def test_every_workspace_page_fits_a_phone_and_takes_the_keyboard(browser, live_server):
    owner = f.make_researcher("researcher")
    study = f.make_study(owner)
    pool = f.make_pool(study, "IN", "India")
    items = f.make_items(study, "IN", 3)
    f.annotate_pool(pool)
    f.make_mock_question(study)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        log_in(page, live_server, "researcher")
        too_wide, unfocusable = [], []
        for name, extra in PAGES:
            kwargs = {"pk": study.pk}
            if "item_pk" in extra:
                kwargs["item_pk"] = items[0].pk
            if "pool_pk" in extra:
                kwargs["pool_pk"] = pool.pk
            response = page.goto(live_server.url + reverse(name, kwargs=kwargs))
            assert response.status == 200, name
            page.locator("h1").first.wait_for()
            if not page.evaluate(NO_SIDEWAYS_SCROLL):
                too_wide.append(name)
            page.keyboard.press("Tab")
            if not page.evaluate(FOCUS_VISIBLE):
                unfocusable.append(name)
        assert not too_wide, f"pages scrolling sideways at 390 px: {too_wide}"
        assert not unfocusable, f"pages whose first Tab reaches nothing visible: {unfocusable}"
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

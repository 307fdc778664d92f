"""The item page loads only the scripts its protocol needs (Protocol.scripts); a panel swapped in under
a protocol version published since the page loaded names the scripts it needs, and page.js loads the
missing ones before it sets the panel up."""

import pytest

from studies.services import study_protocol_save
from tests.factories import add_items, spec_study

from .helpers import item_ready, start_annotating

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FITS = {"key": "fits", "type": "choice", "label": "Does it fit?", "choices": ["yes", "no"]}
DISPLAY = {"noun": "Photo", "show": ["image"]}
SOURCES = {"key": "sources", "type": "url_list", "label": "Sources", "required": False,
           "show_if": {"field": "fits", "eq": "no"}}


def scripts(page) -> list[str]:
    return page.eval_on_selector_all("script[src]", "all => all.map(s => s.getAttribute('src').split('/').pop())")


def test_a_panel_under_a_newer_protocol_version_loads_the_scripts_its_fields_need(page, live_server):
    study, pool = spec_study({"fields": [FITS], "display": DISPLAY})
    add_items(study, 2)
    start_annotating(page, live_server, pool)
    item_ready(page, "Photo 1 of 2")
    assert scripts(page) == ["htmx.min.js", "page.js", "item.js", "effort.js", "prefetch.js"]

    # a researcher publishes a version with a conditional list of sources while the annotator works
    saved = study_protocol_save(study=study, protocol={"fields": [FITS, SOURCES], "display": DISPLAY})
    assert saved.new_version
    page.keyboard.press("1")  # yes
    page.keyboard.press("Control+Enter")

    item_ready(page, "Photo 2 of 2")
    assert scripts(page) == [
        "htmx.min.js", "page.js", "item.js", "effort.js", "prefetch.js", "conditions.js", "url_list.js",
    ]
    sources = page.locator("[data-field=sources]")
    assert sources.is_hidden()  # conditions.js: shown only for "no"
    page.keyboard.press("2")  # no
    sources.wait_for()
    sources.get_by_role("button", name="Add another article").click()  # url_list.js
    assert sources.locator(".url-rows > .url-row").count() == 1
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Title of article 1"

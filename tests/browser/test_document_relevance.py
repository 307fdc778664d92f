"""RAVENEA document relevance: the caption check, three questions per document, missing articles."""

import pytest

from studies.models import Document
from tests.factories import add_items, preset_study

from .helpers import item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCUMENTS = [
    ("Diwali", "https://en.wikipedia.org/wiki/Diwali", "Diwali is the Hindu festival of lights."),
    ("Diya (lamp)", "https://en.wikipedia.org/wiki/Diya_(lamp)", "A diya is an oil lamp made from clay."),
    ("Candle", "https://en.wikipedia.org/wiki/Candle", "A candle is an ignitable wick embedded in wax."),
]


def test_documents_are_judged_by_keys_and_mouse_and_a_missing_article_is_added(page, live_server):
    study, pool = preset_study("ravenea-doc-relevance")
    add_items(study, 2, caption="A woman lights diyas on her doorstep for Diwali.", documents=DOCUMENTS)
    start_annotating(page, live_server, pool)

    item_ready(page, "Image 1 of 2")
    assert "lights diyas" in page.locator(".part-caption").inner_text()
    link = page.get_by_role("link", name="Diya (lamp)")
    assert link.get_attribute("href") == DOCUMENTS[1][1]
    assert link.get_attribute("target") == "_blank" and link.get_attribute("rel") == "noopener"
    assert page.locator(".document-group").count() == 3
    assert "oil lamp made from clay" in page.locator(".document-group").nth(1).locator(".document-text").inner_text()

    # Keys: the caption, then documents 1 and 2 (the focus moves on after each answer).
    for key in ("1", "3", "1", "2", "1", "1", "1"):
        page.keyboard.press(key)
    assert page.locator("[name='documents.0.country'][value=cannot_determine]").is_checked()
    # Mouse: document 3.
    third = page.locator(".document-group").nth(2)
    third.locator("[data-field=country]").get_by_role("radio", name="No", exact=True).check()
    third.locator("[data-field=topic]").get_by_role("radio", name="No", exact=True).check()
    third.locator("[data-field=visual]").get_by_role("radio", name="Yes", exact=True).check()

    # A missing article, by keyboard: Enter moves from the title to the URL; a second row is removed.
    page.get_by_role("button", name="Add another article").click()
    page.keyboard.type("Rangoli")
    page.keyboard.press("Enter")
    page.keyboard.type("not a web address")
    page.keyboard.press("Enter")  # adds a second row, never submits
    assert page.locator(".url-row").count() == 2
    page.get_by_role("button", name="Remove article 2").click()
    assert page.locator(".url-row").count() == 1

    page.keyboard.press("Control+Enter")
    page.get_by_role("alert").filter(has_text="Please fix 1 answer").wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()  # the refused form, swapped in, takes input again
    assert "is not a web address" in page.locator("[id='err-missing_documents']").inner_text()
    page.get_by_label("URL of article 1").fill("https://en.wikipedia.org/wiki/Rangoli")
    page.get_by_role("button", name="Submit and continue").click()

    item_ready(page, "Image 2 of 2")
    ids = list(Document.objects.filter(item__external_id=stored_item_id()).values_list("id", flat=True))
    assert stored_answers() == [{
        "caption_correct": "yes",
        "documents": [
            {"document": ids[0], "country": "cannot_determine", "topic": "yes", "visual": "no"},
            {"document": ids[1], "country": "yes", "topic": "yes", "visual": "yes"},
            {"document": ids[2], "country": "no", "topic": "no", "visual": "yes"},
        ],
        "missing_documents": [{"title": "Rangoli", "url": "https://en.wikipedia.org/wiki/Rangoli"}],
    }]


def stored_item_id():
    from annotation.models import Annotation

    return Annotation.objects.get().item.external_id

"""A refused submit on the item page: what was typed is kept (a reload shows it)."""

import pytest

from annotation.models import Annotation
from tests.factories import add_items, spec_study

from .helpers import item_ready, start_annotating

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROTOCOL = {
    "fields": [
        {"key": "why", "type": "text", "label": "Why?"},
        {"key": "mood", "type": "choice", "label": "Mood", "choices": ["calm", "tense"], "level": "nominal"},
        {"key": "tone", "type": "choice", "label": "Tone", "choices": ["warm", "cold"], "level": "nominal"},
    ],
    "display": {"show": ["image"]},
}


def test_what_was_typed_before_a_refused_submit_survives_a_reload(page, live_server):
    study, pool = spec_study(PROTOCOL)
    add_items(study, 2)
    start_annotating(page, live_server, pool)
    item_ready(page, "Image 1 of 5")

    # typed and submitted at once: no time for the draft's timer
    page.get_by_role("textbox", name="Why?").fill("Typed in the last second")
    page.get_by_role("button", name="Submit and continue").click()
    page.locator("#form-errors").wait_for()
    page.reload()
    item_ready(page, "Image 1 of 5")
    assert page.get_by_role("textbox", name="Why?").input_value() == "Typed in the last second"
    assert not Annotation.objects.exists()

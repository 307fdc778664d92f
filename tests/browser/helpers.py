"""Shared steps of the browser tests: a study from a preset, an annotator on its item pages."""

from annotation.models import Annotation
from tests import factories as f
from tests.factories import entry_url

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"


def start_annotating(page, live_server, pool, *, pid=PID):
    """An onboarded annotator opens the study link and lands on the first item."""
    f.make_annotator(pool, pid)
    page.goto(live_server.url + entry_url(pool, pid=pid))


def item_ready(page, heading: str):
    """Wait for the item with this heading, with its form ready for keys (page.js and item.js have set it up)."""
    page.get_by_role("heading", name=heading).wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()


def stored_answers() -> list[dict]:
    return [a.answers for a in Annotation.objects.order_by("id")]

"""Shared steps of the browser tests: a study from a preset, an annotator on its item pages."""

from annotation.models import Annotation
from studies.models import Document, Study
from studies.services import quotas_for_items, study_create, study_create_from_preset
from tests import factories as f
from tests.annotation.helpers import entry_url

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"


def preset_study(preset: str, *, country="IN", **settings):
    """An open study of ``preset`` with one pool; returns (study, pool)."""
    owner = f.make_researcher(f"owner-{preset}")
    study = study_create_from_preset(owner=owner, preset=preset, status=Study.Status.OPEN, **settings)
    return study, f.make_pool(study, country, "India")


def spec_study(protocol: dict, *, country="IN", **settings):
    """An open study of an inline protocol spec with one pool; returns (study, pool)."""
    owner = f.make_researcher("owner-inline")
    study = study_create(owner=owner, name="Inline protocol", protocol=protocol, status=Study.Status.OPEN,
                         code_completed="C0MPLETE", code_failed_mock="FAILMOCK", code_not_eligible="NOTELIG",
                         code_no_consent="NOCONSENT", **settings)
    return study, f.make_pool(study, country, "India")


def add_items(study, n=2, *, documents=(), **fields) -> list:
    """``n`` items of the pool's country, each with ``documents`` as (title, url, text) triples."""
    items = [f.make_item(study, "IN", **fields) for _ in range(n)]
    for item in items:
        Document.objects.bulk_create(
            Document(item=item, position=i, title=title, url=url, text=text)
            for i, (title, url, text) in enumerate(documents)
        )
    quotas_for_items(items=items)
    return items


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

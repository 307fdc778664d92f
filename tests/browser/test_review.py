"""RAVENEA's quality check in Chromium: a checker logs in, accepts one annotation by keyboard, flags
another by mouse, and the progress moves."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Checker, Review
from annotation.services import annotation_submit, assignment_next
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import add_items, preset_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCUMENTS = [
    ("Diwali", "https://en.wikipedia.org/wiki/Diwali", "Diwali is the Hindu festival of lights."),
    ("Candle", "https://en.wikipedia.org/wiki/Candle", "A candle is an ignitable wick embedded in wax."),
]
ANSWERS = {
    "caption_correct": ["yes"],
    "documents.0.country": ["yes"], "documents.0.topic": ["yes"], "documents.0.visual": ["yes"],
    "documents.1.country": ["cannot_determine"], "documents.1.topic": ["no"], "documents.1.visual": ["no"],
}


def panel_ready(page, progress: str):
    page.locator("#review-panel[data-ready=true]").wait_for()
    page.locator("#review-progress").filter(has_text=progress).wait_for()


def test_a_checker_accepts_by_keyboard_and_flags_by_mouse(page, live_server):
    study, pool = preset_study("ravenea-doc-relevance")
    add_items(study, 3, caption="A woman lights diyas on her doorstep for Diwali.", documents=DOCUMENTS)
    session = f.make_session(f.make_annotator(pool))
    while (assignment := assignment_next(session=session)) is not None:
        annotation_submit(assignment=assignment, data=ANSWERS)
    checker = get_user_model().objects.create_user("meera", password="pass-for-tests-1")
    Checker.objects.create(pool=pool, user=checker)

    page.goto(live_server.url + reverse("annotation:review-pool", args=[study.pk, pool.pk]))
    page.get_by_label("Username").fill("meera")
    page.get_by_label("Password").fill("pass-for-tests-1")
    page.keyboard.press("Enter")
    page.get_by_role("heading", name="Review: India").wait_for()
    panel_ready(page, "0 reviewed of 3 annotations; target 10% (1)")
    assert "lights diyas" in page.locator(".part-caption").inner_text()
    assert page.locator(".document-group").count() == 2
    assert page.locator("[name='documents.1.country'][value=cannot_determine]").is_checked()

    # By keyboard: a key changes the focused question's answer (Accept is then refused), the same
    # key puts it back, and A accepts.
    accept = page.get_by_role("button", name="Accept")
    page.locator("[name=caption_correct][value=yes]").focus()
    page.keyboard.press("2")
    assert page.locator("[name=caption_correct][value=no]").is_checked()
    assert accept.is_disabled()
    assert "1 answer changed" in page.locator("[data-changes]").inner_text()
    page.keyboard.press("1")
    assert accept.is_enabled()
    page.keyboard.press("a")
    page.get_by_role("status").filter(has_text="Accepted the annotation by").wait_for()
    panel_ready(page, "1 reviewed of 3 annotations; target 10% (1)")
    assert page.locator("#review-progress").get_by_text("target reached").is_visible()

    # By mouse: flagging with nothing changed is refused next to the note; then one changed label.
    page.get_by_role("button", name="Flag for re-annotation").click()
    page.locator("#err-review-note").filter(has_text="To flag, change the answers").wait_for()
    panel_ready(page, "1 reviewed of 3")
    assert page.locator(".review-given:visible").count() == 0  # nothing marked "changed" yet
    second_document = page.locator(".document-group").nth(1)
    second_document.locator(".review-question").nth(1).get_by_label("Yes").check()
    assert second_document.locator(".review-question").nth(1).get_by_text("changed by you").is_visible()
    assert accept.is_disabled()
    page.get_by_label("Note").fill("The candle article is about the same kind of thing as the diyas.")
    page.get_by_role("button", name="Flag for re-annotation").click()
    page.get_by_role("status").filter(has_text="Flagged the annotation by").wait_for()
    panel_ready(page, "2 reviewed of 3 annotations")

    accepted, flagged = Review.objects.order_by("pk")
    assert (accepted.outcome, accepted.reviewer, flagged.outcome) == ("accepted", checker, "flagged")
    assert accepted.labels["caption_correct"] == "yes"
    assert flagged.labels["documents"][1]["topic"] == "yes"
    assert flagged.note.startswith("The candle article")
    quota = ItemQuota.objects.get(item=flagged.annotation.item, pool=pool)
    assert (quota.wanted, quota.done) == (4, 1)  # one slot reopened for another annotator

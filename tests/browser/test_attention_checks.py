"""Attention checks in the browser: an annotator who fails one is warned on the next item, fails a
second and is sent back to Prolific with the failed-check code; another passes every check and
completes. The check items look like any item: only their question's added sentence tells."""

import pytest

from annotation.models import Annotation, Annotator, CheckAnswer
from studies.checks import item_set_attention
from tests import factories as f
from tests.factories import add_items, entry_url, spec_study

from .helpers import item_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROLIFIC_DONE = "https://app.prolific.com/submissions/complete?cc="
SPEC = {
    "fields": [{"key": "fits", "type": "choice", "label": "Does the image fit its prompt?",
                "choices": ["yes", "no"]}],
    "quality": {"attention": {"placement": "every", "every": 1}, "outcomes": {"warnings": 1, "failures": 2}},
}
INSTRUCTION = "To show that you are reading carefully, please choose “no” for this question."


@pytest.fixture
def checked_study(live_server):
    study, pool = spec_study(SPEC, items_per_session=2, code_failed_check="FAILCHECK")
    add_items(study, 4)
    for item in add_items(study, 4):  # four ordinary-looking items become the checks
        item_set_attention(item=item, field_key="fits", value="no", text=INSTRUCTION)
    return study, pool


def answer(page, heading: str, choice: str):
    item_ready(page, heading)
    page.get_by_role("radio", name=choice, exact=True).check()
    page.get_by_role("button", name="Submit and continue").click()


def test_two_failed_checks_end_the_session_with_the_failed_check_code(page, live_server, checked_study):
    study, pool = checked_study
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    f.make_annotator(pool, "aaaaaaaaaaaaaaaaaaaaaaaa")
    page.goto(live_server.url + entry_url(pool, pid="aaaaaaaaaaaaaaaaaaaaaaaa"))

    answer(page, "Image 1 of 4", "yes")
    item_ready(page, "Image 2 of 4")
    assert page.get_by_text(INSTRUCTION).is_visible()  # the check: its question says what to answer
    assert page.locator("#quality-warning").count() == 0
    answer(page, "Image 2 of 4", "yes")  # not what it asked

    item_ready(page, "Image 3 of 4")
    warning = page.locator("#quality-warning")
    assert warning.is_visible() and "read each question carefully" in warning.inner_text()
    answer(page, "Image 3 of 4", "yes")
    item_ready(page, "Image 4 of 4")
    assert page.locator("#quality-warning").count() == 0  # warned once
    answer(page, "Image 4 of 4", "yes")  # the second failed check

    page.get_by_role("heading", name="This session has ended").wait_for()
    assert page.locator("#completion-code").inner_text() == "FAILCHECK"
    page.get_by_role("link", name="Return to Prolific now").click()
    page.wait_for_url(PROLIFIC_DONE + "FAILCHECK")
    annotator = Annotator.objects.get(prolific_pid="aaaaaaaaaaaaaaaaaaaaaaaa")
    assert annotator.outcome == Annotator.Outcome.FAILED_CHECK
    assert CheckAnswer.objects.filter(annotator=annotator, passed=False).count() == 2
    assert Annotation.objects.filter(annotator=annotator).count() == 2  # kept; no check among them


def test_an_annotator_who_passes_every_check_completes(page, live_server, checked_study):
    study, pool = checked_study
    f.make_annotator(pool, "bbbbbbbbbbbbbbbbbbbbbbbb")
    page.goto(live_server.url + entry_url(pool, pid="bbbbbbbbbbbbbbbbbbbbbbbb"))
    answer(page, "Image 1 of 4", "yes")
    answer(page, "Image 2 of 4", "no")
    item_ready(page, "Image 3 of 4")
    assert page.locator("#quality-warning").count() == 0
    answer(page, "Image 3 of 4", "yes")
    answer(page, "Image 4 of 4", "no")
    page.get_by_role("heading", name="All done, thank you!").wait_for()
    assert page.locator("#completion-code").inner_text() == "C0MPLETE"
    annotator = Annotator.objects.get(prolific_pid="bbbbbbbbbbbbbbbbbbbbbbbb")
    assert CheckAnswer.objects.filter(annotator=annotator, passed=True).count() == 2

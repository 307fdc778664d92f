"""Two studies open in two tabs of one browser: the first tab still submits after the second study's
link was opened, a reload shows the study last answered, and the bar switches to the other one."""

import re

import pytest

from annotation.models import Annotation
from tests import factories as f
from tests.factories import add_items, entry_url, preset_study

from .helpers import item_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def heading(start: str) -> re.Pattern:
    return re.compile(rf"^{start} of \d+$")


def test_two_tabs_of_two_studies_each_submit_to_their_own(page, live_server):
    answers, answers_pool = preset_study("culturalvqa-answer")
    add_items(answers, 3, texts={"question": "What is this pattern called?"})
    relevance, relevance_pool = preset_study("caire-relevance")
    add_items(relevance, 3)
    for pool, pid in ((answers_pool, "aaaaaaaaaaaaaaaaaaaaaaaa"), (relevance_pool, "bbbbbbbbbbbbbbbbbbbbbbbb")):
        f.make_annotator(pool, pid)

    page.goto(live_server.url + entry_url(answers_pool, pid="aaaaaaaaaaaaaaaaaaaaaaaa", session_id="SESSIONA"))
    item_ready(page, heading("Question 1"))
    second = page.context.new_page()
    second.goto(live_server.url + entry_url(relevance_pool, pid="bbbbbbbbbbbbbbbbbbbbbbbb", session_id="SESSIONB"))
    item_ready(second, heading("Image 1"))
    assert second.locator(".brand").inner_text() == relevance.name

    # the first tab, left behind, still submits to its own study
    page.bring_to_front()
    page.get_by_role("textbox", name="Your answer to the question").fill("Kolam")
    page.keyboard.press("Enter")
    item_ready(page, heading("Question 2"))
    assert page.locator("#net-error").is_hidden()
    [stored] = Annotation.objects.all()
    assert stored.assignment.item.study_id == answers.pk and stored.answers == {"answer": "Kolam"}
    page.reload()
    item_ready(page, heading("Question 2"))

    # the second tab, reloaded, shows the study answered last, names the other and switches to it
    second.bring_to_front()
    second.reload()
    item_ready(second, heading("Question 2"))
    second.get_by_role("button", name=f"Switch to {relevance.name}").click()
    item_ready(second, heading("Image 1"))
    assert second.locator(".brand").inner_text() == relevance.name
    assert second.get_by_role("button", name=f"Switch to {answers.name}").is_visible()

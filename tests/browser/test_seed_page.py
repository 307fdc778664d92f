"""A researcher on a phone feeds one study from another by keyboard: the questions of a CulturalVQA
question study become items of their answer study; the prompts a CulturalFrames filter kept are
downloaded as a CSV. Nothing scrolls sideways at 390 px."""

import csv

import pytest
from django.urls import reverse

from studies.models import Item
from studies.services import study_create_from_preset
from tests import factories as f
from tests.annotation.test_seeding import AUTHOR, prompt, vote, vqa_study, write_questions
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth + 1"


def test_a_researcher_feeds_an_answer_study_and_downloads_kept_prompts_on_a_phone(browser, live_server, tmp_path):
    owner = f.make_researcher("researcher")
    questions = vqa_study(owner, "culturalvqa-question", "CulturalVQA questions")
    f.make_items(questions, "IN", 2)
    write_questions(questions, AUTHOR, [{"question": ["What is this sweet called?"]}])
    answers = vqa_study(owner, "culturalvqa-answer", "CulturalVQA answers")
    frames = study_create_from_preset(owner=owner, preset="culturalframes-prompt-filter", name="Frames filter",
                                      status="open")
    f.make_pool(frames, "IN", "India", annotations_per_item=3)
    vote(frames, prompt(frames, "fp-1", "IN", "A family sharing thali at lunch"), ["yes", "yes"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        log_in(page, live_server, "researcher")

        page.goto(live_server.url + reverse("analysis:study-dashboard", args=[questions.pk]))
        page.get_by_role("link", name="Feed another study").focus()
        page.keyboard.press("Enter")
        page.get_by_role("heading", name="Answer items").wait_for()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        assert "1 question written so far" in page.locator("#questions-ready").inner_text()
        page.get_by_label("Answer study").select_option(label="CulturalVQA answers")
        page.get_by_role("button", name="Create answer items").focus()
        page.keyboard.press("Enter")
        page.get_by_text("Created 1 answer item(s) in “CulturalVQA answers”.").wait_for()
        assert Item.objects.filter(study=answers).count() == 1

        page.goto(live_server.url + reverse("analysis:study-dashboard", args=[frames.pk]))
        page.get_by_role("link", name="Feed another study").click()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        assert page.locator("#kept-tally").inner_text().startswith("1 kept")
        page.get_by_label("Yes votes that keep a prompt").fill("0")
        page.get_by_role("button", name="Count").press("Enter")
        page.get_by_text("Ensure this value is greater than or equal to 1.").wait_for()
        page.get_by_label("Yes votes that keep a prompt").fill("2")
        with page.expect_download() as download:
            page.get_by_role("button", name="Download the kept prompts (CSV)").press("Enter")
        assert download.value.suggested_filename.startswith("frames-filter_kept-prompts_")
        saved = tmp_path / "kept.csv"
        download.value.save_as(saved)
        with saved.open(newline="") as fh:
            assert [row["prompt"] for row in csv.DictReader(fh)] == ["A family sharing thali at lunch"]
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

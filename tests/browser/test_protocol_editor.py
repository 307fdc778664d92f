"""A researcher edits a study's protocol in the browser: an invalid spec is named by its field while
typing, the annotator's form beside it follows the fixed spec, and the save keeps it."""

import json

import pytest

from studies.models import Study
from tests import factories as f

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INVALID = {"fields": [{"key": "mood", "type": "choice", "label": "How does the street feel?"}]}
FIXED = {"fields": [{**INVALID["fields"][0], "choices": ["calm", "busy"]}]}


def test_a_researcher_fixes_an_invalid_spec_sees_the_form_follow_and_saves(page, live_server):
    owner = f.make_researcher("researcher")
    study = f.make_study(owner)
    f.make_pool(study, "IN", "India")
    f.make_items(study, "IN", 1, prompt="A quiet street at dawn")

    page.goto(f"{live_server.url}/login/?next=/studies/{study.pk}/")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill("pass-for-tests-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Protocol").click()

    preview = page.locator("#protocol-preview")
    preview.get_by_role("form", name="The annotator's form (preview)").wait_for()
    assert "A quiet street at dawn" in preview.inner_text()  # a real item of the study

    spec = page.get_by_role("textbox", name="Spec (JSON)")
    spec.fill(json.dumps(INVALID, indent=2))
    problems = page.locator("#spec-problems")
    problems.get_by_text("needs at least one choice").wait_for()
    assert "field 'mood'" in problems.inner_text()
    preview.get_by_text("once the spec has no problem").wait_for()

    spec.fill(json.dumps(FIXED, indent=2))
    problems.get_by_text("The spec is valid: 1 question.").wait_for()
    preview.get_by_role("radio", name="busy").wait_for()
    assert preview.get_by_text("How does the street feel?").is_visible()

    page.get_by_role("button", name="Save the protocol").click()
    page.get_by_text("Saved: version 1 now reads this spec").wait_for()
    saved = Study.objects.get(pk=study.pk)
    assert saved.protocol == FIXED and saved.protocol_version == 1

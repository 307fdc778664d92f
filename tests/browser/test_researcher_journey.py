"""The researcher's whole way in the browser, as docs/guide.md's walk-through tells it: a study from a
preset, a country pool, items imported (a file with a bad row refused by its line, then the fixed
one), a practice question (its feedback refused while it names the expected answer), the pool's
path previewed, the study opened, a co-researcher invited; then the study page follows an annotator
who works in a second browser, without a reload. Neither the shell nor the admin is used."""

import pytest

from annotation.models import Annotator
from studies import tasks
from studies.importing.job import import_run
from studies.models import MockQuestion, Study, StudyMember
from tests import factories as f
from tests.factories import PASSWORD, entry_url

from .helpers import PID, upload, write_files

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POLL = 15_000  # ms: the study page's figures are polled every 10 s


def back_to_study(page, study):
    page.get_by_role("link", name=f"← {study.name}").click()
    page.get_by_role("navigation", name="Study").wait_for()


def test_a_researcher_sets_up_opens_and_follows_a_study_in_the_browser(
    browser, live_server, monkeypatch, tmp_path, settings
):
    settings.MEDIA_ROOT = tmp_path / "media"
    f.make_researcher("researcher")
    f.make_researcher("colleague")
    queued = []  # no worker: each import waits in the queue until the test runs it
    monkeypatch.setattr(tasks.import_run_task, "delay", queued.append)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{live_server.url}/login/?next=/studies/")
        page.get_by_label("Username").fill("researcher")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()

        # Build: a study from a preset, and its pool.
        page.get_by_role("link", name="New study").click()
        page.get_by_role("link", name="Start from “CulturalFrames image rating”").click()
        page.get_by_label("Name:", exact=True).fill("Lantern festivals")
        page.get_by_label("Items per session").fill("2")
        page.get_by_role("button", name="Create the study").click()
        page.get_by_role("heading", name="Country pools").wait_for()
        study = Study.objects.get()
        assert study.status == Study.Status.DRAFT
        page.get_by_role("link", name="Add a country pool").click()
        page.get_by_label("Country:", exact=True).select_option("IN")
        wanted = page.get_by_label("Annotations wanted per item")
        wanted.fill("1")
        wanted.press("Enter")
        page.get_by_text("The pool for India is added.").wait_for()
        pool = study.pools.get()

        # Import: a bad row names its line and imports nothing; the fixed file imports.
        back_to_study(page, study)
        page.get_by_role("link", name="Import items").click()
        upload(page, write_files(tmp_path, ["IN", "FR", "IN"]))
        page.get_by_text("queued, waiting for a worker").wait_for()
        import_run(job_id=queued.pop())
        page.get_by_text("Nothing was imported from items.csv: 1 problem.").wait_for(timeout=10_000)
        assert page.get_by_text("line 3: country 'FR' has no pool in this study").is_visible()
        assert not study.items.exists()
        upload(page, write_files(tmp_path, ["IN", "IN", "IN"]))
        import_run(job_id=queued.pop())
        page.get_by_text("Imported 3 items (IN: 3)").wait_for(timeout=10_000)

        # Practice test: an example item, and a question whose feedback may not give the answer away.
        back_to_study(page, study)
        page.get_by_role("link", name="Practice test").click()
        page.get_by_label("Item id").fill("p1")
        page.get_by_role("button", name="Make it an example").click()
        page.get_by_text("Item p1 is an example.").wait_for()
        page.get_by_role("link", name="Add a practice question").click()
        page.get_by_label("Example item").select_option(index=1)
        page.get_by_label("Question").fill("Does the image match its prompt?")
        page.get_by_label("Choices").fill("Completely\nPartially\nNo")
        page.get_by_label("Expected answer").fill("No")
        page.get_by_label("Feedback on a wrong answer").fill("The answer is No.")
        page.get_by_role("button", name="Add the question").click()
        page.get_by_label("Save anyway: annotators will see a general note instead of this feedback").wait_for()
        assert not MockQuestion.objects.exists()
        page.get_by_label("Feedback on a wrong answer").fill("Compare each word of the prompt with the image.")
        page.get_by_role("button", name="Add the question").click()
        page.get_by_text("The practice question is added.").wait_for()

        # Preview the pool's path: the annotator's pages under the banner, nothing stored.
        back_to_study(page, study)
        page.get_by_role("link", name="Country pools").click()
        page.get_by_role("link", name="Preview as annotator of India").click()
        page.get_by_text("Preview — nothing is saved").wait_for()
        page.get_by_role("link", name="Exit preview").click()
        page.get_by_role("heading", name="Country pools").wait_for()
        assert not Annotator.objects.exists()

        # Open the study, and invite a co-researcher.
        back_to_study(page, study)
        page.get_by_role("button", name="Open to annotators").click()
        page.get_by_text("The study is open").wait_for()
        page.get_by_role("link", name="Members").click()
        page.get_by_label("Username or email address").fill("colleague")
        page.get_by_label("Role:", exact=True).select_option("editor")
        page.get_by_role("button", name="Invite").click()
        page.get_by_text("colleague is added.").wait_for()
        assert StudyMember.objects.get(study=study).role == "editor"

        # Follow: the study page changes while an annotator works in a second browser.
        back_to_study(page, study)
        row = page.locator(f"#progress-{pool.pk}")
        assert row.locator("[data-figure=done]").inner_text().startswith("0 / 2")
        page.evaluate("window.__samePage = true")
        annotator_context = browser.new_context(viewport={"width": 390, "height": 844})
        try:
            annotator = annotator_context.new_page()
            annotator.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
            annotator.goto(live_server.url + entry_url(pool, pid=PID))
            annotator.get_by_role("button", name="I agree, continue").click()
            annotator.get_by_role("heading", name="About you").wait_for()
            for fieldset in annotator.locator("fieldset").all():
                fieldset.get_by_label("Yes").check()
            annotator.get_by_role("button", name="Continue").click()
            annotator.get_by_role("button", name="I have read the instructions").click()
            annotator.locator("fieldset", has_text="Does the image match its prompt?").get_by_label(
                "No", exact=True
            ).check()
            annotator.get_by_role("button", name="Check my answers").click()
            annotator.get_by_role("heading", name="Image 1 of 2").wait_for()
            annotator.locator("#item-panel[data-ready=true]").wait_for()
            page.wait_for_function(
                f"document.querySelector('#progress-{pool.pk} [data-figure=active]').textContent.trim() === '1'",
                timeout=POLL,
            )
            for key in ("3", "2", "3", "5"):  # Completely, no stereotype, good quality, 5
                annotator.keyboard.press(key)
            annotator.keyboard.press("Control+Enter")
            annotator.get_by_role("heading", name="Image 2 of 2").wait_for()
        finally:
            annotator_context.close()
        page.wait_for_function(
            f"document.querySelector('#progress-{pool.pk} [data-figure=done]').textContent.startsWith('1 / 2')",
            timeout=POLL,
        )
        assert page.evaluate("window.__samePage") is True  # never reloaded
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

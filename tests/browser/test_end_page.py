"""The way out: the completion page counts down visibly before going back to Prolific, and can be
stopped to copy the code; declining consent asks to return the study, with no code to copy."""

import pytest

from annotation.models import Annotator
from studies.models import CountryPool
from tests import factories as f
from tests.factories import add_items, entry_url, spec_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROLIFIC_DONE = "https://app.prolific.com/submissions/complete?cc="
SPEC = {"fields": [{"key": "fits", "type": "choice", "label": "Does it fit?", "choices": ["yes", "no"]}]}


@pytest.fixture
def ended(live_server):
    """An annotator whose session ended (every item skipped: a code the researcher reviews): the
    entry link leads to the end page."""
    study, pool = spec_study(SPEC)
    study.code_all_skipped = "ALLSKIP"
    study.save()
    add_items(study, 2)
    annotator = f.make_annotator(pool, "cccccccccccccccccccccccc")
    annotator.outcome = Annotator.Outcome.ALL_SKIPPED
    annotator.save()
    return live_server.url + entry_url(pool, pid="cccccccccccccccccccccccc")


def test_the_completion_page_counts_down_then_goes_back_to_prolific(page, ended):
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    page.clock.install()
    page.goto(ended)
    assert page.locator("#completion-code").inner_text() == "ALLSKIP"
    countdown = page.locator("#countdown")
    assert countdown.inner_text().startswith("Taking you back to Prolific in 10 seconds.")
    page.clock.run_for(4000)
    assert countdown.inner_text().startswith("Taking you back to Prolific in 6 seconds.")
    assert page.url == ended.split("/join/")[0] + "/a/end/"  # still here, with time to copy the code
    page.clock.run_for(6000)
    page.wait_for_url(PROLIFIC_DONE + "ALLSKIP")


def test_the_countdown_counts_in_the_page_s_language(page, ended):
    """Arabic says 10, 3 and 2 seconds each in its own form; the sentence keeps the number in bold."""
    CountryPool.objects.update(language="ar")  # the ended annotator's pool
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    page.clock.install()
    page.goto(ended)
    countdown = page.locator("#countdown")
    assert countdown.inner_text().startswith("ستعود إلى Prolific خلال 10 ثوانٍ.")
    page.clock.run_for(7000)
    assert countdown.inner_text().startswith("ستعود إلى Prolific خلال 3 ثوانٍ.")
    page.clock.run_for(1000)
    assert countdown.inner_text().startswith("ستعود إلى Prolific خلال 2 ثانيتين.")
    assert countdown.locator("strong[data-seconds]").inner_text() == "2"
    page.get_by_role("button", name="البقاء في هذه الصفحة").click()
    assert countdown.inner_text().startswith("ستبقى في هذه الصفحة.")


def test_stay_on_this_page_stops_the_countdown(page, ended):
    page.clock.install()
    page.goto(ended)
    page.get_by_role("button", name="Stay on this page").click()
    page.clock.run_for(30_000)
    assert page.locator("#countdown").inner_text().startswith("You stay on this page.")
    assert page.url.endswith("/a/end/") and page.locator("#completion-code").inner_text() == "ALLSKIP"
    assert page.get_by_role("link", name="Return to Prolific now").get_attribute("href") == PROLIFIC_DONE + "ALLSKIP"


def test_declining_consent_asks_to_return_the_study_and_shows_no_code(page, live_server):
    study, pool = spec_study(SPEC)
    add_items(study, 2)
    f.make_annotator(pool, "dddddddddddddddddddddddd", onboarded=False)
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    page.clock.install()
    page.goto(live_server.url + entry_url(pool, pid="dddddddddddddddddddddddd"))
    page.get_by_role("button", name="I do not agree").click()
    page.get_by_role("heading", name="You did not consent").wait_for()
    assert "NOCONSENT" not in page.locator("main").inner_text()
    assert page.locator("#completion-code").count() == 0 and page.locator("#countdown").count() == 0
    page.clock.run_for(30_000)
    assert page.url.endswith("/a/end/")  # no redirect: the annotator chooses
    page.get_by_role("link", name="Return the study on Prolific").click()
    page.wait_for_url(PROLIFIC_DONE + "NOCONSENT")

"""A researcher plans a country's pool by keyboard, on a desktop and on a phone: the planner's form
filled and sent with Enter, a bad reward named next to its field, then the grid with the cheapest
choice; and the analysis page's country matrix fits a phone by scrolling inside its own box."""

import pytest

from analysis import services
from analysis.models import AnalysisRun
from tests import factories as f
from tests.annotations import annotate, annotators

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def piloted(db):
    owner = f.make_researcher("researcher")
    study = f.make_study(owner)
    for country, name in (("IN", "India"), ("JP", "Japan"), ("KE", "Kenya")):
        pool = f.make_pool(study, country, name)
        items = f.make_items(study, country, 12)
        for r, rater in enumerate(annotators(pool, 3)):
            for n, item in enumerate(items):
                annotate(rater, item, alignment=[0, 0.5, 1][(n + (r == 2 and country != "IN")) % 3], stereotype="no",
                         quality=1, overall=1 + (n + (r == 2 and country == "KE")) % 5)
    return study


def log_in(page, live_server, target):
    page.goto(f"{live_server.url}/login/?next={target}")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill("pass-for-tests-1")
    page.get_by_label("Password").press("Enter")


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_a_pool_is_planned_by_keyboard(page, live_server, piloted, viewport):
    if viewport:
        page.set_viewport_size(viewport)
    log_in(page, live_server, f"/studies/{piloted.pk}/")
    page.get_by_role("link", name="Plan annotators per country").click()
    page.get_by_label("Question").select_option(label="Overall score (ordinal)")
    page.get_by_label("Country pool").select_option(label="India")
    page.get_by_label("Reward per session").fill("-2")
    page.get_by_label("Reward per session").press("Enter")
    page.get_by_text("Ensure this value is greater than or equal to 0.01.").wait_for()
    assert page.locator("table.planner-grid").count() == 0

    page.get_by_label("Reward per session").fill("2.00")
    page.get_by_label("Interval width aimed at").fill("0.35")
    page.get_by_label("Interval width aimed at").press("Enter")
    page.get_by_text("Simulated from the pilot: 36 answers on 12 items").wait_for()
    cheapest = page.get_by_role("status").filter(has_text="Cheapest choice with an interval at most 0.35 wide")
    assert cheapest.is_visible() and "£" in cheapest.inner_text()
    grid = page.get_by_role("table", name="Expected width of alpha's 95% interval")
    assert grid.locator("td.planner-cheapest").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # nothing spills out


def test_the_country_matrix_on_a_phone(page, live_server, piloted):
    owner = piloted.owner
    run = services.analysis_run(run_id=AnalysisRun.objects.create(study=piloted, requested_by=owner,
                                                                  resamples=200).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    page.set_viewport_size(PHONE)
    log_in(page, live_server, f"/studies/{piloted.pk}/analysis/")
    matrix = page.get_by_role("table", name="Differences in Krippendorff's alpha between countries").first
    matrix.wait_for()
    assert matrix.get_by_role("columnheader", name="All the others").is_visible()
    assert matrix.locator("td.country-cell-self").count() == 3
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")

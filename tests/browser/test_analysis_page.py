"""A researcher starts the analysis on its page and watches it finish: the progress bar while the run
waits in the queue, then, without a reload, the agreement plots, the protocol's reports with their
plots, the metric section and the export button, all swapped in by the poll that sees the run end."""

from analysis import services, tasks
from analysis.models import AnalysisRun
from tests import factories as f
from tests.annotations import annotate, annotators

HTMX_ERRORS = """
window.__htmxErrors = [];
for (const name of ["htmx:oobErrorNoTarget", "htmx:swapError", "htmx:responseError", "htmx:targetError"]) {
  document.body.addEventListener(name, (event) => window.__htmxErrors.push(name));
}
window.__samePage = true;
"""


def test_the_results_appear_without_a_reload_when_the_run_ends(page, live_server, monkeypatch):
    owner = f.make_researcher("researcher")
    study = f.make_study(owner)
    pool, other = f.make_pool(study, "IN", "India"), f.make_pool(study, "JP", "Japan")
    for p, raters in ((pool, annotators(pool, 3)), (other, annotators(other, 3))):
        for n, item in enumerate(f.make_items(study, p.country, 3)):
            for r, rater in enumerate(raters):
                alignment = [0, 0.5, 1][(n + (r == 2)) % 3]
                annotate(rater, item, alignment=alignment, stereotype="no", quality=1, overall=n + 1)
    queued = []  # no worker: the run waits in the queue until the test runs it
    monkeypatch.setattr(tasks.analysis_run_task, "delay", queued.append)

    page.goto(f"{live_server.url}/login/?next=/studies/{study.pk}/analysis/")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill("pass-for-tests-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Run the analysis").click()

    page.get_by_text("Analysis queued, waiting for a worker…").wait_for()
    assert page.locator("#reports").is_hidden() and page.locator("svg.plot").count() == 0
    page.evaluate(HTMX_ERRORS)
    (run_id,) = queued
    services.analysis_run(run_id=run_id)
    assert AnalysisRun.objects.get(pk=run_id).status == AnalysisRun.Status.DONE

    reports = page.get_by_role("region", name="What the protocol reports")
    reports.wait_for(timeout=10_000)  # the next poll (every second) sees the run done
    assert page.get_by_role("img", name="Sub-perfect alignment ratings by error type").is_visible()
    assert reports.locator("svg.plot").count() >= 3
    alpha = "Krippendorff's alpha of Does the image match the prompt? (alignment), ordinal level"
    assert page.locator("#analysis-run").get_by_role("img", name=alpha).is_visible()
    assert page.get_by_role("status").filter(has_text="Analysis of 18 annotations finished").is_visible()
    assert page.get_by_role("button", name="Export the current data").is_visible()
    assert page.locator("input[type=radio][name=format][value=parquet]").is_visible()
    assert page.get_by_role("region", name="Metric correlation").is_visible()
    assert page.locator("progress").count() == 0
    assert page.evaluate("window.__samePage") is True  # the page was never reloaded
    assert page.evaluate("window.__htmxErrors") == []

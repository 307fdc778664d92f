"""A researcher imports items from the browser: a CSV and a zip with one bad row is refused (the
page names the line, nothing is imported); the corrected file is imported, the progress bar gives
way to the summary without a reload, and the items are listed."""

from studies import tasks
from studies.importing.job import import_run
from studies.models import Item
from tests import factories as f

from .helpers import upload, write_files


def test_a_researcher_fixes_a_bad_row_and_imports_the_items(page, live_server, monkeypatch, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    owner = f.make_researcher("researcher")
    study = f.make_study(owner)
    f.make_pool(study, "IN", "India")
    f.make_pool(study, "JP", "Japan")
    queued = []  # no worker: the job waits in the queue until the test runs it
    monkeypatch.setattr(tasks.import_run_task, "delay", queued.append)

    page.goto(f"{live_server.url}/login/?next=/studies/{study.pk}/")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill("pass-for-tests-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Import items").click()

    upload(page, write_files(tmp_path, ["IN", "FR", "JP"]))
    page.get_by_text("Import of items.csv queued, waiting for a worker…").wait_for()
    assert page.locator("progress").is_visible()
    import_run(job_id=queued.pop())
    page.get_by_text("Nothing was imported from items.csv: 1 problem.").wait_for(timeout=10_000)
    assert page.get_by_text("line 3: country 'FR' has no pool in this study (pools: IN, JP)").is_visible()
    assert not Item.objects.filter(study=study).exists()

    upload(page, write_files(tmp_path, ["IN", "JP", "JP"]))
    import_run(job_id=queued.pop())
    page.get_by_text("Imported 3 items (IN: 1, JP: 2) from items.csv and images.zip").wait_for(timeout=10_000)

    page.get_by_role("link", name=f"← {study.name}").click()
    page.get_by_role("link", name="Items", exact=True).click()
    page.get_by_text("3 items.").wait_for()
    page.get_by_label("Country").select_option("JP")
    page.get_by_role("button", name="Show").click()
    page.get_by_text("2 items match").wait_for()
    assert page.get_by_role("link", name="p2").is_visible() and page.get_by_role("link", name="p3").is_visible()
    page.get_by_role("link", name="p3").click()
    page.get_by_role("heading", name="Item p3").wait_for()
    assert page.get_by_role("img", name="The image of item p3").evaluate("img => img.naturalWidth") == 64
    assert page.get_by_text("No annotation yet.").is_visible()

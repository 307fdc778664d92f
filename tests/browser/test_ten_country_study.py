"""A new lab member takes a ten-country CulturalFrames study from an invitation to paid participants
and a downloaded gold dataset, through the pages alone, against the fake Prolific on a loopback
port (as `make demo` would: SQLite, jobs where the test runs them): the invitation grants "may
create studies", ten pools are added at once, forty items imported, every pool launched (South
Korea as Prolific's "Korea"), published, webhooks set up for the loopback site; a participant in
Korea works on a phone, eight others take part, a returned one's lease is given back by the review
page's refresh; every submission approved and paid; the analysis run and the gold labels downloaded."""

import csv
import io
import re
import zipfile

import pytest
from django.core import mail
from django.test import Client

from analysis import services as analysis_services
from analysis import tasks as analysis_tasks
from annotation.models import Assignment
from annotation.services import assignment_next
from exports import services as export_services
from exports import tasks as export_tasks
from recruitment.models import ProlificStudy, ProlificSubmission
from studies import tasks as studies_tasks
from studies.importing.job import import_run
from studies.models import Study
from tests import factories as f
from tests.recruitment.fake_prolific import fake_prolific_for
from tests.recruitment.fake_prolific_rules import RESIDENCE_CHOICES
from tests.recruitment.review_helpers import take_part

from .helpers import log_in, rate_by_mouse, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEN = ["BR", "DE", "EG", "ID", "IN", "JP", "KR", "MX", "NG", "US"]
NAMES = "Brazil, Germany, Egypt, Indonesia, India, Japan, South Korea, Mexico, Nigeria, United States"
KOREA_PID = "6a1b2c3d4e5f6a7b8c9d0e1f"


@pytest.fixture
def prolific(settings, live_server):
    # no deployment token: the new member stores their own; http on loopback: fine against a Prolific on loopback
    with fake_prolific_for(settings, site_url=live_server.url, token=False) as fake:
        yield fake


def items_files(tmp_path):
    """items.csv (four items per country, forty in all) and images.zip of their pictures."""
    rows = tmp_path / "items.csv"
    with rows.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "prompt", "image", "country"])
        for n, country in enumerate([c for c in TEN for _ in range(4)], start=1):
            writer.writerow([f"{country.lower()}{n}", f"A wedding feast, take {n}", f"{n}.png", country])
    images = tmp_path / "images.zip"
    with zipfile.ZipFile(images, "w") as zf:
        for n in range(1, 41):
            zf.writestr(f"{n}.png", f.png_bytes(color=(n * 6, 90, 250 - n * 5)))
    return [str(rows), str(images)]


def back_to_study(page, name):
    page.get_by_role("link", name=f"← {name}").click()
    page.get_by_role("navigation", name="Study").wait_for()


def test_a_new_lab_member_runs_a_ten_country_study_to_a_gold_dataset(
    browser, live_server, prolific, monkeypatch, tmp_path, settings
):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_HOST = "smtp.example.org"  # sent through Django's backend (the tests' outbox)
    queued: dict[str, list[int]] = {"import": [], "analysis": [], "export": []}
    monkeypatch.setattr(studies_tasks.import_run_task, "delay", queued["import"].append)
    monkeypatch.setattr(analysis_tasks.analysis_run_task, "delay", queued["analysis"].append)
    monkeypatch.setattr(export_tasks.export_build_task, "delay", queued["export"].append)
    pi = f.make_researcher("pi")
    lab_study = f.make_study(pi, name="The lab's pilot")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        # The lab's PI invites the new member, who may create studies of their own.
        log_in(page, live_server, "pi")
        page.goto(f"{live_server.url}/studies/{lab_study.pk}/members")
        page.get_by_label("Username or email address").fill("newcomer@lab.example.org")
        page.get_by_label("They may also create studies of their own").check()
        page.get_by_role("button", name="Invite").click()
        page.get_by_text("newcomer@lab.example.org is invited.").wait_for()
        (sent,) = mail.outbox
        link = re.search(r"https?://\S+/invitations/\S+/", sent.body).group(0)
        page.get_by_role("button", name="Log out").click()

        # The new member makes their account from the link, then the study.
        page.goto(link)
        page.get_by_text("and may create studies of their own").wait_for()
        page.get_by_label("Username").fill("newcomer")
        page.get_by_label("Password:", exact=True).fill(f.PASSWORD + "x")
        page.get_by_label("Password confirmation:").fill(f.PASSWORD + "x")
        page.get_by_role("button", name="Create my account and accept").click()
        page.get_by_text("You may also create studies of your own").wait_for()
        page.goto(f"{live_server.url}/studies/")
        page.get_by_role("link", name="New study").click()
        page.get_by_role("link", name="Start from “CulturalFrames image rating”").click()
        page.get_by_label("Name:", exact=True).fill("Weddings in ten countries")
        page.get_by_label("Items per session").fill("2")
        page.get_by_role("button", name="Create the study").click()
        page.get_by_role("heading", name="Country pools").wait_for()
        study = Study.objects.get(name="Weddings in ten countries")
        assert study.owner.username == "newcomer"

        # Ten pools at once, forty items, and the study opened.
        page.get_by_role("link", name="Add several pools at once").click()
        page.get_by_label("Countries").fill(", ".join(TEN))
        page.get_by_label("Annotations wanted per item").fill("1")
        page.get_by_role("button", name="Add the pools").click()
        page.get_by_text(f"10 pools are added: {NAMES}.").wait_for()
        back_to_study(page, study.name)
        page.get_by_role("link", name="Import items").click()
        upload(page, items_files(tmp_path))
        page.get_by_text("queued, waiting for a worker").wait_for()
        import_run(job_id=queued["import"].pop())
        page.get_by_text("Imported 40 items").wait_for(timeout=10_000)
        back_to_study(page, study.name)
        page.get_by_role("button", name="Open to annotators").click()
        page.get_by_text("The study is open").wait_for()

        # Their own Prolific token, then every pool launched: Korea found as Prolific's "Korea".
        page.goto(f"{live_server.url}/prolific/settings/")
        page.get_by_label("Prolific API token").fill(prolific.token)
        page.get_by_role("button", name="Store the token").click()
        page.get_by_text("Your Prolific token is stored").wait_for()
        page.goto(f"{live_server.url}/prolific/studies/{study.pk}/")
        countries = page.locator("#prolific-countries")
        countries.get_by_text("found as Korea").wait_for()
        assert countries.get_by_text("No match").count() == 0
        page.get_by_label("Reward per participant").fill("1.50")
        page.get_by_label("Estimated completion time (minutes)").fill("10")
        page.get_by_role("button", name="Create the drafts on Prolific").click()
        page.get_by_text(f"Created as Prolific drafts: {NAMES}").wait_for()
        rows = {row.pool.country: row for row in ProlificStudy.objects.select_related("pool")}
        assert sorted(rows) == TEN and all(row.created for row in rows.values())
        korea = next(k for k, v in RESIDENCE_CHOICES.items() if v == "Korea")
        assert rows["KR"].filters[0]["selected_values"] == [korea]
        assert page.locator("#budget").inner_text().startswith("Budget on Prolific (10 pools on Prolific): rewards £")
        page.get_by_role("button", name="Publish every draft").click()
        page.get_by_text("United States: Active").wait_for()
        page.get_by_role("button", name="Set up the webhooks").click()
        page.get_by_role("button", name="Check the webhooks").wait_for()

        # A participant in Korea on a phone, through the link Prolific sends.
        kr = ProlificStudy.objects.get(pool__country="KR")
        submission = prolific.submission_start(kr.prolific_id, KOREA_PID)
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        try:
            participant = phone.new_page()
            participant.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
            entry = prolific.studies[kr.prolific_id]["external_study_url"]
            participant.goto(entry.replace("{{%PROLIFIC_PID%}}", KOREA_PID).replace(
                "{{%STUDY_ID%}}", kr.prolific_id).replace("{{%SESSION_ID%}}", submission))
            participant.get_by_role("button", name="I agree, continue").click()
            for fieldset in participant.locator("fieldset").all():
                fieldset.get_by_label("Yes").check()
            participant.get_by_role("button", name="Continue").click()
            participant.get_by_role("button", name="I have read the instructions").click()
            for n in (1, 2):
                participant.get_by_role("heading", name=f"Image {n} of 2").wait_for()
                rate_by_mouse(participant)
            participant.wait_for_url(f"https://app.prolific.com/submissions/complete?cc={study.code_completed}")
        finally:
            phone.close()
        prolific.submission_finish(submission, study.code_completed)

        # Eight more take part in eight other pools; one in Mexico returns halfway, unseen by webhooks.
        others = [c for c in TEN if c not in {"KR", "MX"}]
        for n, country in enumerate(others, start=1):
            take_part(prolific, rows[country], pid=f"{n:024d}")
        mx_pid = "5" * 24
        returned = prolific.submission_start(rows["MX"].prolific_id, mx_pid)
        session = f.make_session(f.make_annotator(rows["MX"].pool, mx_pid), returned)
        held = assignment_next(session=session)
        prolific.submission_return(returned)
        prolific.events.clear()  # nobody is told of the return
        assert all(r.status_code == 200 for r in prolific.deliver(Client()))  # there is nothing queued

        # Review: the refresh reads Prolific and applies it; every completed submission approved.
        page.goto(f"{live_server.url}/prolific/studies/{study.pk}/review/")
        page.get_by_role("button", name="Refresh from Prolific").click()
        page.locator("td[role=status]", has_text="done").first.wait_for()
        assert Assignment.objects.get(pk=held.pk).status == Assignment.Status.EXPIRED
        assert ProlificSubmission.objects.get(prolific_id=returned).status == "RETURNED"
        page.goto(f"{live_server.url}/prolific/studies/{study.pk}/review/")
        for box in page.get_by_role("checkbox", name=re.compile(r"^Pick ")).all():
            box.check()
        page.get_by_role("button", name="Approve the ticked submissions").click()
        page.locator("td[role=status]", has_text="done").first.wait_for()
        prolific.drain()
        paid = [s for s in prolific.submissions.values() if s["status"] == "APPROVED"]
        assert len(paid) == 9

        # The analysis, then the gold labels downloaded.
        page.goto(f"{live_server.url}/studies/{study.pk}/analysis/")
        page.get_by_role("button", name="Run the analysis").click()
        page.get_by_text("Analysis queued, waiting for a worker…").wait_for()
        analysis_services.analysis_run(run_id=queued["analysis"].pop())
        page.get_by_role("button", name="Export the current data").wait_for(timeout=10_000)
        page.get_by_label("Gold labels").check()
        page.get_by_role("button", name="Export the current data").click()
        export_services.export_build(job_id=queued["export"].pop())
        download_link = page.get_by_role("link", name=re.compile(r"^Download"))
        download_link.wait_for(timeout=10_000)
        with page.expect_download() as event:
            download_link.click()
        with zipfile.ZipFile(io.BytesIO(event.value.path().read_bytes())) as gold:
            by_country = list(csv.DictReader(io.TextIOWrapper(gold.open("gold_by_country.csv"), "utf-8")))
        # every country where someone completed: Korea's phone participant and the eight others
        assert {row["country"] for row in by_country} == set(TEN) - {"MX"}
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

"""The periodic sync (Celery beat and ``manage.py prolific sync``): every submission recorded,
leases of returned, timed-out and rejected ones a webhook missed given back, the study's status
and places in step; running it again, or twice at once, changes nothing more."""

import threading

import pytest
from django.core.management import call_command
from django.db import connection

from annotation.models import Annotator, Assignment
from annotation.services import assignment_next
from recruitment.models import ProlificStudy, ProlificSubmission
from recruitment.tasks import prolific_sync_task
from studies.models import ItemQuota
from tests.helpers import enter


@pytest.fixture
def leased(client, participant, pool):
    pid, study_id, session_id = participant
    enter(client, pool, pid=pid, study_id=study_id, session_id=session_id)
    Annotator.objects.update(consented_at="2026-01-01T00:00Z", cleared_at="2026-01-01T00:00Z")
    session = ProlificSubmission.objects.get().session
    return session, assignment_next(session=session)


def sync(study, capsys=None):
    call_command("prolific", "sync", str(study.pk))
    return capsys.readouterr().out if capsys else ""


def test_sync_catches_a_return_that_no_webhook_reported(fake_prolific, leased, participant, study, pool, capsys):
    session, lease = leased
    fake_prolific.submission_return(participant[2])  # no webhook subscribed: nobody is told
    out = sync(study, capsys)
    assert f"{participant[2]}: status RETURNED, lease released" in out
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 0
    assert ProlificSubmission.objects.get().status == "RETURNED"
    again = sync(study, capsys)
    assert participant[2] not in again and "1 submissions" in again


def test_sync_records_submissions_that_never_entered_across_pages(fake_prolific, on_prolific, study):
    fake_prolific.studies[on_prolific.prolific_id]["total_available_places"] = 5
    ids = [fake_prolific.submission_start(on_prolific.prolific_id, f"{n:024d}") for n in range(3)]
    fake_prolific.submission_return(ids[1], "TIMED-OUT")
    sync(study)
    rows = {r.prolific_id: r for r in ProlificSubmission.objects.all()}
    assert set(rows) == set(ids)  # three submissions over two pages (the fake's page size is 2)
    assert rows[ids[1]].status == "TIMED-OUT" and rows[ids[0]].session is None
    assert rows[ids[0]].started_at is not None


def test_sync_refreshes_the_study_status_and_its_places(fake_prolific, on_prolific, study, owner):
    fake_prolific.studies[on_prolific.prolific_id]["status"] = "PAUSED"  # paused on Prolific's site
    sync(study)
    on_prolific.refresh_from_db()
    assert on_prolific.status == "PAUSED" and on_prolific.synced_at is not None


def test_the_beat_task_syncs_every_running_study(fake_prolific, leased, participant, pool):
    session, lease = leased
    fake_prolific.submission_return(participant[2], "REJECTED")
    prolific_sync_task.delay()
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 0
    assert ProlificSubmission.objects.get().status == "REJECTED"


def test_the_beat_task_reports_a_failing_pool_and_goes_on(fake_prolific, leased, participant, pool):
    fake_prolific.fail_next("GET", r"studies/[0-9a-f]{24}/submissions/", 500, times=2)
    prolific_sync_task.delay()  # no exception: the next run tries again
    fake_prolific.submission_return(participant[2])
    prolific_sync_task.delay()
    assert ProlificSubmission.objects.get().status == "RETURNED"


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_syncs_at_once_record_each_submission_once(fake_prolific, owner, pool, items, on_prolific):
    fake_prolific.studies[on_prolific.prolific_id]["total_available_places"] = 8
    for n in range(6):
        fake_prolific.submission_start(on_prolific.prolific_id, f"{n:024d}")
    errors = []
    barrier = threading.Barrier(2)

    def run():
        try:
            barrier.wait()
            call_command("prolific", "sync", str(pool.study_id))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert ProlificSubmission.objects.count() == 6
    assert ProlificStudy.objects.get().status == "ACTIVE"


def test_the_review_page_s_refresh_applies_what_the_sync_applies(
    fake_prolific, leased, participant, study, pool, owner, django_capture_on_commit_callbacks
):
    """A participant returned on Prolific (no webhook): "Refresh from Prolific" gives their lease
    back and withdraws their annotations, as the sync does, and brings the study's status in step."""
    from django.urls import reverse

    from tests.recruitment.test_study_page import logged_in

    session, lease = leased
    fake_prolific.submission_return(participant[2])
    fake_prolific.studies[participant[1]]["status"] = "AWAITING REVIEW"  # full on Prolific's side
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in(owner).post(reverse("recruitment:review-refresh", args=[study.pk]))
    assert response.status_code == 302
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 0
    assert ProlificSubmission.objects.get().status == "RETURNED"
    assert ProlificStudy.objects.get().status == "AWAITING REVIEW"

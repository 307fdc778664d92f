"""The one job lifecycle (``jobs.lifecycle``), shown on analysis runs, imports, exports and Prolific
actions alike. Its lease: a claim holds an attempt and a lease, progress renews it, a redelivered
task claims only what is its to run, and a job whose worker is gone is queued again once (where a
repeat is harmless) or failed with the reason; a dead run never blocks a new start."""

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import timezone

from analysis.models import AnalysisRun
from analysis.services import analysis_run, analysis_start
from exports.models import ExportJob
from exports.services import export_start
from jobs import lifecycle as jobs
from jobs.lifecycle import job_claim, job_finish, job_progress, jobs_reap
from recruitment.models import ProlificBonus, ProlificJob, ProlificStudy
from studies.models import ImportJob
from tests.annotations import annotate, annotators

pytestmark = pytest.mark.django_db

LOST = "The worker running it stopped (lost at "


@pytest.fixture
def rated(study, pool, items):
    for rater in annotators(pool, 2):
        annotate(rater, items[0])
    return study


def run_of(study, **fields):
    return AnalysisRun.objects.create(study=study, **fields)


def expired(model, pk, *, attempt=1, ago=60):
    """The row as a worker that was killed leaves it: running, its lease ``ago`` seconds past."""
    model.objects.filter(pk=pk).update(
        status="running", attempt=attempt, lease_expires_at=timezone.now() - timedelta(seconds=ago)
    )


# --- the claim -------------------------------------------------------------------------------


def test_a_claim_holds_attempt_one_and_a_lease_ahead(study):
    run = run_of(study)
    before = timezone.now()

    assert job_claim(AnalysisRun, run.pk) == 1

    run.refresh_from_db()
    assert run.status == "running" and run.attempt == 1
    lease = timedelta(seconds=django_settings.JOB_LEASE_SECONDS)
    assert before + lease <= run.lease_expires_at <= timezone.now() + lease


def test_a_redelivered_task_leaves_a_live_job_alone(study):
    run = run_of(study)
    job_claim(AnalysisRun, run.pk)

    assert job_claim(AnalysisRun, run.pk) is None
    run.refresh_from_db()
    assert run.attempt == 1


@pytest.mark.parametrize("status", ["done", "failed"])
def test_a_redelivered_task_does_not_run_a_finished_job_again(study, status):
    run = run_of(study, status=status, attempt=1)

    assert analysis_run(run_id=run.pk).status == status
    run.refresh_from_db()
    assert run.attempt == 1


def test_a_redelivered_task_takes_over_a_job_whose_lease_expired(study):
    run = run_of(study)
    expired(AnalysisRun, run.pk)

    assert job_claim(AnalysisRun, run.pk) == 2
    run.refresh_from_db()
    assert run.status == "running" and run.lease_expires_at > timezone.now()


def test_a_redelivered_task_does_not_take_over_past_the_last_attempt(study):
    run = run_of(study)
    expired(AnalysisRun, run.pk, attempt=AnalysisRun.max_attempts)

    assert job_claim(AnalysisRun, run.pk) is None


def test_a_redelivered_task_runs_a_lost_analysis_to_the_end(rated):
    run = run_of(rated)
    expired(AnalysisRun, run.pk)

    run = analysis_run(run_id=run.pk)

    assert run.status == "done" and run.attempt == 2 and run.lease_expires_at is None
    assert run.result["annotations"] == 2


# --- renewing the lease ----------------------------------------------------------------------


def test_progress_renews_the_lease_when_it_is_due(study, settings):
    settings.JOB_HEARTBEAT_SECONDS = 0  # every call is due
    run = run_of(study)
    job_claim(AnalysisRun, run.pk)
    AnalysisRun.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=1))

    assert job_progress(AnalysisRun, run.pk, 40)

    run.refresh_from_db()
    assert run.progress == 40
    assert run.lease_expires_at > timezone.now() + timedelta(seconds=settings.JOB_LEASE_SECONDS - 5)


def test_progress_does_not_write_the_lease_more_often_than_the_heartbeat(study, settings):
    settings.JOB_HEARTBEAT_SECONDS = 3600
    run = run_of(study)
    job_claim(AnalysisRun, run.pk)
    soon = timezone.now() + timedelta(seconds=1)
    AnalysisRun.objects.filter(pk=run.pk).update(lease_expires_at=soon)

    job_progress(AnalysisRun, run.pk, 40)

    run.refresh_from_db()
    assert run.progress == 40 and run.lease_expires_at == soon


def test_a_worker_whose_job_was_taken_over_writes_nothing(study):
    run = run_of(study)
    job_claim(AnalysisRun, run.pk)
    AnalysisRun.objects.filter(pk=run.pk).update(attempt=2)  # another worker took it over

    assert not job_progress(AnalysisRun, run.pk, 50)
    assert not job_finish(AnalysisRun, run.pk, result={"stale": True})
    run.refresh_from_db()
    assert run.status == "running" and run.result is None and run.progress == 0


# --- the reaper ------------------------------------------------------------------------------


def test_the_reaper_queues_a_lost_analysis_again_once(rated, django_capture_on_commit_callbacks):
    run = run_of(rated)
    expired(AnalysisRun, run.pk)

    with django_capture_on_commit_callbacks(execute=True):  # no broker in tests: the task runs here
        counts = jobs_reap()

    assert counts == {"requeued": 1, "failed": 0}
    run.refresh_from_db()
    assert run.status == "done" and run.attempt == 2, run.error


def test_the_reaper_fails_a_job_lost_on_its_last_attempt_with_the_reason(study, django_capture_on_commit_callbacks):
    run = run_of(study)
    expired(AnalysisRun, run.pk, attempt=AnalysisRun.max_attempts)
    lost_at = timezone.localtime(AnalysisRun.objects.get(pk=run.pk).lease_expires_at).strftime("%H:%M")

    with django_capture_on_commit_callbacks(execute=True) as queued:
        counts = jobs_reap()

    assert counts == {"requeued": 0, "failed": 1} and not queued
    run.refresh_from_db()
    assert run.status == "failed" and run.finished_at is not None and run.lease_expires_at is None
    assert run.error == f"{LOST}{lost_at}); start it again."


def test_the_reaper_fails_a_lost_job_whose_kind_is_not_safe_to_repeat(study, monkeypatch):
    monkeypatch.setattr(AnalysisRun, "requeue_safe", False)
    run = run_of(study)
    expired(AnalysisRun, run.pk)

    assert jobs_reap() == {"requeued": 0, "failed": 1}
    run.refresh_from_db()
    assert run.status == "failed" and run.error.startswith(LOST)


def test_the_reaper_leaves_live_queued_and_finished_jobs_alone(study):
    live = run_of(study)
    job_claim(AnalysisRun, live.pk)
    queued = run_of(study)
    done = run_of(study, status="done", lease_expires_at=timezone.now() - timedelta(hours=1))

    assert jobs_reap() == {"requeued": 0, "failed": 0}
    assert [r.status for r in AnalysisRun.objects.filter(pk__in=[live.pk, queued.pk, done.pk]).order_by("pk")] == [
        "running", "queued", "done",
    ]


def test_the_reaper_covers_every_kind_of_job():
    assert set(jobs.job_models()) == {AnalysisRun, ImportJob, ExportJob, ProlificJob}
    assert all(m.task and m.requeue_safe for m in (AnalysisRun, ImportJob, ExportJob))
    assert ProlificJob.task and not ProlificJob.requeue_safe  # decided per row: ProlificJob.repeatable


def test_one_sweep_reaps_every_kind_by_its_own_rules(study, pool, django_capture_on_commit_callbacks):
    """The one beat entry: a lost analysis and a lost approval queued again, a lost payment failed
    with its bonus made uncertain (never sent again), in one ``jobs_reap``."""
    row = ProlificStudy.objects.create(pool=pool, reference="r1", prolific_id="p1", places=2, reward=150,
                                       currency="GBP", estimated_minutes=10)
    bonus = ProlificBonus.objects.create(prolific_study=row, lines=[], amount=100, currency="GBP",
                                         state=ProlificBonus.State.PAYING, prolific_id="b1")
    run = run_of(study)
    approve = ProlificJob.objects.create(study=study, prolific_study=row, kind="approve")
    pay = ProlificJob.objects.create(study=study, prolific_study=row, kind="bonus_pay", bonus=bonus)
    for model, pk in [(AnalysisRun, run.pk), (ProlificJob, approve.pk), (ProlificJob, pay.pk)]:
        expired(model, pk)

    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert jobs_reap() == {"requeued": 2, "failed": 1}

    assert len(queued) == 2
    assert AnalysisRun.objects.get(pk=run.pk).status == "queued"
    assert ProlificJob.objects.get(pk=approve.pk).status == "queued"
    pay.refresh_from_db()
    bonus.refresh_from_db()
    assert pay.status == "failed" and "may or may not have paid" in pay.error
    assert bonus.state == ProlificBonus.State.UNCERTAIN


def test_a_redelivered_payment_never_takes_over_its_lost_worker(study, pool):
    """A kind a repeat does not leave harmless is never claimed again once running: the reaper decides."""
    row = ProlificStudy.objects.create(pool=pool, reference="r1", prolific_id="p1", places=2, reward=150,
                                       currency="GBP", estimated_minutes=10)
    pay = ProlificJob.objects.create(study=study, prolific_study=row, kind="bonus_pay")
    approve = ProlificJob.objects.create(study=study, prolific_study=row, kind="approve")
    expired(ProlificJob, pay.pk)
    expired(ProlificJob, approve.pk)

    assert job_claim(ProlificJob, pay.pk) is None
    assert job_claim(ProlificJob, approve.pk) == 2


def test_the_reaper_queues_a_lost_export_again(rated, owner, django_capture_on_commit_callbacks):
    analysis_run(run_id=run_of(rated).pk)
    with django_capture_on_commit_callbacks(execute=False):
        job = export_start(study=rated, user=owner)
    expired(ExportJob, job.pk)

    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_reap() == {"requeued": 1, "failed": 0}

    job.refresh_from_db()
    assert job.status == "done" and job.attempt == 2 and job.file, job.error


def test_the_reaper_fails_an_import_lost_twice(study):
    job = ImportJob.objects.create(study=study, rows_name="rows.csv")
    expired(ImportJob, job.pk, attempt=2)

    assert jobs_reap() == {"requeued": 0, "failed": 1}
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith(LOST)


# --- a queued job no worker took (its message lost) -------------------------------------------

UNCLAIMED = "No worker took it within "


def unclaimed(model, pk, *, ago):
    """The row as a lost queue message leaves it: still queued, ``ago`` seconds after it was queued."""
    then = timezone.now() - timedelta(seconds=ago)
    model.objects.filter(pk=pk).update(created_at=then, queued_at=then)


def test_the_reaper_sends_a_queued_job_again_once_no_worker_took_it(
    rated, settings, django_capture_on_commit_callbacks
):
    run = run_of(rated)
    unclaimed(AnalysisRun, run.pk, ago=settings.JOB_QUEUED_GRACE_SECONDS + 5)

    with django_capture_on_commit_callbacks(execute=True):  # no broker in tests: the task runs here
        assert jobs_reap() == {"requeued": 1, "failed": 0}

    run.refresh_from_db()
    assert run.status == "done" and run.attempt == 1, run.error


def test_the_reaper_fails_a_queued_job_no_worker_took_though_sent_again(
    study, settings, django_capture_on_commit_callbacks
):
    job = ImportJob.objects.create(study=study, rows_name="rows.csv")
    unclaimed(ImportJob, job.pk, ago=settings.JOB_QUEUED_GRACE_SECONDS + 5)
    with django_capture_on_commit_callbacks(execute=False):  # the message sent again is lost too
        assert jobs_reap() == {"requeued": 1, "failed": 0}
        assert jobs_reap() == {"requeued": 0, "failed": 0}, "sent again once, then given its grace"
    unclaimed(ImportJob, job.pk, ago=settings.JOB_QUEUED_GRACE_SECONDS + 5)

    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert jobs_reap() == {"requeued": 0, "failed": 1}

    assert not queued
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert job.error.startswith(UNCLAIMED) and job.error.endswith("start it again."), job.error


def test_the_reaper_leaves_a_job_queued_within_its_grace_alone(rated, settings):
    run = run_of(rated)
    unclaimed(AnalysisRun, run.pk, ago=settings.JOB_QUEUED_GRACE_SECONDS - 30)

    assert jobs_reap() == {"requeued": 0, "failed": 0}
    assert AnalysisRun.objects.get(pk=run.pk).status == "queued"


def test_the_reaper_sends_a_queued_export_again(rated, owner, settings, django_capture_on_commit_callbacks):
    analysis_run(run_id=run_of(rated).pk)
    with django_capture_on_commit_callbacks(execute=False):  # its message is lost
        job = export_start(study=rated, user=owner)
    unclaimed(ExportJob, job.pk, ago=settings.JOB_QUEUED_GRACE_SECONDS + 5)

    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_reap() == {"requeued": 1, "failed": 0}

    job.refresh_from_db()
    assert job.status == "done" and job.file, job.error


def test_a_job_queued_again_after_its_worker_was_lost_gets_a_fresh_grace(rated, django_capture_on_commit_callbacks):
    run = run_of(rated)
    unclaimed(AnalysisRun, run.pk, ago=3600)
    expired(AnalysisRun, run.pk)
    with django_capture_on_commit_callbacks(execute=False):  # queued again; its worker has not taken it yet
        assert jobs_reap() == {"requeued": 1, "failed": 0}

    assert jobs_reap() == {"requeued": 0, "failed": 0}
    assert AnalysisRun.objects.get(pk=run.pk).status == "queued"


def test_the_queued_grace_is_a_setting_in_the_deployment_doc():
    from pathlib import Path

    readme = (Path(django_settings.BASE_DIR) / "docs" / "deployment.md").read_text()
    assert django_settings.JOB_QUEUED_GRACE_SECONDS == 600
    assert "| `JOB_QUEUED_GRACE_SECONDS` | `600` |" in readme


def test_the_reaper_runs_every_minute():
    entry = django_settings.CELERY_BEAT_SCHEDULE["reap-jobs"]
    assert entry == {"task": "jobs.tasks.jobs_reap_task", "schedule": 60.0}


# --- starting again --------------------------------------------------------------------------


def test_starting_again_returns_a_live_run(rated, owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = analysis_start(study=rated, user=owner)
    job_claim(AnalysisRun, run.pk)

    with django_capture_on_commit_callbacks(execute=False):
        assert analysis_start(study=rated, user=owner).pk == run.pk


def test_starting_again_fails_a_dead_run_and_starts_a_new_one_at_once(
    rated, owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        dead = analysis_start(study=rated, user=owner)
    expired(AnalysisRun, dead.pk, ago=1)  # created a second ago: well within the old ten minutes

    with django_capture_on_commit_callbacks(execute=True):
        new = analysis_start(study=rated, user=owner)

    assert new.pk != dead.pk
    dead.refresh_from_db()
    new.refresh_from_db()
    assert dead.status == "failed" and dead.error.startswith(LOST)
    assert new.status == "done" and new.attempt == 1


def test_starting_again_does_not_return_a_run_queued_past_the_grace(
    rated, owner, settings, django_capture_on_commit_callbacks
):
    settings.JOB_QUEUED_GRACE_SECONDS = 60
    with django_capture_on_commit_callbacks(execute=False):  # its message is lost
        lost = analysis_start(study=rated, user=owner)
    unclaimed(AnalysisRun, lost.pk, ago=120)  # within the old ten minutes, past the grace

    with django_capture_on_commit_callbacks(execute=True):
        new = analysis_start(study=rated, user=owner)

    assert new.pk != lost.pk
    lost.refresh_from_db()
    new.refresh_from_db()
    assert lost.status == "failed" and lost.error.startswith(UNCLAIMED), lost.error
    assert new.status == "done"


def test_starting_again_returns_a_run_queued_within_the_grace(
    rated, owner, settings, django_capture_on_commit_callbacks
):
    settings.JOB_QUEUED_GRACE_SECONDS = 3600
    with django_capture_on_commit_callbacks(execute=False):
        queued = analysis_start(study=rated, user=owner)
    unclaimed(AnalysisRun, queued.pk, ago=20 * 60)  # past the old ten minutes, within the grace

    with django_capture_on_commit_callbacks(execute=False):
        assert analysis_start(study=rated, user=owner).pk == queued.pk


def test_the_job_tasks_are_acknowledged_late_and_given_back_when_their_worker_is_lost():
    from analysis.tasks import analysis_run_task
    from exports.tasks import export_build_task
    from jobs.tasks import jobs_reap_task
    from studies.tasks import import_run_task

    for task in (analysis_run_task, import_run_task, export_build_task):
        assert task.acks_late and task.reject_on_worker_lost, task.name
    assert not jobs_reap_task.reject_on_worker_lost


def test_the_analysis_page_starts_a_new_run_past_a_dead_one(client, rated, owner, django_capture_on_commit_callbacks):
    client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=False):
        client.post(reverse("analysis:analysis", args=[rated.pk]))
    dead = AnalysisRun.objects.get()
    expired(AnalysisRun, dead.pk, ago=1)

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("analysis:analysis", args=[rated.pk]))

    dead.refresh_from_db()
    new = AnalysisRun.objects.exclude(pk=dead.pk).get()
    assert dead.status == "failed" and new.status == "done"
    assert dead.error.startswith(LOST)

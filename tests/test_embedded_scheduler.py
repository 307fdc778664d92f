"""The embedded mode (no broker, so no beat) runs beat's periodic work in the serving process:
every entry of CELERY_BEAT_SCHEDULE, in-process, each at its period; a job whose process died is
queued again or failed with no beat at all. Never with a broker, never when switched off."""

import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.db import OperationalError
from django.utils import timezone

from analysis.models import AnalysisRun
from annotation.models import Assignment
from config import embedded
from config.embedded import EmbeddedScheduler, scheduler_start
from jobs.models import SchedulerLease
from jobs.scheduler_lease import scheduler_lease_claim
from tests import factories as f
from tests.annotations import annotate, annotators


def wait_until(check, seconds=15.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


@pytest.fixture
def scheduler():
    started = []

    def start(schedule, tick=0.05, **lease):
        thread = EmbeddedScheduler(schedule, tick=tick, **lease)
        thread.start()
        started.append(thread)
        return thread

    yield start
    for thread in started:
        thread.stop()
        thread.join(timeout=30)


@pytest.mark.django_db(transaction=True)
def test_a_job_whose_process_died_is_run_again_with_no_beat(scheduler, study, pool, items):
    for rater in annotators(pool, 2):
        annotate(rater, items[0])
    run = AnalysisRun.objects.create(study=study)  # as a killed process left it: running, its lease past
    AnalysisRun.objects.filter(pk=run.pk).update(
        status="running", attempt=1, lease_expires_at=timezone.now() - timedelta(seconds=60)
    )
    thread = scheduler({"reap-jobs": django_settings.CELERY_BEAT_SCHEDULE["reap-jobs"]})
    assert wait_until(lambda: AnalysisRun.objects.get(pk=run.pk).status == "done")
    assert AnalysisRun.objects.get(pk=run.pk).attempt == 2 and thread.runs["reap-jobs"] >= 1


@pytest.mark.django_db(transaction=True)
def test_a_lapsed_lease_is_given_back_with_no_beat(scheduler, pool, items):
    session = f.make_session(f.make_annotator(pool))
    from annotation.services import assignment_next

    lease = assignment_next(session=session)
    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    scheduler({"expire-leases": django_settings.CELERY_BEAT_SCHEDULE["expire-leases"]})
    assert wait_until(lambda: Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED)


@pytest.mark.django_db(transaction=True)  # the scheduler holds its lease in the database
def test_every_beat_entry_runs_at_its_period_and_a_failing_one_does_not_stop_the_others(scheduler, monkeypatch):
    calls = []

    def runner(name):
        if name == "boom":
            def fail():
                calls.append(name)
                raise RuntimeError("a task that fails")
            return fail
        return lambda: calls.append(name)

    monkeypatch.setattr(embedded, "task_runner", runner)
    thread = scheduler({"fast": {"task": "fast", "schedule": 0.1}, "boom": {"task": "boom", "schedule": 0.1},
                        "slow": {"task": "slow", "schedule": 3600.0}})
    assert thread.is_alive()
    assert wait_until(lambda: calls.count("fast") >= 3 and calls.count("boom") >= 3)
    assert calls.count("slow") == 1  # once at start, then at its own period


def test_every_task_of_the_beat_schedule_is_known_in_process():
    for entry in django_settings.CELERY_BEAT_SCHEDULE.values():
        assert callable(embedded.task_runner(entry["task"]))


def test_it_starts_only_in_the_embedded_mode_and_when_not_switched_off(settings, monkeypatch):
    monkeypatch.setattr(embedded, "_started", None)
    monkeypatch.setattr(EmbeddedScheduler, "start", lambda self: None)  # not really started here
    monkeypatch.setattr(EmbeddedScheduler, "is_alive", lambda self: True)
    settings.TESSERA_EMBEDDED_SCHEDULER = True
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    assert scheduler_start() is None  # a broker: beat does it
    settings.CELERY_BROKER_URL = ""
    settings.TESSERA_EMBEDDED_SCHEDULER = False
    assert scheduler_start() is None  # switched off
    settings.TESSERA_EMBEDDED_SCHEDULER = True
    first = scheduler_start()
    assert first is not None and scheduler_start() is first  # once per process


def test_a_management_command_starts_no_scheduler(tmp_path):
    code = ("import django, os, threading; django.setup(); from django.core.management import call_command; "
            "call_command('check', verbosity=0); "
            "print(sorted(t.name for t in threading.enumerate()), flush=True); os._exit(0)")
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1", "TESSERA_EMBEDDED_SCHEDULER": "1",
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=django_settings.BASE_DIR, check=True).stdout
    assert "tessera-embedded-scheduler" not in out


def test_the_serving_process_starts_it_in_the_embedded_mode(tmp_path):
    # os._exit: the answer is read, then the process ends at once (its scheduler's first tasks may
    # still be running against the empty database; a daemon thread must not hold up the test)
    code = ("import os, threading, config.wsgi; "
            "print(sorted(t.name for t in threading.enumerate()), flush=True); os._exit(0)")
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1", "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=django_settings.BASE_DIR, check=True).stdout
    assert "tessera-embedded-scheduler" in out
    env["CELERY_BROKER_URL"] = "redis://127.0.0.1:6379/15"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=django_settings.BASE_DIR, check=True).stdout
    assert "tessera-embedded-scheduler" not in out


def counting(monkeypatch) -> list:
    calls: list = []
    monkeypatch.setattr(embedded, "task_runner", lambda name: lambda: calls.append((name, threading.current_thread())))
    return calls


@pytest.mark.django_db(transaction=True)
def test_of_two_schedulers_sharing_the_database_only_one_runs_the_entries(scheduler, monkeypatch):
    calls = counting(monkeypatch)
    first = scheduler({"sweep": {"task": "sweep", "schedule": 0.1}}, heartbeat=0.2, lease=0.6)
    assert wait_until(lambda: first.holding)
    second = scheduler({"sweep": {"task": "sweep", "schedule": 0.1}}, heartbeat=0.2, lease=0.6)
    time.sleep(1.5)  # several heartbeats and lease lengths: the holder renews, the other stands by
    assert first.holding and not second.holding
    assert second.runs["sweep"] == 0 and first.runs["sweep"] >= 5
    assert {thread for _, thread in calls} == {first}
    lease = SchedulerLease.objects.get(name="embedded-beat")
    assert lease.holder == first.holder


@pytest.mark.django_db(transaction=True)
def test_a_stopped_holder_gives_the_lease_back_and_another_takes_over(scheduler, monkeypatch):
    counting(monkeypatch)
    entry = {"sweep": {"task": "sweep", "schedule": 0.1}}
    first = scheduler(entry, heartbeat=0.2, lease=30.0)  # a long lease: only the giving back frees it
    assert wait_until(lambda: first.holding)
    second = scheduler(entry, heartbeat=0.2, lease=30.0)
    time.sleep(0.5)
    assert not second.holding
    first.stop()
    first.join(timeout=10)
    assert wait_until(lambda: second.holding and second.runs["sweep"] >= 1)


@pytest.mark.django_db(transaction=True)
def test_a_holder_that_died_is_replaced_once_its_lease_lapses(scheduler, monkeypatch):
    counting(monkeypatch)
    died = scheduler_lease_claim(name="embedded-beat", holder="gone:1:dead", seconds=1.0)  # never renewed
    assert died
    standby = scheduler({"sweep": {"task": "sweep", "schedule": 0.1}}, heartbeat=0.2, lease=0.6)
    time.sleep(0.5)
    assert not standby.holding and standby.runs["sweep"] == 0  # the dead holder's lease still runs
    assert wait_until(lambda: standby.holding and standby.runs["sweep"] >= 1, seconds=10)
    assert SchedulerLease.objects.get(name="embedded-beat").holder == standby.holder


@pytest.mark.django_db(transaction=True)
def test_a_scheduler_that_cannot_reach_its_lease_runs_nothing(scheduler, monkeypatch):
    calls = counting(monkeypatch)

    def away(**kwargs):
        raise OperationalError("the database went away")

    monkeypatch.setattr(embedded, "scheduler_lease_claim", away)
    thread = scheduler({"sweep": {"task": "sweep", "schedule": 0.1}}, heartbeat=0.1, lease=0.3)
    time.sleep(0.6)
    assert thread.is_alive() and not thread.holding and calls == []


def test_it_refuses_a_heartbeat_not_shorter_than_the_lease():
    with pytest.raises(ValueError, match="heartbeat"):
        EmbeddedScheduler({}, heartbeat=30, lease=30)

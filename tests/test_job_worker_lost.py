"""A worker killed mid-job, with real workers: the job's lease expires, the reaper queues it again
(once) or fails it with the reason, and a new worker ends it; it never stays "running".

The workers are the test's own (``celery worker -P solo`` subprocesses on a queue of their own, with a
5 s lease), never CI's shared worker, which is left alone. Runs only where a broker and a worker are
expected (CELERY_WORKER_RUNNING=1, CI's PostgreSQL stage) and on PostgreSQL (the workers must see
the test's rows: a database of its own, not SQLite's in-memory one).
"""

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from analysis.models import AnalysisRun
from config.celery import app
from studies.services import preset_load, researcher_create, study_create

MAX_ATTEMPTS = AnalysisRun.max_attempts
ROOT = Path(__file__).resolve().parent.parent
LEASE = 5  # seconds: the workers' JOB_LEASE_SECONDS
BOUND = 90  # seconds from the kill to a finished job, at most

pytestmark = [
    pytest.mark.celery_worker,
    pytest.mark.skipif(
        os.environ.get("CELERY_WORKER_RUNNING") != "1",
        reason="needs a broker on CELERY_BROKER_URL (set CELERY_WORKER_RUNNING=1; CI's PostgreSQL stage does)",
    ),
]


def database_url() -> str:
    s = connection.settings_dict
    auth = quote(s["USER"] or "") + (":" + quote(s["PASSWORD"]) if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Worker:
    """``celery worker -P solo`` on the test's own queue and the test database, its log in a file."""

    def __init__(self, tmp_path: Path, queue: str, name: str):
        self.log = tmp_path / f"worker-{name}.log"
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "DATABASE_CONN_MAX_AGE": "0",
            "CELERY_TASK_DEFAULT_QUEUE": queue,
            "JOB_LEASE_SECONDS": str(LEASE),
            "JOB_HEARTBEAT_SECONDS": "1",
            "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings_test"),
        }
        command = [
            sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "--concurrency", "1",
            "-Q", queue, "-n", f"{queue}-{name}@%h", "-I", "tests.workers.slow_job",
            "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "info",
        ]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        self._wait_ready()

    def _wait_ready(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if "ready." in self.log.read_text(errors="replace"):
                return
            if self.process.poll() is not None:
                pytest.fail(f"the worker exited at startup:\n{self.log.read_text(errors='replace')}")
            time.sleep(0.2)
        self.stop()
        pytest.fail(f"the worker was not ready after {seconds:.0f} s:\n{self.log.read_text(errors='replace')}")

    def kill(self) -> None:
        """What an out-of-memory killer or a lost machine does: no warm shutdown, no message given back."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def wait_for(run: AnalysisRun, done, seconds: float, poke=None) -> AnalysisRun:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if done(run):
            return run
        if poke:
            poke()
        time.sleep(1)
    return run


@pytest.fixture
def queue():
    name = f"tessera-test-{uuid.uuid4().hex[:10]}"
    yield name
    forget(name)


def forget(queue: str) -> None:
    """Nothing left behind on the shared broker: the queue, and (Redis) the killed worker's
    unacknowledged message, which Redis would otherwise give back to this queue an hour later."""
    with app.connection_for_write() as conn:
        channel = conn.default_channel
        channel.queue_delete(queue)
        client = getattr(channel, "client", None)
        if client is None or not hasattr(channel, "unacked_key"):
            return
        for tag, payload in client.hgetall(channel.unacked_key).items():
            if json.loads(payload)[-1] == queue:  # (message, exchange, routing key)
                client.hdel(channel.unacked_key, tag)
                client.zrem(channel.unacked_index_key, tag)
        client.delete(f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")


@pytest.mark.parametrize(
    ("earlier_attempts", "ends"),
    [(0, "done"), (MAX_ATTEMPTS - 1, "failed")],
    ids=["queued-again-and-done", "failed-on-its-last-attempt"],
)
def test_a_job_whose_worker_is_killed_mid_job_never_stays_running(
    transactional_db, tmp_path, queue, earlier_attempts, ends
):
    if connection.vendor != "postgresql":
        pytest.skip("the test's workers need the test database on PostgreSQL")
    owner = researcher_create(username="killed-worker", password="pass-for-tests-1")
    study = study_create(owner=owner, name="Killed worker", protocol=preset_load("culturalframes-rating"))
    run = AnalysisRun.objects.create(study=study, requested_by=owner, attempt=earlier_attempts)

    first = Worker(tmp_path, queue, "first")
    second = None
    try:
        app.send_task("tests.workers.slow_analysis", args=[run.pk, 600], queue=queue)
        run = wait_for(run, lambda r: r.status == "running" and r.progress > 0, 60)
        assert run.status == "running", f"the first worker never ran the job:\n{first.log.read_text()}"
        first.kill()

        second = Worker(tmp_path, queue, "second")
        killed = time.monotonic()
        # Celery beat would send the reaper every minute; the test sends it every second to its worker.
        run = wait_for(
            run, lambda r: not r.is_active, BOUND,
            poke=lambda: app.send_task("jobs.tasks.jobs_reap_task", queue=queue),
        )
        took = time.monotonic() - killed
    finally:
        first.stop()
        if second:
            second.stop()

    assert not run.is_active, f"still {run.status} {BOUND} s after its worker was killed:\n{second.log.read_text()}"
    assert run.status == ends, run.error
    assert run.attempt == MAX_ATTEMPTS
    if ends == "done":
        assert run.result and "slow" not in run.result  # the real analysis ran it again, to the end
    else:
        assert run.error.startswith("The worker running it stopped (lost at ") and run.error.endswith(
            "start it again."
        )
    assert took < BOUND

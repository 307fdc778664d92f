"""The Celery app: no broker runs jobs in-process; a broker that cannot be reached is an error.

Each case runs in a fresh interpreter because the broker is chosen when settings load.
"""

import json
from pathlib import Path

from tests.helpers import start_django

# Port 1 on the loopback: nothing listens there, so connecting is refused at once.
UNREACHABLE_BROKER = "redis://127.0.0.1:1/0"


def run_with_celery(tmp_path: Path, code: str, **env: str) -> dict:
    """Run ``code`` after setup with the production settings (the configuration that ships)."""
    result = start_django(tmp_path, "import time\nfrom config.celery import app\n" + code,
                          SECRET_KEY="tests-only-not-secret", **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_an_unreachable_broker_is_an_error_not_a_fallback(tmp_path):
    outcome = run_with_celery(
        tmp_path,
        """
import kombu.exceptions
started = time.monotonic()
try:
    app.send_task("tessera.nothing")
except Exception as exc:
    outcome = {
        "raised": type(exc).__name__,
        "operational": isinstance(exc, kombu.exceptions.OperationalError),
        "message": str(exc),
    }
else:
    outcome = {"raised": None}
outcome["seconds"] = time.monotonic() - started
print(json.dumps(outcome))
""",
        CELERY_BROKER_URL=UNREACHABLE_BROKER,
    )

    assert outcome["raised"] is not None, "publishing to an unreachable broker must fail"
    assert outcome["operational"], outcome
    assert outcome["seconds"] < 15, outcome


def test_an_unreachable_broker_does_not_fall_back_to_running_the_task(tmp_path):
    outcome = run_with_celery(
        tmp_path,
        """
ran = []

@app.task(name="tessera.tests.record")
def record():
    ran.append(True)

try:
    record.delay()
except Exception as exc:
    raised = type(exc).__name__
else:
    raised = None
print(json.dumps({"raised": raised, "ran": bool(ran)}))
""",
        CELERY_BROKER_URL=UNREACHABLE_BROKER,
    )

    assert outcome["raised"] is not None
    assert outcome["ran"] is False


def test_without_a_broker_a_task_runs_in_process(tmp_path):
    outcome = run_with_celery(
        tmp_path,
        """
@app.task(name="tessera.tests.add")
def add(x, y):
    return x + y

print(json.dumps({"result": add.delay(2, 3).get(timeout=5)}))
""",
    )

    assert outcome == {"result": 5}


def test_the_shipped_configuration_suits_long_jobs_and_lost_workers(tmp_path):
    outcome = run_with_celery(
        tmp_path,
        """
import django
django.setup()
from django.conf import settings
from analysis.tasks import analysis_run_task
from studies.tasks import import_run_task
from exports.tasks import export_build_task
from recruitment.tasks import prolific_job_task
print(json.dumps({
    "acks_late": app.conf.task_acks_late,
    "prefetch": app.conf.worker_prefetch_multiplier,
    "queue": app.conf.task_default_queue,
    "given_back": [t.reject_on_worker_lost for t in (analysis_run_task, import_run_task, export_build_task,
                                                     prolific_job_task)],
    "prolific_late": prolific_job_task.acks_late,
    "beat": sorted(e["task"] for e in app.conf.beat_schedule.values()),
    "lease": [settings.JOB_LEASE_SECONDS, settings.JOB_HEARTBEAT_SECONDS],
}))
""",
    )

    assert outcome["acks_late"] is True and outcome["prefetch"] == 1 and outcome["queue"] == "celery"
    assert outcome["given_back"] == [True, True, True, True] and outcome["prolific_late"] is True
    reapers = [t for t in outcome["beat"] if "reap" in t]
    assert reapers == ["jobs.tasks.jobs_reap_task"], "one reaper for every kind of job"
    assert outcome["lease"] == [300, 30]


def test_a_heartbeat_not_shorter_than_the_lease_is_refused(tmp_path):
    result = start_django(tmp_path, "", SECRET_KEY="tests-only-not-secret", JOB_LEASE_SECONDS="10",
                          JOB_HEARTBEAT_SECONDS="10")

    assert result.returncode != 0
    assert "JOB_HEARTBEAT_SECONDS must be positive and shorter than JOB_LEASE_SECONDS" in result.stderr

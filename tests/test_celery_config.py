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

"""The embedded mode's periodic work. With no broker (``CELERY_BROKER_URL`` unset: ``make demo``, a
single-process trial) there is no Celery beat, yet the platform still needs what beat sends: lapsed
leases expired, lost jobs queued again or failed, entries let in unverified checked again, Prolific's
submissions and places kept in step. ``EmbeddedScheduler`` is a daemon thread of the serving process
that runs every entry of ``CELERY_BEAT_SCHEDULE`` (the one source of truth for what runs and how
often) in-process, each at its own period, each in its own try/except (a failing task is logged and
tried again at its next period), closing its database connections after each run.

It is started by ``config.wsgi`` (``runserver`` serves through it, in the autoreloader's child only,
and so does gunicorn) when no broker is configured and ``TESSERA_EMBEDDED_SCHEDULER`` is not ``0``;
never by a management command or a test. With a broker, beat does this work and nothing starts here.
Several processes each running it is harmless: every task claims its rows with conditional updates.
A job whose process died is taken for lost when its lease runs out (``JOB_LEASE_SECONDS``) and is
queued again (run here, in-process) or failed at the next run of the reaper: within
``JOB_LEASE_SECONDS`` + 60 s, 6 minutes by default.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)

_started: EmbeddedScheduler | None = None
_lock = threading.Lock()


def enabled() -> bool:
    return not settings.CELERY_BROKER_URL and getattr(settings, "TESSERA_EMBEDDED_SCHEDULER", True)


def task_runner(name: str) -> Callable[[], Any]:
    """The beat entry's task, run in this process (the task object called, as a worker would)."""
    from config.celery import app

    task = app.tasks[name]
    return lambda: task.apply(throw=True)


class EmbeddedScheduler(threading.Thread):
    def __init__(self, schedule: Mapping[str, Mapping[str, Any]], *, tick: float = 1.0):
        super().__init__(name="tessera-embedded-scheduler", daemon=True)
        self.entries = [(name, str(e["task"]), float(e["schedule"])) for name, e in schedule.items()]
        self.tick = tick
        self.stopping = threading.Event()
        self.runs: dict[str, int] = {name: 0 for name, _, _ in self.entries}  # how often each ran

    def run(self) -> None:
        from config.celery import app

        app.loader.import_default_modules()  # the apps' tasks modules, once, as a worker imports them
        due = {name: time.monotonic() for name, _, _ in self.entries}  # each runs once at start
        log.info("embedded scheduler started: %s", ", ".join(f"{n} every {p:g}s" for n, _, p in self.entries))
        while not self.stopping.is_set():
            for name, task, period in self.entries:
                if self.stopping.is_set() or time.monotonic() < due[name]:
                    continue
                due[name] = time.monotonic() + period
                self.run_one(name, task)
            self.stopping.wait(self.tick)

    def run_one(self, name: str, task: str) -> None:
        try:
            task_runner(task)()
        except Exception:  # a failing task must not stop the others: logged, tried again later
            log.exception("embedded scheduler: %s (%s) failed", name, task)
        finally:
            self.runs[name] += 1
            close_old_connections()

    def stop(self) -> None:
        self.stopping.set()


def scheduler_start() -> EmbeddedScheduler | None:
    """Start this process's scheduler once, when the embedded mode needs one; returns it (or None)."""
    global _started
    if not enabled():
        return None
    with _lock:
        if _started is None or not _started.is_alive():
            _started = EmbeddedScheduler(settings.CELERY_BEAT_SCHEDULE)
            _started.start()
    return _started

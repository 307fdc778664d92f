"""The embedded mode's periodic work. With no broker (``CELERY_BROKER_URL`` unset: ``make demo``, a
single-process trial, or several web nodes sharing a database without Redis) there is no Celery beat,
yet the platform still needs what beat sends: lapsed leases expired, lost jobs queued again or failed,
entries let in unverified checked again, Prolific's submissions and places kept in step.
``EmbeddedScheduler`` is a daemon thread of the serving process that runs every entry of
``CELERY_BEAT_SCHEDULE`` (the one source of truth for what runs and how often) in-process, each at its
own period, each in its own try/except (a failing task is logged and tried again at its next period),
closing its database connections after each run.

One runner at a time, across every process and node that shares the database: each scheduler thread
(one per gunicorn worker) tries to hold the ``SchedulerLease`` row "embedded-beat" (``jobs.scheduler_lease``:
a conditional UPDATE, on the database's clock) every ``heartbeat`` (10 s) for ``lease`` seconds (30 s,
three heartbeats). The holder runs the entries and renews at every heartbeat, and before an entry once
a heartbeat has passed; the others stand by and claim at each heartbeat, so one takes over within
``lease`` + ``heartbeat`` seconds of a holder that died (at once when it stopped cleanly: ``stop``
gives the lease back). A new holder runs every entry once when it takes over, then each at its period.
A holder that cannot reach the database stops running entries until it holds the lease again. (A task
running past the lease could overlap a new holder's first runs: harmless, every task claims its rows
with conditional updates.)

It is started by ``config.wsgi`` (``runserver`` serves through it, in the autoreloader's child only,
and so does gunicorn) when no broker is configured and ``TESSERA_EMBEDDED_SCHEDULER`` is not ``0``;
never by a management command or a test. With a broker, beat does this work and nothing starts here.
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

from jobs.scheduler_lease import holder_name, scheduler_lease_claim, scheduler_lease_release

log = logging.getLogger(__name__)

LEASE_NAME = "embedded-beat"
HEARTBEAT_SECONDS = 10.0  # the lease is claimed or renewed this often
LEASE_SECONDS = 30.0  # three heartbeats: a holder that died is replaced within 40 s

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
    def __init__(self, schedule: Mapping[str, Mapping[str, Any]], *, tick: float = 1.0,
                 heartbeat: float = HEARTBEAT_SECONDS, lease: float = LEASE_SECONDS, name: str = LEASE_NAME):
        super().__init__(name="tessera-embedded-scheduler", daemon=True)
        if not 0 < heartbeat < lease:
            raise ValueError("the heartbeat must be positive and shorter than the lease")
        self.entries = [(name, str(e["task"]), float(e["schedule"])) for name, e in schedule.items()]
        self.tick, self.heartbeat, self.lease, self.lease_name = tick, heartbeat, lease, name
        self.holder = holder_name()
        self.holding = False
        self.stopping = threading.Event()
        self.runs: dict[str, int] = {name: 0 for name, _, _ in self.entries}  # how often each ran

    def run(self) -> None:
        from config.celery import app

        app.loader.import_default_modules()  # the apps' tasks modules, once, as a worker imports them
        log.info("embedded scheduler %s standing by: %s", self.holder,
                 ", ".join(f"{n} every {p:g}s" for n, _, p in self.entries))
        due: dict[str, float] = {}
        renew_at = 0.0
        try:
            while not self.stopping.is_set():
                if time.monotonic() >= renew_at:
                    was = self.holding
                    self.holding, renew_at = self.claim(), time.monotonic() + self.heartbeat
                    if self.holding and not was:  # taken over: every entry runs once now
                        due = {name: time.monotonic() for name, _, _ in self.entries}
                for name, task, period in self.entries if self.holding else ():
                    if self.stopping.is_set() or time.monotonic() < due[name]:
                        continue
                    if time.monotonic() >= renew_at:  # a long run before: renew before the next
                        self.holding, renew_at = self.claim(), time.monotonic() + self.heartbeat
                        if not self.holding:
                            break
                    due[name] = time.monotonic() + period
                    self.run_one(name, task)
                self.stopping.wait(self.tick)
        finally:
            self.release()

    def claim(self) -> bool:
        """Hold the lease (claimed or renewed); False while another holds it or the database is away."""
        try:
            held = scheduler_lease_claim(name=self.lease_name, holder=self.holder, seconds=self.lease)
        except Exception as exc:  # noqa: BLE001 - no database now: stand by, try again at the next heartbeat
            if self.holding:
                log.warning("embedded scheduler %s cannot renew its lease (%s): standing by", self.holder, exc)
            held = False
        finally:
            close_old_connections()
        if held != self.holding:
            log.info("embedded scheduler %s %s", self.holder, "runs the entries" if held else "stands by")
        return held

    def release(self) -> None:
        if not self.holding:
            return
        try:
            scheduler_lease_release(name=self.lease_name, holder=self.holder)
        except Exception:  # noqa: BLE001 - the lease then lapses by itself
            log.warning("embedded scheduler %s could not give its lease back", self.holder)
        finally:
            self.holding = False
            close_old_connections()

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

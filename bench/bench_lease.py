#!/usr/bin/env python
"""Benchmark the hot path: many annotators leasing and submitting items at once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench python bench/bench_lease.py --threads 16

Builds a study with one pool of --items items (each wanting 3 annotations) and --annotators
annotators of one session each, then runs them in --threads threads: every thread takes the
next annotator and leases + submits items until their session ends. Prints the throughput and
the latency (p50/p95/max) of a lease and of a submit, and checks afterwards that no item was
filled beyond its quota and no annotator saw an item twice. Without DATABASE_URL it uses a
temporary SQLite file (writers then queue on the database lock).
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = {"alignment": ["1"], "stereotype": ["no"], "quality": ["1"], "overall": ["4"]}


def setup_django(tmp: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_test"
    os.environ.pop("CELERY_BROKER_URL", None)
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def build(n_items: int, n_annotators: int, per_session: int):
    from django.contrib.auth import get_user_model

    from annotation.models import Annotator, Session
    from studies.models import CountryPool, Item, ItemQuota
    from studies.services import preset_load, study_create

    user, _ = get_user_model().objects.get_or_create(username="bench-lease")
    study = study_create(
        owner=user, name="Lease benchmark", protocol=preset_load("culturalframes-rating"), status="open",
        items_per_session=per_session, code_completed="A", code_failed_mock="B", code_not_eligible="C",
        code_no_consent="D",
    )
    pool = CountryPool.objects.create(study=study, country="IN", country_name="India", annotations_per_item=3)
    items = Item.objects.bulk_create(
        Item(study=study, external_id=f"i{n}", country="IN", prompt="A family meal at a festival",
             image=f"bench/{n}.png", width=64, height=48, sha256=f"{n:064x}")
        for n in range(n_items)
    )
    ItemQuota.objects.bulk_create(ItemQuota(item=i, pool=pool, wanted=3) for i in items)
    annotators = Annotator.objects.bulk_create(
        Annotator(study=study, pool=pool, prolific_pid=f"p{n:023d}") for n in range(n_annotators)
    )
    sessions = Session.objects.bulk_create(
        Session(annotator=a, prolific_session_id=f"s{a.pk}", prolific_study_id="X", items_target=per_session)
        for a in annotators
    )
    return study, pool, sessions


def run(sessions, threads: int):
    from django.db import connection

    from annotation.models import Session
    from annotation.services import annotation_submit, assignment_next

    todo: queue.Queue = queue.Queue()
    for s in sessions:
        todo.put(s.pk)
    lease_ms: list[float] = []
    submit_ms: list[float] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker():
        mine_lease, mine_submit = [], []
        try:
            while True:
                try:
                    pk = todo.get_nowait()
                except queue.Empty:
                    break
                session = Session.objects.select_related("annotator__study", "annotator__pool").get(pk=pk)
                while True:
                    t0 = time.perf_counter()
                    a = assignment_next(session=session)
                    mine_lease.append((time.perf_counter() - t0) * 1000)
                    if a is None:
                        break
                    t0 = time.perf_counter()
                    annotation_submit(assignment=a, data=ANSWERS)
                    mine_submit.append((time.perf_counter() - t0) * 1000)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()
            with lock:
                lease_ms.extend(mine_lease)
                submit_ms.extend(mine_submit)

    started = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return time.perf_counter() - started, lease_ms, submit_ms, errors


def check(study, pool) -> list[str]:
    from django.db.models import Count, F

    from annotation.models import Annotation
    from studies.models import ItemQuota

    problems = []
    if ItemQuota.objects.filter(pool=pool).filter(done__gt=F("wanted")).exists():
        problems.append("an item was filled beyond its quota")
    twice = Annotation.objects.filter(study=study).values("item", "annotator").annotate(n=Count("id")).filter(n__gt=1)
    if twice.exists():
        problems.append("an annotator annotated an item twice")
    counted = sum(ItemQuota.objects.filter(pool=pool).values_list("done", flat=True))
    stored = Annotation.objects.filter(study=study, surplus=False).count()
    if counted != stored:
        problems.append(f"quota counts {counted} annotations, {stored} are stored")
    return problems


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[int(p) - 1] if len(values) > 1 else (values or [0])[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--annotators", type=int, default=400)
    parser.add_argument("--per-session", type=int, default=5)
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(tmp)
        from django.db import connection

        from studies.services import study_delete

        study, pool, sessions = build(args.items, args.annotators, args.per_session)
        try:
            seconds, lease_ms, submit_ms, errors = run(sessions, args.threads)
            problems = check(study, pool) + [repr(e) for e in errors[:3]]
        finally:
            study_delete(study=study)
        print(
            f"database: {connection.vendor}; {args.items} items x 3, {args.annotators} annotators, "
            f"{args.threads} threads"
        )
        print(f"submitted {len(submit_ms)} annotations in {seconds:.2f} s: {len(submit_ms) / seconds:.0f} per second")
        for name, values in (("lease", lease_ms), ("submit", submit_ms)):
            print(f"{name:>6}: p50 {pct(values, 50):6.1f} ms  p95 {pct(values, 95):6.1f} ms  max {max(values):6.1f} ms")
        print("invariants: " + ("ok" if not problems else "; ".join(problems)))
        return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())

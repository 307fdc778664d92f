#!/usr/bin/env python
"""Benchmark the annotator's hot path over HTTP: gunicorn, real pages, K annotators at once.

    createdb -h 127.0.0.1 -U postgres bench_hotpath
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_hotpath \\
        .venv/bin/python bench/bench_hotpath.py --db postgres --items 10000 --annotators 1 8 32 --seconds 15
    .venv/bin/python bench/bench_hotpath.py --db sqlite --items 10000 --annotators 1 8 32 --seconds 15
    DATABASE_URL=... .venv/bin/python bench/bench_hotpath.py --db postgres --items 100000 --stored 1000000 \\
        --annotators 32 --keep          # --keep: the next run with the same sizes reuses the study
    DATABASE_URL=... .venv/bin/python bench/bench_hotpath.py --db postgres --items 10000 \\
        --surge 500 --over 120 --think 8  # open loop: 500 new participants over 2 minutes (bench/surge.py)
    DATABASE_URL=... .venv/bin/python bench/bench_hotpath.py --db postgres --nodes 2 --workers 2 \\
        [--surge 500 --over 120 --think 8 | --annotators 8 32] [--broker redis://127.0.0.1:6379/15]

Builds a CulturalFrames rating study (preset culturalframes-rating, one pool, --items items each
wanting 3 annotations, no practice test; --stored M adds M submitted annotations by other
annotators on ceil(M/3) extra, full items, in bulk; on PostgreSQL the tables are ANALYZEd), starts
gunicorn (DEBUG=0, WhiteNoise, a free loopback port) and runs --annotators K browsers in threads.
A browser does what the annotator's browser does: the entry link with new Prolific ids (cookies
kept, redirects followed), the static files of the first page, consent, eligibility, instructions,
then cycles of the item page (full page once; afterwards the htmx submit's response is the next
item's fragment), its image, and the htmx submit of a complete valid answer built from the form;
at the end of a session (HX-Redirect) the end page, and a new participant. A cycle is one item
submitted. Each K runs --ramp seconds (annotators start at random moments in it), then --seconds
are measured: what ends inside that window counts.

Prints per K: cycles/s, p50/p95/p99 of each request kind, CPU per cycle (from /proc) of gunicorn's
master and workers, of the PostgreSQL server, of this generator and of everything else, errors
(any status >= 400 or transport error; "database is locked" and worker timeouts in gunicorn's
log), a CPU speed probe (this VM's speed varies); the SQL queries per request of one extra
single-annotator pass run in-process through Django's test client with CaptureQueriesContext; the
invariants afterwards, and the load average. Defaults: 5 sync workers (2 x cores + 1: 2 to 5
workers, sync or gthread, measured the same within the noise on 2 cores), CONN_MAX_AGE 60 as in
docker-compose.yml.

--surge N --over S --think T replaces the closed loop with an open one (bench/surge.py has the
details): N new participants arrive over S seconds (Poisson arrivals, seeded by --seed), each a new
browser in its own thread doing the onboarding and one session, reading every page it submits for
a lognormal think time of mean T; it prints each request kind's latency, items/s, the peak number of
participants in flight, who finished, CPU per item, errors, the invariants and a verdict against
the launch target (p95 <= 150 ms for the item page and the submit, 0 errors, 0 over-assigned).
--nodes M (>= 2) serves either mode from M gunicorns of --workers each behind a reverse proxy
(bench/cluster.py), sharing Redis (--broker, their CELERY_BROKER_URL), TRUSTED_PROXY_COUNT=1;
gunicorn's CPU is then the sum over the nodes, the proxy's apart. The exit code is 1 when an
invariant fails.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

from browser import Browser, DjangoTransport, HttpTransport  # bench/browser.py (this folder is on the path)
from measure import Served, counters, family, log_errors, log_offsets, pct, postmaster, probe, workers
from serving import production_django  # bench/serving.py
from surge import report_surge, run_surge  # bench/surge.py

ROOT = Path(__file__).resolve().parent.parent
PROMPT = "a family sharing a festive meal under lanterns at dusk in the old town square"
TEXT = "The lanterns and the festive food of the prompt are missing from this picture."
BATCH = 10_000  # extra items built per batch (--stored): the build's memory stays flat
MAIN = ("item page", "submit", "image")
TX = {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK"}


# --- setup -------------------------------------------------------------------------------------

def configure(args, tmp: str) -> dict:
    """The environment of the server and of this process's Django (the same settings)."""
    if args.db == "postgres" and not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("--db postgres needs DATABASE_URL=postgres://…")
    database_url = os.environ["DATABASE_URL"] if args.db == "postgres" else f"sqlite:///{tmp}/bench.sqlite3"
    return production_django(tmp, database_url=database_url, DATABASE_CONN_MAX_AGE=str(args.conn_max_age))


def write_images(media: str, n: int = 16) -> None:
    """n JPEG images of 512x512 (smooth colour blobs and noise, about 40 KB each)."""
    from PIL import Image, ImageFilter

    rng = random.Random(1)
    os.makedirs(f"{media}/bench", exist_ok=True)
    for k in range(n):
        small = Image.new("RGB", (8, 8))
        small.putdata([tuple(rng.randrange(256) for _ in range(3)) for _ in range(64)])
        noise = Image.effect_noise((512, 512), 24).convert("RGB")
        img = Image.blend(small.resize((512, 512), Image.BICUBIC), noise, 0.15).filter(ImageFilter.SMOOTH)
        img.save(f"{media}/bench/{k}.jpg", quality=85)


def build(n_items: int, stored: int, keep: bool):
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from studies.models import CountryPool, Item, ItemQuota, Study
    from studies.services import preset_load, study_create

    name = f"Hot path benchmark: {n_items} items, {stored} stored"
    study = Study.objects.filter(name=name).first() if keep else None
    if study is not None:
        print(f"reusing the study {study.pk} ({name})")
        return study, study.pools.get()
    t0 = time.perf_counter()
    user, _ = get_user_model().objects.get_or_create(username="bench-hotpath")
    study = study_create(
        owner=user, name=name, protocol=preset_load("culturalframes-rating"), status="open", items_per_session=5,
        code_completed="A", code_failed_mock="B", code_not_eligible="C", code_no_consent="D",
    )
    pool = CountryPool.objects.create(study=study, country="IN", country_name="India", annotations_per_item=3)
    for first in range(0, n_items, BATCH):
        with transaction.atomic():
            items = Item.objects.bulk_create(
                [Item(study=study, external_id=f"i{n}", country="IN", prompt=PROMPT, image=f"bench/{n % 16}.jpg",
                      width=512, height=512, sha256=f"{n:064x}") for n in range(first, min(n_items, first + BATCH))],
                batch_size=2000,
            )
            ItemQuota.objects.bulk_create([ItemQuota(item=i, pool=pool, wanted=3) for i in items], batch_size=2000)
    if stored:
        _store(study, pool, n_items, stored)
    print(f"built {n_items} items and {stored} stored annotations in {time.perf_counter() - t0:.0f} s")
    return study, pool


def _store(study, pool, first_n: int, stored: int) -> None:
    """`stored` submitted annotations of other annotators (25 each, in sessions of 5) on full items."""
    from datetime import timedelta

    from django.db import transaction
    from django.utils import timezone

    from annotation.models import Annotation, Annotator, Assignment, Session
    from studies.models import Item, ItemQuota

    now = timezone.now()
    n_annotators = max(3, -(-stored // 25))
    annotators = [a.pk for a in Annotator.objects.bulk_create(
        [Annotator(study=study, pool=pool, prolific_pid=f"S{k:023d}", consented_at=now, eligible_at=now,
                   instructions_read_at=now) for k in range(n_annotators)], batch_size=5000)]
    sessions = [s.pk for s in Session.objects.bulk_create(
        [Session(annotator_id=a, prolific_session_id=f"s{j}", prolific_study_id="BENCH", items_target=5,
                 completed_at=now) for a in annotators for j in range(5)], batch_size=5000)]
    taken = [0] * n_annotators
    answers = [{"alignment": 1, "stereotype": "no", "quality": q, "overall": o} for q in (0.5, 1) for o in (3, 4, 5)]
    n_extra = -(-stored // 3)
    for first in range(0, n_extra, BATCH):
        batch = range(first, min(n_extra, first + BATCH))
        with transaction.atomic():
            items = Item.objects.bulk_create(
                [Item(study=study, external_id=f"x{n}", country="IN", prompt=PROMPT, image=f"bench/{n % 16}.jpg",
                      width=512, height=512, sha256=f"{first_n + n:064x}") for n in batch], batch_size=5000)
            rows = []
            for n, item in zip(batch, items, strict=True):
                for r in range(min(3, stored - 3 * n)):
                    a = (3 * n + r) % n_annotators  # an item's 3 slots go to 3 different annotators
                    rows.append((a, item.pk, sessions[5 * a + taken[a] // 5 % 5], taken[a] % 5 + 1))
                    taken[a] += 1
            ItemQuota.objects.bulk_create(
                [ItemQuota(item=i, pool=pool, wanted=3, done=min(3, stored - 3 * n)) for n, i in zip(batch, items)],
                batch_size=5000)
            assignments = Assignment.objects.bulk_create(
                [Assignment(session_id=s, annotator_id=annotators[a], item_id=i, pool=pool, position=p,
                            status="submitted", leased_at=now, expires_at=now + timedelta(minutes=30))
                 for a, i, s, p in rows], batch_size=5000)
            Annotation.objects.bulk_create(
                [Annotation(assignment_id=asg.pk, study=study, item_id=asg.item_id, pool=pool,
                            annotator_id=asg.annotator_id, answers=answers[asg.pk % len(answers)],
                            protocol_version=1, time_spent_ms=40_000, started_at=now) for asg in assignments],
                batch_size=5000)
        print(f"  stored {min(stored, 3 * batch[-1] + 3)} of {stored} annotations", end="\r", flush=True)
    print()


# --- serving and measuring --------------------------------------------------------------------------

def start_gunicorn(env: dict, args, log_path: str):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
               "--workers", str(args.workers), "--worker-class", args.worker_class, "--threads", str(args.threads)]
    server = subprocess.Popen(command, env=env, cwd=ROOT, stdout=open(log_path, "ab"), stderr=subprocess.STDOUT)
    from urllib.request import urlopen

    for _ in range(300):
        try:
            with urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as r:
                if r.status == 200:
                    return server, f"http://127.0.0.1:{port}"
        except OSError:  # refused, reset or timed out (URLError is one): not up yet, or a busy machine
            time.sleep(0.1)
    server.kill()
    raise SystemExit(f"gunicorn did not start; see {log_path}")


def serve(env: dict, args, log_dir: str):
    """One gunicorn, or with --nodes M (>= 2) M gunicorns (--workers each) behind a reverse proxy
    (bench/cluster.py, imported only then), the nodes sharing Redis: returns (Served, stop)."""
    os.makedirs(log_dir, exist_ok=True)
    if args.nodes < 2:
        server, base = start_gunicorn(env, args, f"{log_dir}/gunicorn.log")

        def stop():
            server.terminate()
            server.wait(timeout=30)
        return Served(base, [server.pid], None, log_dir), stop
    from cluster import start_cluster  # bench/cluster.py

    node_env = {**env, "TRUSTED_PROXY_COUNT": "1", "CELERY_BROKER_URL": args.broker}
    cluster = start_cluster(node_env, nodes=args.nodes, workers=args.workers, worker_class=args.worker_class,
                            threads=args.threads, log_dir=log_dir, proxy=args.proxy)
    return Served(cluster.base, list(cluster.masters), cluster.proxy.pid, log_dir), cluster.stop


def run_load(served: Served, entry: str, k: int, ramp: float, seconds: float, pg: int | None) -> dict:
    """K annotators for ramp + seconds; what ends inside the last `seconds` (the window) is measured."""
    speed = probe()
    start = time.monotonic()
    window = (start + ramp, start + ramp + seconds)
    browsers = [Browser(HttpTransport(served.base), entry, served.base, random.Random(n), window[1])
                for n in range(k)]
    threads = [threading.Thread(target=b.run, args=(ramp,), daemon=True) for b in browsers]
    log_from, pids = log_offsets(served.log_dir), workers(served)
    for t in threads:
        t.start()
    time.sleep(max(0.0, window[0] - time.monotonic()))
    pg_pids = family(pg) if pg else []
    before = counters(served, pg, pg_pids)
    time.sleep(max(0.0, window[1] - time.monotonic()))
    pg_pids += [p for p in (family(pg) if pg else []) if p not in pg_pids]  # backends opened meanwhile
    used = {name: value - before[name] for name, value in counters(served, pg, pg_pids).items()}
    for t in threads:
        t.join(timeout=120)
    errors = sum((b.errors for b in browsers), Counter())  # over the ramp and the window
    errors += log_errors(served.log_dir, log_from)
    if workers(served) != pids:
        errors["gunicorn workers replaced"] = 1
    if any(t.is_alive() for t in threads):
        errors["annotators stuck after the time box"] = sum(t.is_alive() for t in threads)
    latencies, cycles = defaultdict(list), Counter()
    for n, b in enumerate(browsers):
        for kind, ms, status, _, end in b.log:
            if window[0] <= end <= window[1]:
                latencies[kind].append(ms)
                cycles[n] += kind == "submit" and status in (200, 204)
    total = max(sum(cycles.values()), 1)
    used["other"] = used["machine"] - used["server"] - used["proxy"] - used["pg"] - used["own"]
    return {
        "k": k, "probe": speed, "cycles": sum(cycles.values()), "seconds": seconds,
        "sessions": len(latencies["item page"]),
        "idle": k - sum(1 for c in cycles.values() if c), "latencies": latencies, "errors": errors,
        "requests": sum(map(len, latencies.values())), "own": used["own"] / seconds,
        **{f"{name}_ms": 1000 * used[name] / total for name in ("server", "proxy", "pg", "own", "other")},
    }


def sql_pass(entry: str) -> dict:
    """One annotator, two sessions, in-process: the queries of every request by kind."""
    browser = Browser(DjangoTransport(), entry, "http://127.0.0.1", random.Random(0), float("inf"))
    browser.session()  # warms up (first imports, templates); then two sessions are counted
    browser.log.clear()
    browser.session()
    browser.session()
    if browser.errors:
        print(f"in-process pass: errors {dict(browser.errors)}")
    by_kind = defaultdict(list)
    for kind, ms, _, queries, _ in browser.log:
        by_kind[kind].append((queries, ms))
    return by_kind


def shape(sql: str) -> str:
    prepared = re.match(r"(?:PREPARE (\w+?)_\d+ AS .*; )?EXECUTE (\w+?)_\d+\(", sql, re.S)
    if prepared:  # the hot path's prepared statements (annotation/compiled.py), by name
        return f"EXECUTE {prepared.group(2)}"
    verb = sql.split(None, 1)[0].upper()
    table = re.search(r'(?:FROM|UPDATE|INTO)\s+"?(\w+)"?', sql, re.I)
    return verb + (f" {table.group(1)}" if table else "") + (" FOR UPDATE" if "FOR UPDATE" in sql.upper() else "")


def autoanalyze():
    """What autovacuum would do for the surge, when it is off on this server (a shared development
    PostgreSQL may have it off): ANALYZE the tables the surge writes. Without it their statistics
    stay those of the empty tables ANALYZEd before the run, and PostgreSQL plans session_complete's
    `answered` query (annotation/services/leases.py, in a session's last submit) as a nested loop
    over every annotation: 5 s a query at 2,300 annotations, the 5 workers all waiting on it."""
    from django.db import connection

    from annotation.models import Annotation, Annotator, Assignment, Session
    from studies.models import ItemQuota

    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        on = cursor.fetchone()[0] == "on"
    if on:
        connection.close()
        return None
    tables = ", ".join(m._meta.db_table for m in (Annotation, Annotator, Assignment, Session, ItemQuota))

    def analyze():
        with connection.cursor() as cursor:  # the calling thread's own connection
            cursor.execute(f"ANALYZE {tables}")
        connection.close()
    connection.close()
    return analyze


def check(study, pool) -> list[str]:
    """The invariants, counted by GROUP BY once per table (no correlated subquery per item)."""
    from django.db.models import Count

    from annotation.models import Annotation, Assignment
    from studies.models import ItemQuota

    def per_item(qs) -> Counter:
        return Counter(dict(qs.filter(pool=pool).values_list("item_id").annotate(n=Count("id"))))

    rows = per_item(Annotation.objects.filter(surplus=False))
    leases = per_item(Assignment.objects.filter(status="leased"))
    quotas = list(ItemQuota.objects.filter(pool=pool).values_list("item_id", "wanted", "reopened", "done", "leased"))
    twice = Annotation.objects.filter(study=study).values("item", "annotator").annotate(n=Count("id")).filter(n__gt=1)
    problems = [f"{n} {what}" for n, what in (
        (sum(rows[i] > w + r for i, w, r, _, _ in quotas), "items have more non-surplus annotations than wanted"),
        (twice.count(), "(item, annotator) pairs are annotated twice"),
        (sum(rows[i] != d for i, _, _, d, _ in quotas), "quotas count done != their non-surplus annotations"),
        (sum(leases[i] != n for i, _, _, _, n in quotas), "quotas count leased != their live leases"),
    ) if n]
    print(f"checked {len(quotas)} quotas, {sum(rows.values())} annotations, {sum(leases.values())} live leases")
    return problems


# --- main ----------------------------------------------------------------------------------------

def report(args, vendor: str, results: list[dict], queries: dict, problems: list[str], load_start) -> None:
    print(f"\n{vendor}, {args.items} items x 3 (+{args.stored} stored annotations), {servers(args)}, "
          f"CONN_MAX_AGE {args.conn_max_age}, "
          f"{args.seconds:g} s measured per K after {args.ramp:g} s of ramp-up (and a {args.warmup:g} s warm-up), "
          f"{os.cpu_count()} cores\n")
    cpu = ["server", *(["proxy"] if args.nodes >= 2 else []), "pg", "own", "other"]
    heads = ["K", "cycles/s", *(f"{k} p50/p95/p99 ms" for k in MAIN), "CPU ms/cycle: gunicorn",
             *(["proxy"] if args.nodes >= 2 else []), "postgres",
             "generator", "other processes", "generator CPU", "cycles", "sessions", "requests", "errors",
             "probe ms"]
    print("| " + " | ".join(heads) + " |\n|" + "---|" * len(heads))
    for r in results:
        lat = [r["latencies"].get(k, []) for k in MAIN]
        cells = [r["k"], f"{r['cycles'] / r['seconds']:.1f}",
                 *("/".join(f"{pct(v, p):.0f}" for p in (50, 95, 99)) for v in lat),
                 *(f"{r[c + '_ms']:.0f}" for c in cpu),
                 f"{100 * r['own']:.0f}% of a core",
                 r["cycles"], r["sessions"], r["requests"], sum(r["errors"].values()), f"{r['probe']:.0f}"]
        print("| " + " | ".join(map(str, cells)) + " |")
    print("\n| K | request | n | p50 ms | p95 ms | p99 ms | max ms |\n|---|---|---|---|---|---|---|")
    for r in results:
        for kind, v in sorted(r["latencies"].items(), key=lambda kv: -len(kv[1])):
            cells = " | ".join(f"{pct(v, p):.1f}" for p in (50, 95, 99, 100))
            print(f"| {r['k']} | {kind} | {len(v)} | {cells} |")
    print("\n(CPU ms/cycle: gunicorn's master and workers, the PostgreSQL server's processes, this generator and "
          "everything else on the machine, over the window; probe ms: a fixed Python loop timed before the K, "
          "lower is a faster machine at that moment)")
    for r in results:
        if r["errors"] or r["idle"]:
            print(f"K={r['k']}: errors {dict(r['errors'])}; annotators without a cycle: {r['idle']}")
    print("\nSQL queries per request: one extra annotator, two sessions, in-process through Django's test client, "
          "counted with CaptureQueriesContext (ms: the request's wall time in-process, one at a time)\n\n"
          "| request | n | ms | queries (mean, min-max) | of which BEGIN/COMMIT/SAVEPOINT "
          "| most frequent (per request) |\n|---|---|---|---|---|---|")
    for kind, rows in sorted(queries.items(), key=lambda kv: -sum(len(q) for q, _ in kv[1]) / len(kv[1])):
        shapes = Counter(shape(sql) for q, _ in rows for sql in q)
        tx = sum(n for sh, n in shapes.items() if sh.split()[0] in TX) / len(rows)
        top = ", ".join(f"{sh} {n / len(rows):.1f}" for sh, n in shapes.most_common() if sh.split()[0] not in TX)
        n, ms = [len(q) for q, _ in rows], sum(ms for _, ms in rows) / len(rows)
        print(f"| {kind} | {len(n)} | {ms:.1f} | {sum(n) / len(n):.1f} ({min(n)}-{max(n)}) | {tx:.1f} | {top} |")
    print("\ninvariants: " + ("ok" if not problems else "; ".join(problems)))
    print(f"load average (1/5/15 min): start {'/'.join(f'{x:.2f}' for x in load_start)}, "
          f"end {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")


def servers(args) -> str:
    one = f"gunicorn {args.workers} {args.worker_class} workers x {args.threads} thread(s)"
    return one if args.nodes < 2 else f"{args.nodes} nodes of {one} behind a reverse proxy ({args.proxy})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["postgres", "sqlite"], default="sqlite")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--stored", type=int, default=0, help="submitted annotations stored beforehand")
    parser.add_argument("--annotators", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=20, help="per number of annotators")
    parser.add_argument("--warmup", type=float, default=5, help="seconds of load (2 annotators per worker) first")
    parser.add_argument("--ramp", type=float, default=10,
                        help="seconds each K runs before its measured window; the annotators start at random "
                        "moments in it, so that their sessions are out of step")
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--worker-class", default="sync", choices=["sync", "gthread"])
    parser.add_argument("--threads", type=int, default=1, help="threads per worker (gthread)")
    parser.add_argument("--conn-max-age", type=int, default=60, help="DATABASE_CONN_MAX_AGE (docker-compose: 60)")
    parser.add_argument("--keep", action="store_true", help="keep the study on PostgreSQL and reuse it next time")
    parser.add_argument("--surge", type=int, metavar="N", help="open loop: N new participants arrive instead of "
                        "--annotators K, each doing one session with think time (bench/surge.py)")
    parser.add_argument("--over", type=float, default=120, metavar="S", help="--surge: seconds the arrivals span")
    parser.add_argument("--think", type=float, default=8, metavar="T",
                        help="--surge: mean seconds a participant reads a page before submitting it")
    parser.add_argument("--seed", type=int, default=1, help="--surge: the arrivals' and think times' seed")
    parser.add_argument("--nodes", type=int, default=1, metavar="M",
                        help="M >= 2: M gunicorn nodes (--workers each) behind a reverse proxy (bench/cluster.py)")
    parser.add_argument("--proxy", default="auto", help="--nodes: the reverse proxy, as bench/cluster.py names it")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/15",
                        help="--nodes: CELERY_BROKER_URL of the nodes (Redis: their shared cache too)")
    args = parser.parse_args()
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="tessera-hotpath-") as tmp:
        env = configure(args, tmp)
        from django.db import connection

        from studies.services import study_delete

        write_images(env["MEDIA_ROOT"])
        study, pool = build(args.items, args.stored, args.keep)
        if args.surge and args.surge * study.items_per_session * 2 > args.items * 3:
            raise SystemExit(f"--surge {args.surge} needs more items than --items {args.items}: each wants 3 "
                             f"annotations, each participant {study.items_per_session}, and the items must not run out")
        if connection.vendor == "postgresql":  # planner statistics, as autovacuum keeps them (it may be off)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        entry = f"/join/{pool.entry_key}/"
        queries = {} if args.surge else sql_pass(entry)
        connection.close()
        served, stop = serve(env, args, f"{tmp}/logs")
        pg = postmaster() if args.db == "postgres" else None
        results = []
        try:
            if args.warmup:  # every worker's first requests (imports, templates, connection) are slow
                run_load(served, entry, 2 * args.workers * args.nodes, 0, args.warmup, pg)
            if args.surge:
                results.append(run_surge(served, entry, args.surge, args.over, args.think, pg, args.seed,
                                         analyze=autoanalyze() if pg else None))
            for k in [] if args.surge else args.annotators:
                results.append(run_load(served, entry, k, args.ramp, args.seconds, pg))
                print(f"K={k}: {results[-1]['cycles']} cycles", flush=True)
        finally:
            stop()
        problems = check(study, pool)
        if not args.keep:
            study_delete(study=study)
    if args.surge:
        report_surge(f"{connection.vendor}, {args.items} items x 3 (+{args.stored} stored annotations), "
                     f"{servers(args)}, CONN_MAX_AGE {args.conn_max_age}, a {args.warmup:g} s warm-up first, "
                     f"{os.cpu_count()} cores", results[0], problems, proxy=args.nodes >= 2)
    else:
        report(args, connection.vendor, results, queries, problems, load_start)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The launch surge of bench/bench_hotpath.py (--surge N --over S --think T): an open loop, N new
participants arriving over S seconds whatever the server's speed, each one browser in its own thread.

Arrivals: a Poisson process of rate N/S conditioned on its N arrivals falling in [0, S), that is N
uniform moments in [0, S) sorted (seeded by --seed); a participant's thread is started at its moment.
A participant does what a person does: the entry link (new Prolific ids, the page's static files),
consent, eligibility, instructions, one session of items (the study's items_per_session: the item
page, its image, the htmx submit whose answer is the next item), then the end page; before each
form it submits (the three onboarding pages and every item) it reads for a think time drawn from a
lognormal distribution of mean T and sigma 0.5 (a coefficient of variation of 0.53: the median is
0.88 T, one in twenty is above 2.0 T), seeded per participant. Redirects, static files and images
follow at once, as a browser fetches them.

Measured over the surge (from the first arrival to the last participant's end): each request kind's
latency, errors (status >= 400, transport errors, and in the servers' logs "database is locked",
WORKER TIMEOUT and Traceback), items/s (successful submits over the surge, and in its busiest 10 s),
the peak number of participants in flight, who finished, CPU per item from /proc (gunicorn, a proxy,
PostgreSQL, this generator, everything else), the load average at its start and end; the report
ends with a verdict against the target: p95 <= 150 ms for the item page and the submit, 0 errors,
0 over-assigned.
"""

from __future__ import annotations

import math
import os
import random
import threading
import time
from collections import Counter, defaultdict

from browser import Browser, HttpTransport
from measure import Served, counters, family, log_errors, log_offsets, pct, probe, workers

SIGMA = 0.5  # the think time's lognormal sigma
STACK = 512 * 1024  # a participant's thread stack: it sleeps most of the time and recurses little
TARGET_MS = 150
ANALYZE_EVERY = 15  # seconds
OVER_ASSIGNED = "items have more non-surplus annotations than wanted"  # check()'s wording
KIND_NAMES = {"GET /a/end/": "end page"}


def arrival_moments(n: int, over: float, seed: int) -> list[float]:
    """N arrivals of a Poisson process of rate n/over, given that n fall in [0, over)."""
    rng = random.Random(seed)
    return sorted(rng.uniform(0, over) for _ in range(n))


def think_time(mean: float, rng: random.Random):
    """Seconds to read a page: lognormal, of mean `mean`; None (no pause) for a mean of 0."""
    if mean <= 0:
        return None
    mu = math.log(mean) - SIGMA ** 2 / 2  # the lognormal's mean is exp(mu + sigma^2 / 2)
    return lambda: rng.lognormvariate(mu, SIGMA)


class Participant:
    """One person of the surge: one browser, one session, timed from the arrival to the end."""

    def __init__(self, browser: Browser):
        self.browser, self.start, self.end, self.finished = browser, None, None, False

    def __call__(self):
        self.start = time.monotonic()
        try:
            self.finished = self.browser.session()
        except Exception as exc:  # noqa: BLE001 - a transport error or a page that was not as expected
            self.browser.errors[f"{type(exc).__name__}: {str(exc)[:60]}"] += 1
        finally:
            self.end = time.monotonic()


def busiest(times: list[float], width: float) -> int:
    """The most of `times` in any window of `width` seconds."""
    times, best, first = sorted(times), 0, 0
    for last, t in enumerate(times):
        while times[first] < t - width:
            first += 1
        best = max(best, last - first + 1)
    return best


def in_flight_peak(spans: list[tuple[float, float]]) -> int:
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])  # an end before a start
    now = peak = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


def every(seconds: float, job, done: threading.Event) -> threading.Thread:
    """`job()` every `seconds` until `done` (a thread; job's exceptions end it, printed)."""
    def loop():
        while not done.wait(seconds):
            job()
    thread = threading.Thread(target=loop, name="housekeeping", daemon=True)
    thread.start()
    return thread


def run_surge(served: Served, entry: str, n: int, over: float, think: float, pg: int | None, seed: int,
              analyze=None) -> dict:
    """The surge; `analyze()`, if given, runs every ANALYZE_EVERY seconds meanwhile (PostgreSQL's
    statistics kept as autovacuum would where it is off)."""
    speed = probe()
    moments = arrival_moments(n, over, seed)
    rngs = [random.Random(seed * 1_000_003 + k) for k in range(n)]
    people = [Participant(Browser(HttpTransport(served.base), entry, served.base, rng, float("inf"),
                                  think=think_time(think, rng))) for rng in rngs]
    box = over + 30 * max(think, 1) + 300  # a participant still in flight by then is stuck
    log_from, pids = log_offsets(served.log_dir), workers(served)
    pg_pids = family(pg) if pg else []
    load = [os.getloadavg()]
    before = counters(served, pg, pg_pids)
    old_stack = threading.stack_size(STACK)
    threads, done = [], threading.Event()
    t0 = time.monotonic()
    analyzer = every(ANALYZE_EVERY, analyze, done) if analyze else None
    try:
        for k, (at, person) in enumerate(zip(moments, people, strict=True)):
            time.sleep(max(0.0, t0 + at - time.monotonic()))
            threads.append(threading.Thread(target=person, name=f"participant-{k}", daemon=True))
            threads[-1].start()
            if k % 50 == 49:
                print(f"  {k + 1} of {n} arrived at {time.monotonic() - t0:.0f} s", flush=True)
    finally:
        threading.stack_size(old_stack)
    for t in threads:
        t.join(timeout=max(0.0, t0 + box - time.monotonic()))
    now = time.monotonic()
    done.set()
    if analyzer:
        analyzer.join()
    pg_pids += [p for p in (family(pg) if pg else []) if p not in pg_pids]  # backends opened meanwhile
    used = {name: value - before[name] for name, value in counters(served, pg, pg_pids).items()}
    load.append(os.getloadavg())
    used["other"] = used["machine"] - used["server"] - used["proxy"] - used["pg"] - used["own"]

    errors = sum((p.browser.errors for p in people), Counter()) + log_errors(served.log_dir, log_from)
    if workers(served) != pids:
        errors["gunicorn workers replaced"] = 1
    stuck = sum(t.is_alive() for t in threads)
    if stuck:
        errors[f"participants still in flight {box:.0f} s after the first arrival"] = stuck
    latencies, submits = defaultdict(list), []
    for p in people:
        for kind, ms, status, _, end in p.browser.log:
            latencies[KIND_NAMES.get(kind, kind)].append((end, ms))
            if kind == "submit" and status in (200, 204):
                submits.append(end)
    spans = [(p.start, p.end if p.end is not None else now) for p in people if p.start is not None]
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    duration = max(last - first, 1e-9)
    flight = {b: sum(s <= first + 20 * b + 20 < e for s, e in spans) for b in range(math.ceil(duration / 20))}
    return {
        "n": n, "analyzed": bool(analyze), "over": over, "think": think, "seed": seed, "probe": speed,
        "load": load, "duration": duration,
        "first": first, "flight": flight, "latencies": latencies, "errors": errors, "items": len(submits),
        "peak_items": busiest(submits, min(10.0, duration)) / min(10.0, duration),
        "peak_in_flight": in_flight_peak(spans),
        "finished": sum(p.finished for p in people), "own": used["own"] / duration,
        **{f"{name}_ms": 1000 * used[name] / max(len(submits), 1)
           for name in ("server", "proxy", "pg", "own", "other")},
    }


def report_surge(title: str, r: dict, problems: list[str], proxy: bool = False) -> None:
    lat = r["latencies"]
    print(f"\nsurge: {r['n']} participants arriving over {r['over']:g} s (Poisson, seed {r['seed']}), think time "
          f"lognormal of mean {r['think']:g} s (sigma {SIGMA}) before each submit; {title}"
          + (f"; autovacuum is off: the tables the surge writes ANALYZEd every {ANALYZE_EVERY} s meanwhile"
             if r["analyzed"] else "") + "\n")
    print("| request | n | p50 ms | p95 ms | p99 ms | max ms |\n|---|---|---|---|---|---|")
    for kind, rows in lat.items():
        ms = [m for _, m in rows]
        print(f"| {kind} | {len(ms)} | " + " | ".join(f"{pct(ms, p):.1f}" for p in (50, 95, 99, 100)) + " |")
    cpu = ["server", *(["proxy"] if proxy else []), "pg", "own", "other"]
    heads = ["items/s over the surge", "items/s, busiest 10 s", "peak in flight", "finished", "not finished",
             "items", "surge s", "CPU ms/item: gunicorn", *(["proxy"] if proxy else []), "postgres", "generator",
             "other processes", "generator CPU", "errors", "probe ms"]
    cells = [f"{r['items'] / r['duration']:.1f}", f"{r['peak_items']:.1f}", r["peak_in_flight"], r["finished"],
             r["n"] - r["finished"], r["items"], f"{r['duration']:.0f}", *(f"{r[c + '_ms']:.0f}" for c in cpu),
             f"{100 * r['own']:.0f}% of a core", sum(r["errors"].values()), f"{r['probe']:.0f}"]
    print("\n| " + " | ".join(heads) + " |\n|" + "---|" * len(heads) + "\n| " + " | ".join(map(str, cells)) + " |")
    print("\nover time (20 s buckets from the first arrival; requests by the moment they ended):\n\n"
          "| s | participants in flight at its end | items/s | item page p95 ms | submit p95 ms |\n"
          "|---|---|---|---|---|")
    buckets = defaultdict(lambda: defaultdict(list))
    for kind in ("item page", "submit"):
        for end, ms in lat.get(kind, []):
            buckets[int((end - r["first"]) // 20)][kind].append(ms)
    for b in sorted(buckets):
        got = buckets[b]
        p95 = [f"{pct(got[kind], 95):.0f}" if got[kind] else "-" for kind in ("item page", "submit")]
        print(f"| {20 * b}-{20 * b + 20} | {r['flight'].get(b, '')} | {len(got['submit']) / 20:.1f} | "
              f"{p95[0]} | {p95[1]} |")
    if r["errors"]:
        print(f"\nerrors: {dict(r['errors'])}")
    print("\ninvariants: " + ("ok" if not problems else "; ".join(problems)))
    start, end = ("/".join(f"{x:.2f}" for x in avg) for avg in r["load"])
    print(f"load average (1/5/15 min): surge start {start}, end {end}")
    over = next((int(p.split()[0]) for p in problems if OVER_ASSIGNED in p), 0)
    verdict = [(f"item page p95 {pct([m for _, m in lat.get('item page', [])], 95):.0f} ms <= {TARGET_MS} ms",
                pct([m for _, m in lat.get("item page", [])], 95) <= TARGET_MS),
               (f"submit p95 {pct([m for _, m in lat.get('submit', [])], 95):.0f} ms <= {TARGET_MS} ms",
                pct([m for _, m in lat.get("submit", [])], 95) <= TARGET_MS),
               (f"{sum(r['errors'].values())} errors", not r["errors"]),
               (f"{over} over-assigned", not over), (f"invariants {'ok' if not problems else 'broken'}", not problems)]
    print("verdict: " + "; ".join(f"{what}: {'PASS' if ok else 'FAIL'}" for what, ok in verdict))

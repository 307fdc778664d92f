"""What the hot-path benchmarks measure besides latency (bench/bench_hotpath.py, bench/surge.py): CPU
seconds from /proc of gunicorn's masters and workers, of PostgreSQL's server, of a reverse proxy, of
this generator and of the whole machine; the servers' log for errors; percentiles."""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Served:
    """Where the load goes: one gunicorn, or --nodes gunicorns behind a reverse proxy."""
    base: str            # http://127.0.0.1:PORT of gunicorn or of the proxy
    masters: list[int]   # gunicorn master pids
    proxy: int | None    # the proxy's pid (its CPU is reported apart), None without one
    log_dir: str         # the servers' logs: every file in it is scanned for errors


def family(parent: int) -> list[int]:
    """The process and its children (gunicorn's master and workers, PostgreSQL's postmaster and backends)."""
    pids = [parent]
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1]) == parent:
                pids.append(int(d))
        except OSError:
            pass
    return pids


def postmaster() -> int | None:
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            ppid = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1]
            comm = [open(f"/proc/{p}/comm").read().strip() for p in (d, ppid)]
            if comm[0] == "postgres" and comm[1] != "postgres":  # the postmaster, not a backend
                return int(d)
        except OSError:
            pass
    return None


def cpu_seconds(pids: list[int]) -> float:
    """utime+stime of the processes, and of the first one's reaped children (a killed worker, a
    PostgreSQL backend that closed its connection)."""
    ticks = 0
    for n, pid in enumerate(pids):  # fields 14-17 of /proc/PID/stat: utime stime cutime cstime
        try:
            f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(f[11]) + int(f[12]) + (int(f[13]) + int(f[14]) if n == 0 else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    f = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
    return (sum(f) - f[3] - f[4]) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)] if s else float("nan")


def probe() -> float:
    """CPU ms of a fixed pure-Python loop: this machine's speed at the moment (a shared VM's varies)."""
    t0, x = time.process_time(), 0
    for i in range(2_000_000):
        x += i * i
    return 1000 * (time.process_time() - t0)


def counters(served: Served, pg: int | None, pg_pids: list[int]) -> dict:
    return {"server": sum(cpu_seconds(family(m)) for m in served.masters),
            "proxy": cpu_seconds(family(served.proxy)) if served.proxy else 0.0,
            "pg": cpu_seconds(pg_pids) if pg else 0.0, "machine": machine_busy(), "own": time.process_time()}


def workers(served: Served) -> set[int]:
    return {pid for m in served.masters for pid in family(m)}


def log_offsets(log_dir: str) -> dict[Path, int]:
    return {p: p.stat().st_size for p in Path(log_dir).iterdir() if p.is_file()}


NEEDLES = ("database is locked", "WORKER TIMEOUT", "Traceback")


def log_errors(log_dir: str, offsets: dict[Path, int]) -> Counter:
    """The needles in what the servers logged since `offsets` (files created since: from their start)."""
    found: Counter = Counter()
    for path in (p for p in Path(log_dir).iterdir() if p.is_file()):
        with open(path, errors="replace") as f:
            f.seek(offsets.get(path, 0))
            log = f.read()
        for needle in NEEDLES:
            if log.count(needle):
                found[f"{path.name}: {needle}"] += log.count(needle)
    return found

#!/usr/bin/env python
"""Walk a study's annotations through the API, page by page, at two sizes side by side.

    python bench/bench_api.py                                  # 20,000 and 200,000 annotations, SQLite
    python bench/bench_api.py --annotations 10000 1000000
    DATABASE_URL=postgres://… python bench/bench_api.py

For each size, builds the export benchmark's study (``bench_export.build``: a CulturalFrames rating
study, three annotations an item, answers of every field) and, in a fresh process, walks
``GET /api/v1/studies/{id}/annotations/?page_size=100`` from the first page to the last by its
``next`` cursor, with a researcher's token, through Django's test client (no network: the view,
its query and its serializer). Prints the pages and rows walked, the median and the slowest page
(ms), the first and the last page, and the process's peak RSS (VmHWM) once Django is loaded, after
the first page (every module imported) and after the walk: a
cursor page costs the same at any depth, and the walk's memory stays flat whatever the size, since
no more than a page is ever read. Uses config.settings_test on a temporary SQLite database, or on
DATABASE_URL when it is set (the study is deleted afterwards).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_export import build, setup_django  # noqa: E402  (the sibling benchmark's study)

PAGE = 100


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (VmHWM: of its own address space; getrusage's
    ru_maxrss would start from the forking parent's, the builder of the study)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("no VmHWM in /proc/self/status: this benchmark reads Linux's")


def walk(study_id: int) -> dict:
    """Every page of the study's annotations, in this process (a child)."""
    from rest_framework.test import APIClient

    from api.tokens import api_token_create
    from studies.models import Study

    study = Study.objects.select_related("owner").get(pk=study_id)
    _, token = api_token_create(user=study.owner, name="bench")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    address = f"/api/v1/studies/{study_id}/annotations/?page_size={PAGE}"
    loaded = peak_rss_mib()
    client.get(address)  # the token's first use written, the code warm
    before = peak_rss_mib()
    times, rows = [], 0
    while address:
        start = time.perf_counter()
        response = client.get(address)
        times.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{address}: {response.status_code} {response.content[:300]!r}")
        page = response.json()
        rows += len(page["results"])
        address = page["next"]
    peak = peak_rss_mib()
    return {"pages": len(times), "rows": rows, "median_ms": statistics.median(times), "max_ms": max(times),
            "first_ms": times[0], "last_ms": times[-1], "seconds": sum(times) / 1000,
            "rss_loaded_mib": loaded, "rss_before_mib": before, "rss_after_mib": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotations", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--child", nargs=2, metavar=("TMP", "STUDY"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ["API_THROTTLE_READS"] = "10000000/min"  # the walk is one token's thousands of reads
    if args.child:
        tmp, study_id = args.child
        setup_django(tmp, migrate=False)
        print(json.dumps(walk(int(study_id))))
        return

    with tempfile.TemporaryDirectory(prefix="tessera-bench-api-") as tmp:
        setup_django(tmp, migrate=True)
        from django.db import connection

        from studies.services import study_delete

        for n in args.annotations:
            study, user = build(n)
            connection.close()  # the child opens its own
            try:
                child = subprocess.run([sys.executable, __file__, "--child", tmp, str(study.pk)],
                                       capture_output=True, text=True, env=os.environ.copy(), check=False)
                if child.returncode:
                    sys.exit(f"the walk failed:\n{child.stderr[-3000:]}")
                r = json.loads(child.stdout.strip().splitlines()[-1])
                print(f"{r['rows']:>9,} annotations in {r['pages']:,} pages of {PAGE}, {r['seconds']:.1f} s: "
                      f"a page {r['median_ms']:.1f} ms median, {r['max_ms']:.1f} ms at most "
                      f"(first {r['first_ms']:.1f}, last {r['last_ms']:.1f}); peak RSS {r['rss_loaded_mib']:.0f} MiB "
                      f"loaded, {r['rss_before_mib']:.0f} MiB after the first page, {r['rss_after_mib']:.0f} MiB "
                      "after the last")
            finally:
                study_delete(study=study)
                user.delete()
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""Benchmark the weight and speed of the annotator's item page in Chromium, for each demo study.

    .venv/bin/python bench/bench_page.py                      # 9 demo studies x desktop, phone x 5 runs
    .venv/bin/python bench/bench_page.py --runs 9 --profiles phone --studies "GlobalRG demo"
    .venv/bin/python bench/bench_page.py --images --runs 3    # item images: bytes per item, submit to next image

Sets up the nine demo studies of demo_setup (fixtures/demo, copied to a temporary folder where their
images are drawn) in a temporary SQLite database, collects the static files as production does
(DEBUG=0: hashed names, our scripts and styles minified, gzip copies) and starts gunicorn on a free
loopback port, serving them with WhiteNoise as production does. For each study, one onboarded
annotator of its India pool holds the first item; each run opens that item page (/a/items/) in a new
Chromium context (an empty cache, the annotator's cookie) of Debian's Chromium (/usr/bin/chromium,
or $CHROMIUM_PATH) through Playwright, in two profiles:

    desktop  1280 x 900, no throttling
    phone    390 x 844, touch, CPU slowed 4x (CDP Emulation.setCPUThrottlingRate) and the network of
             Lighthouse's mobile runs (CDP Network.emulateNetworkConditions: 150 ms round trip,
             1.6 Mbit/s down, 750 kbit/s up)

Prints per study and profile the median over --runs runs of: the bytes of JS and CSS the page loads
before compression (decoded bodies), the bytes transferred (all responses: headers and bodies as
sent, gzip where accepted), the number of requests, DOMContentLoaded (the event fired), the time to
interactive and the load event's end. Time to interactive: from the navigation's start until page.js
marks the panel ready (#item-panel[data-ready], the last step of its setup, once every script has
run and item.js and the field scripts have set up the form: from then on the first answer control
takes input and the keys answer), read by a MutationObserver in the page. Deferred scripts run
before DOMContentLoaded fires, and page.js sets the panel up as soon as item.js registers: the mark
comes just before the event. One unmeasured load of each study's page first warms the server. Then
the load average, and any JavaScript error or failed request.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from serving import production_django  # bench/serving.py (this script's folder is on the path)

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PROFILES = {
    "desktop": {"context": {"viewport": {"width": 1280, "height": 900}}, "cpu": 1, "network": None},
    "phone": {
        "context": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True,
                    "has_touch": True},
        "cpu": 4,
        "network": {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8,
                    "uploadThroughput": 750_000 / 8},
    },
}
# The moment page.js marks the panel ready, in the page's own clock (performance.now(): since navigation).
READY_PROBE = """
new MutationObserver(function (changes, observer) {
  var panel = document.getElementById("item-panel");
  if (panel && panel.dataset.ready && window.__tesseraReady === undefined) {
    window.__tesseraReady = performance.now();
    observer.disconnect();
  }
}).observe(document, { attributes: true, attributeFilter: ["data-ready"], subtree: true });
"""


# --- setup -------------------------------------------------------------------------------------

def configure(tmp: str, *, demo: bool = True) -> dict:
    """The environment of the server and of this process's Django (the same settings), the database
    migrated, the static files collected and the demo studies set up (``demo``)."""
    env = production_django(tmp, database_url=f"sqlite:///{tmp}/bench.sqlite3")
    if not demo:
        return env
    from django.core.management import call_command

    fixtures = Path(tmp) / "demo"
    shutil.copytree(ROOT / "fixtures" / "demo", fixtures, ignore=shutil.ignore_patterns("images"))
    call_command("demo_setup", fixtures=fixtures, verbosity=0)
    return env


def annotator_cookie(study) -> dict:
    """An onboarded annotator of the study's India pool in a new session, bound to a browser: the
    cookie that browser sends (the first item is leased on its first visit and kept for the next)."""
    from django.utils import timezone

    from annotation.models import Annotator, Session
    from annotation.selectors import ANNOTATOR_COOKIE, annotator_cookie_value
    from annotation.services import session_admit

    pool = study.pools.get(country="IN")
    now = timezone.now()
    annotator = Annotator.objects.create(
        study=study, pool=pool, prolific_pid=f"bench{secrets.token_hex(8)}", consented_at=now, eligible_at=now,
        instructions_read_at=now, mock_passed_at=now, cleared_at=now,
    )
    session = Session.objects.create(annotator=annotator, prolific_session_id=f"bench{annotator.pk}",
                                     prolific_study_id="BENCH", items_target=study.items_per_session)
    key = session_admit(session=session, browser=None).key
    return {"name": ANNOTATOR_COOKIE, "value": annotator_cookie_value(key), "domain": "127.0.0.1", "path": "/"}


def start_gunicorn(env: dict, workers: int, log_path: str):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
               "--workers", str(workers)]
    server = subprocess.Popen(command, env=env, cwd=ROOT, stdout=open(log_path, "ab"), stderr=subprocess.STDOUT)
    from urllib.request import urlopen

    for _ in range(300):
        try:
            with urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                if r.status == 200:
                    return server, f"http://127.0.0.1:{port}"
        except OSError:  # not listening yet, or a worker still starting (a busy machine): ask again
            time.sleep(0.1)
    server.kill()
    raise SystemExit(f"gunicorn did not start; see {log_path}")


# --- the browser -------------------------------------------------------------------------------

def load_once(browser, url: str, cookie: dict, profile: dict, problems: list[str]) -> dict:
    """Open the item page in a new context (an empty cache) and measure it."""
    context = browser.new_context(**profile["context"])
    context.add_cookies([cookie])
    context.add_init_script(READY_PROBE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    if profile["cpu"] != 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile["cpu"]})
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    if profile["network"]:
        cdp.send("Network.emulateNetworkConditions", profile["network"])
    finished = []
    page.on("requestfinished", lambda request: finished.append(request))
    page.on("requestfailed", lambda r: problems.append(f"{r.url}: {r.failure}"))
    page.on("pageerror", lambda exc: problems.append(f"JavaScript error: {exc}"))
    page.goto(url, wait_until="load")
    page.wait_for_function("window.__tesseraReady !== undefined", timeout=60_000)
    timing = page.evaluate("""() => {
      const nav = performance.getEntriesByType("navigation")[0];
      return {dcl: nav.domContentLoadedEventStart, load: nav.loadEventEnd, tti: window.__tesseraReady};
    }""")
    assets = transferred = 0
    for request in finished:
        sizes = request.sizes()
        transferred += sizes["responseHeadersSize"] + sizes["responseBodySize"]
        if request.resource_type in ("script", "stylesheet"):
            assets += len(request.response().body())
    context.close()
    return {"assets": assets, "transferred": transferred, "requests": len(finished), **timing}


def measure(browser, base: str, cookies: dict[str, dict], args, problems: list[str]) -> list[tuple[str, str, dict]]:
    """``cookies``: each study's annotator's cookie, by the study's name."""
    rows = []
    for study, cookie in cookies.items():
        load_once(browser, f"{base}/a/items/", cookie, PROFILES["desktop"], problems)  # warm-up, not counted
        for name in args.profiles:
            runs = [load_once(browser, f"{base}/a/items/", cookie, PROFILES[name], problems)
                    for _ in range(args.runs)]
            rows.append((study, name, {k: statistics.median(r[k] for r in runs) for k in runs[0]}))
            print_row(*rows[-1])
    return rows


def print_row(study: str, profile: str, m: dict) -> None:
    print(f"{study:<36} {profile:<8} {m['assets'] / 1000:8.1f} {m['transferred'] / 1000:9.1f} "
          f"{m['requests']:5.0f} {m['dcl']:8.0f} {m['tti']:8.0f} {m['load']:8.0f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="page loads per study and profile (the median is shown)")
    parser.add_argument("--profiles", nargs="+", choices=list(PROFILES), default=list(PROFILES))
    parser.add_argument("--studies", nargs="+", help="demo study names (default: all nine)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn's sync workers")
    parser.add_argument("--images", action="store_true",
                        help="measure item images instead (bench/page_images.py): bytes per item on a phone and "
                        "submit to next image painted, before/after the lighter copies and the prefetch")
    parser.add_argument("--dpr", type=float, default=3, help="--images: the phone's device pixel ratio")
    args = parser.parse_args()
    load_start = os.getloadavg()
    if args.images:
        import page_images

        phone = {**PROFILES["phone"], "context": {**PROFILES["phone"]["context"], "device_scale_factor": args.dpr}}
        page_images.run(args, lambda tmp: configure(tmp, demo=False), start_gunicorn, annotator_cookie, phone,
                        CHROMIUM, CHROMIUM_ARGS)
        print(f"load average (1/5/15 min): start {'/'.join(f'{x:.2f}' for x in load_start)}, "
              f"end {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
        return 0
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="tessera-page-") as tmp:
        t0 = time.perf_counter()
        env = configure(tmp)
        from studies.models import Study

        studies = list(Study.objects.filter(owner__username="researcher").order_by("name"))
        if args.studies:
            studies = [s for s in studies if s.name in args.studies]
        cookies = {study.name: annotator_cookie(study) for study in studies}  # the ORM before Playwright's loop
        print(f"set up {len(studies)} demo studies in {time.perf_counter() - t0:.0f} s; "
              f"gunicorn, DEBUG=0, WhiteNoise (minified, gzip); {CHROMIUM}")
        log_path = f"{tmp}/gunicorn.log"
        server, base = start_gunicorn(env, args.workers, log_path)
        problems: list[str] = []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                print(f"median of {args.runs} runs; KB = 1000 bytes; times in ms since the navigation started")
                print(f"{'study':<36} {'profile':<8} {'JS+CSS':>8} {'transfer':>9} {'reqs':>5} "
                      f"{'DCL':>8} {'TTI':>8} {'load':>8}")
                measure(browser, base, cookies, args, problems)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"load average (1/5/15 min): start {'/'.join(f'{x:.2f}' for x in load_start)}, "
          f"end {'/'.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("problems: " + ("none" if not problems else "; ".join(dict.fromkeys(problems))))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

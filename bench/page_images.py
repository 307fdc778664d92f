"""bench_page.py --images: the weight of item images on a phone and the wait from a submit to the next
image painted, before and after the lighter copies (studies/derivatives.py) and the next item's image
fetched ahead (static/annotation/prefetch.js).

Two studies of the CulturalFrames rating preset (India pool), each of the same eight photo-like JPEGs
(1024-2048 px wide, gradients, shapes and noise, quality 92, as camera or T2I images are) imported
through items_import: "originals" with its copies' record cleared (the page offers no srcset: the
image as it was served before), "copies" with its copies made. Two gunicorn servers on the same
database, one with ITEM_PREFETCH=0. Conditions:

    before       originals, prefetch off   (the page before this change)
    copies       copies, prefetch off
    copies+next  copies, prefetch on        (the page now)

Each run is one annotator walking five items in a new Chromium context (its cache empty, then kept
through the walk) on the phone profile (390 x 844 at a device pixel ratio of 3, CPU 4x slower, the
network of Lighthouse's mobile runs: 150 ms, 1.6 Mbit/s down): the first item page loaded, then four
submits by clicks. Before each submit the annotator "reads" until the page's own loads are over (the
image shown, and the image fetched ahead when the page names one: its resource timing entry is there),
as a person takes seconds over an item. Measured: the image bytes transferred over the walk (response
bodies of image requests, the one fetched ahead of the sixth item included) per item shown, and, per
submit, the time from the click to the next item's image painted (its load event, then the next
animation frame), in the page's clock."""

from __future__ import annotations

import io
import statistics
import tempfile
import time
from pathlib import Path

WIDTHS = (1024, 1280, 1536, 2048, 1600, 1920, 1152, 2048)
CONDITIONS = (("before", "originals", False), ("copies", "copies", False), ("copies+next", "copies", True))

# Resolves with the ms from the submit's click to the new image painted (image load, then a frame).
PAINT_PROBE = """(old) => new Promise((resolve) => {
  const t0 = performance.now();
  const done = () => requestAnimationFrame(() => resolve(performance.now() - t0));
  const look = () => {
    const img = document.querySelector(".item-media img");
    if (!img || img.getAttribute("src") === old) return false;
    if (img.complete && img.naturalWidth) { done(); } else { img.addEventListener("load", done, {once: true}); }
    return true;
  };
  new MutationObserver((m, obs) => { if (look()) obs.disconnect(); })
    .observe(document.body, {childList: true, subtree: true});
  document.querySelector("#item-form button[type=submit]").click();
})"""
SETTLED = """() => {
  const img = document.querySelector(".item-media img");
  if (!img || !img.complete) return false;
  const hint = document.querySelector("[data-prefetch-src]");
  if (!hint) return true;
  const path = hint.dataset.prefetchSrc.split("?")[0];
  return performance.getEntriesByType("resource").some((e) => e.name.includes(path) && e.responseEnd > 0);
}"""


def photo(width: int, seed: int) -> bytes:
    """A photo-like JPEG: colour gradients, soft shapes and sensor-like noise."""
    from PIL import Image, ImageDraw, ImageFilter

    height = width * 3 // 4
    base = Image.merge("RGB", [Image.linear_gradient("L").rotate(angle).resize((width, height))
                               for angle in (seed * 40 % 360, seed * 70 % 360 + 90, seed * 110 % 360 + 180)])
    draw = ImageDraw.Draw(base)
    for n in range(12):
        x, y = (seed * 97 + n * 211) % width, (seed * 53 + n * 157) % height
        r = width // (6 + n % 5)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=((n * 40) % 256, (seed * 30 + n * 20) % 256, (n * 70) % 256))
    base = base.filter(ImageFilter.GaussianBlur(width / 200))
    noise = Image.effect_noise((width, height), 32).convert("RGB")
    out = io.BytesIO()
    Image.blend(base, noise, 0.2).save(out, "JPEG", quality=92)
    return out.getvalue()


def setup_studies(tmp: str) -> dict:
    """The two studies and one cookie maker each: {"originals": study, "copies": study}."""
    from studies.derivatives import derivatives_make
    from studies.importing import items_import, service
    from studies.models import CountryPool, Item, Study
    from studies.services import researcher_create, study_create_from_preset

    folder = Path(tmp) / "photos"
    folder.mkdir()
    lines = ["id,prompt,image,country"]
    for n, width in enumerate(WIDTHS, start=1):
        (folder / f"p{n}.jpg").write_bytes(photo(width, n))
        lines.append(f"p{n},A family sharing a meal at a festival {n},p{n}.jpg,IN")
    rows = Path(tmp) / "photos.csv"
    rows.write_text("\n".join(lines) + "\n")
    owner = researcher_create(username="bench-images", password="bench-images-pass-1")
    studies, made = {}, {}
    service.derivatives_queue = lambda **kw: None  # the copies are made below, in this process, timed
    for name in ("originals", "copies"):
        study = study_create_from_preset(owner=owner, preset="culturalframes-rating", status=Study.Status.OPEN,
                                         name=f"Photos {name}")
        CountryPool.objects.create(study=study, country="IN", country_name="India", annotations_per_item=20)
        items_import(study=study, rows_file=rows, images=folder)
        t0 = time.perf_counter()
        derivatives_make(study_id=study.pk)
        made[name] = time.perf_counter() - t0
        studies[name] = study
    Item.objects.filter(study=studies["originals"]).update(derived_widths=None)
    sizes = sorted(len((folder / f"p{n}.jpg").read_bytes()) for n in range(1, len(WIDTHS) + 1))
    print(f"photos: {len(WIDTHS)} JPEGs {min(WIDTHS)}-{max(WIDTHS)} px wide, "
          f"{sizes[0] / 1e3:.0f}-{sizes[-1] / 1e3:.0f} KB; their copies made in {made['copies']:.1f} s "
          f"({1000 * made['copies'] / len(WIDTHS):.0f} ms a photo, one process)")
    return studies


def rate(page) -> None:
    page.locator("#item-panel[data-ready=true]").wait_for()
    page.locator("fieldset[data-field=alignment]").get_by_label("Completely").check()
    page.locator("fieldset[data-field=stereotype]").get_by_label("No").check()
    page.locator("fieldset[data-field=quality]").get_by_label("Good").check()
    page.locator("fieldset[data-field=overall]").get_by_label("4").check()


def walk(browser, base: str, cookie: dict, profile: dict, problems: list[str], submits: int = 4) -> dict:
    context = browser.new_context(**profile["context"])
    context.add_cookies([cookie])
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": profile["cpu"]})
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", profile["network"])
    images: list = []
    page.on("requestfinished", lambda r: images.append(r) if r.resource_type == "image" else None)
    page.on("requestfailed", lambda r: problems.append(f"{r.url}: {r.failure}"))
    page.on("pageerror", lambda exc: problems.append(f"JavaScript error: {exc}"))
    page.goto(f"{base}/a/items/", wait_until="load")
    paints = []
    for _ in range(submits):
        page.wait_for_function(SETTLED, timeout=120_000, polling=100)
        rate(page)
        old = page.locator(".item-media img").get_attribute("src")
        paints.append(page.evaluate(PAINT_PROBE, old))
    page.wait_for_function(SETTLED, timeout=120_000, polling=100)
    shown = submits + 1
    image_bytes = sum(r.sizes()["responseBodySize"] for r in images)
    context.close()
    return {"bytes_per_item": image_bytes / shown, "requests": len(images), "paint": statistics.median(paints),
            "paints": paints}


def run(args, configure_env, start_gunicorn, annotator_cookie, profile: dict, chromium: str, chromium_args) -> list:
    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory(prefix="tessera-images-") as tmp:
        env = configure_env(tmp)
        studies = setup_studies(tmp)
        cookies = {(c, n): annotator_cookie(studies[s]) for c, s, _ in CONDITIONS for n in range(args.runs)}
        servers = {}
        problems: list[str] = []
        try:
            for prefetch in (False, True):
                servers[prefetch] = start_gunicorn({**env, "ITEM_PREFETCH": "1" if prefetch else "0"}, args.workers,
                                                   f"{tmp}/gunicorn-{int(prefetch)}.log")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=chromium_args)
                print(f"phone: 390 x 844, DPR {profile['context']['device_scale_factor']}, CPU 4x, 150 ms, "
                      f"1.6 Mbit/s down; {args.runs} walks of 5 items (4 submits) per condition")
                print(f"{'condition':<12} {'image KB/item':>14} {'img reqs':>9} "
                      f"{'submit->image painted ms (median)':>34}")
                for condition, _study, prefetch in CONDITIONS:
                    base = servers[prefetch][1]
                    walks = [walk(browser, base, cookies[(condition, n)], profile, problems) for n in range(args.runs)]
                    row = (condition, statistics.median(w["bytes_per_item"] for w in walks),
                           statistics.median(w["requests"] for w in walks),
                           statistics.median(x for w in walks for x in w["paints"]))
                    rows.append(row)
                    print(f"{row[0]:<12} {row[1] / 1000:14.1f} {row[2]:9.0f} {row[3]:34.0f}", flush=True)
                browser.close()
        finally:
            for server, _ in servers.values():
                server.terminate()
                server.wait(timeout=30)
        print("problems: " + ("none" if not problems else "; ".join(dict.fromkeys(problems))))
    return rows

"""Shared steps of the browser tests: a study from a preset, an annotator on its item pages, items
imported from the browser."""

import csv
import re
import zipfile

from annotation.models import Annotation
from tests import factories as f
from tests.factories import entry_url

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"


def log_in(page, live_server, username: str) -> None:
    """Log a researcher in by the keyboard (the cast's password), and wait to leave the login page."""
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f.PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url(re.compile(r"^(?!.*/login/)"))


def start_annotating(page, live_server, pool, *, pid=PID):
    """An onboarded annotator opens the study link and lands on the first item."""
    f.make_annotator(pool, pid)
    page.goto(live_server.url + entry_url(pool, pid=pid))


def rate_by_mouse(page) -> None:
    """Rate the CulturalFrames item on the page by clicks (fully aligned, no stereotype, good, 4),
    then submit it."""
    page.locator("#item-panel[data-ready=true]").wait_for()
    page.locator("fieldset[data-field=alignment]").get_by_label("Completely").check()
    page.locator("fieldset[data-field=stereotype]").get_by_label("No").check()
    page.locator("fieldset[data-field=quality]").get_by_label("Good").check()
    page.locator("fieldset[data-field=overall]").get_by_label("4").check()
    page.get_by_role("button", name="Submit and continue").click()


def item_ready(page, heading: str):
    """Wait for the item with this heading, with its form ready for keys (page.js and item.js have set it up)."""
    page.get_by_role("heading", name=heading).wait_for()
    page.locator("#item-panel[data-ready=true]").wait_for()


def stored_answers() -> list[dict]:
    return [a.answers for a in Annotation.objects.order_by("id")]


def write_files(tmp_path, countries):
    """items.csv (ids p1…, one row per country given) and images.zip of their pictures: the two paths."""
    rows = tmp_path / "items.csv"
    with rows.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "prompt", "image", "country"])
        for n, country in enumerate(countries, start=1):
            writer.writerow([f"p{n}", f"A street market, take {n}", f"{n}.png", country])
    images = tmp_path / "images.zip"
    with zipfile.ZipFile(images, "w") as zf:
        for n in range(1, len(countries) + 1):
            zf.writestr(f"{n}.png", f.png_bytes(color=(n * 50, 90, 200 - n * 30)))
    return [str(rows), str(images)]


def upload(page, files):
    page.get_by_label("Items (a .csv or .jsonl file").set_input_files(files[0])
    page.get_by_label("Images (one .zip").set_input_files(files[1])
    page.get_by_role("button", name="Import").click()


def drag(page, start, end):
    """Drag across the box-drawing stage from and to fractions of its size (the stage scrolled into
    view first: the mouse reaches only what the viewport shows)."""
    stage = page.locator(".bbox-stage")
    stage.scroll_into_view_if_needed()
    box = stage.bounding_box()
    page.mouse.move(box["x"] + start[0] * box["width"], box["y"] + start[1] * box["height"])
    page.mouse.down()
    page.mouse.move(box["x"] + end[0] * box["width"], box["y"] + end[1] * box["height"], steps=4)
    page.mouse.up()

"""The annotator's browser as the hot-path benchmark drives it (bench/bench_hotpath.py, bench/surge.py):
the entry link, onboarding and items of one participant after another, over http.client or, in-process,
Django's test client. A browser may think before each page it submits (`think`: seconds to wait, drawn
per call); the closed loop gives none and waits for nothing."""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from collections import Counter
from collections.abc import Callable
from html import unescape
from urllib.parse import urlencode

TEXT = "The lanterns and the festive food of the prompt are missing from this picture."

KINDS = [("static", r"/static/.*"), ("GET join", r"/join/.*"), ("item page", r"/a/items/"),
         ("submit", r"/a/items/\d+/"), ("image", r"/a/images/[^/]+")]


def kind_of(method: str, path: str) -> str:
    return next((kind for kind, pattern in KINDS if re.fullmatch(pattern, path)), f"{method} {path}")


ONBOARDING = {  # the form of each onboarding page, as a person fills it in
    "/a/consent/": lambda html: [("consent", "yes")],
    "/a/eligibility/": lambda html: [(n, "yes") for n in dict.fromkeys(re.findall(r'type="radio" name="(\w+)"', html))],
    "/a/instructions/": lambda html: [],
}


def attrs(tag: str) -> dict[str, str]:
    return {k: unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag)}


def item_answer(html: str, rng: random.Random) -> tuple[str, list[tuple[str, str]]]:
    """The form's hx-post URL and a complete valid answer: a random choice for every question shown
    (conditions evaluated as item.js does), one or two ticks for checkboxes, a sentence for texts."""
    from studies.protocol.conditions import evaluate

    form = html[html.index('<form id="item-form"'):]
    form = form[:form.index("</form>")]
    data = [("csrfmiddlewaretoken", re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1))]
    values: dict = {}
    for chunk in form.split("<fieldset")[1:]:
        field = attrs(chunk[:chunk.index(">")])
        key, name = field["data-field"], field["data-name"]
        if "data-show-if" in field and not evaluate(json.loads(field["data-show-if"]), values):
            continue
        inputs = [a for a in map(attrs, re.findall(r"<input [^>]*>", chunk)) if a.get("name") == name]
        if field["data-type"] == "text":
            data.append((name, TEXT))
            values[key] = TEXT
        elif inputs and inputs[0]["type"] == "radio":
            pick = rng.choice(inputs)
            data.append((name, pick["value"]))
            values[key] = json.loads(pick["data-v"])
        elif inputs:
            picks = rng.sample(inputs, min(len(inputs), rng.randint(1, 2)))
            data += [(name, p["value"]) for p in picks]
            values[key] = [json.loads(p["data-v"]) for p in picks]
    return re.search(r'hx-post="([^"]+)"', form).group(1), data


class HttpTransport:
    """One browser's connection: http.client with a cookie jar. The standard library's client costs
    a fraction of httpx's CPU per request, and this generator shares the machine with the server."""

    def __init__(self, base: str):
        from urllib.parse import urlsplit

        url = urlsplit(base)
        self.host, self.port = url.hostname, url.port
        self.conn = None
        self.cookies: dict[str, str] = {}
        self.queries = None

    def send(self, method, path, body, headers):
        import http.client
        from http.cookies import SimpleCookie

        if self.cookies:
            headers = {**headers, "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        for attempt in (1, 2):  # gunicorn's sync workers close each connection: reconnect when it is gone
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                r = self.conn.getresponse()
                content = r.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        for header in r.msg.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or morsel["expires"].startswith("Thu, 01 Jan 1970"):
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        if r.will_close:
            self.conn.close()
            self.conn = None
        return r.status, r.msg, content

    def new_browser(self):
        self.cookies.clear()


class DjangoTransport:
    """Django's test client in this process; the queries of each request are kept."""

    def __init__(self):
        from django.test import Client

        self.client = Client(enforce_csrf_checks=True, SERVER_NAME="127.0.0.1")
        self.queries: list = []

    def send(self, method, path, body, headers):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            r = self.client.generic(method, path, body or "", content_type=headers.get("Content-Type", ""),
                                    headers=headers)
            content = b"".join(r.streaming_content) if r.streaming else r.content
            r.close()
        self.queries = [q["sql"] for q in captured.captured_queries]
        return r.status_code, r.headers, content

    def new_browser(self):
        self.client.cookies.clear()


class Browser:
    """One annotator's browser: a new participant (cookies, cache) for each session."""

    def __init__(self, transport, entry: str, origin: str, rng: random.Random, deadline: float,
                 think: Callable[[], float] | None = None):
        self.t, self.entry, self.origin, self.rng, self.deadline = transport, entry, origin, rng, deadline
        self.think = think  # seconds a person reads a page before submitting it; None: no pause at all
        self.log: list = []  # (kind, ms, status, queries or None, monotonic time at the end)
        self.errors: Counter = Counter()
        self.cached: set[str] = set()

    def send(self, method, path, data=None, headers=None):
        headers = {"Accept": "text/html", **(headers or {})}
        body = None
        if method == "POST":
            body = urlencode(data or [])
            headers.update({"Content-Type": "application/x-www-form-urlencoded", "Origin": self.origin})
        t0 = time.perf_counter()
        status, hdrs, content = self.t.send(method, path, body, headers)
        kind = kind_of(method, path.split("?")[0])
        self.log.append((kind, (time.perf_counter() - t0) * 1000, status, self.t.queries, time.monotonic()))
        if status >= 400:
            self.errors[f"{kind} {status}"] += 1
        return status, hdrs, content

    def go(self, method, path, data=None):
        """A navigation: the request and the redirects it leads to."""
        while True:
            status, hdrs, content = self.send(method, path, data)
            if status not in (301, 302, 303):
                return path, status, content.decode()
            method, path, data = "GET", hdrs["Location"], None

    def read(self):
        """The person reads the page (or looks at the item) before submitting it."""
        if self.think is not None:
            time.sleep(self.think())

    def load_static(self, html: str):
        for url in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
            if url not in self.cached:
                self.cached.add(url)
                self.send("GET", url, headers={"Accept": "*/*"})

    def session(self) -> bool:
        """One participant's session; True when it reached the end page."""
        self.t.new_browser()
        self.cached = set()
        ids = f"PROLIFIC_PID={uuid.uuid4().hex[:24]}&STUDY_ID=BENCH&SESSION_ID={uuid.uuid4().hex[:24]}"
        path, status, html = self.go("GET", f"{self.entry}?{ids}")
        self.load_static(html)
        while path != "/a/items/":
            if status != 200 or path not in ONBOARDING:
                raise RuntimeError(f"{path} answered {status}")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
            self.read()
            path, status, html = self.go("POST", path, [("csrfmiddlewaretoken", token), *ONBOARDING[path](html)])
            self.load_static(html)
        if status != 200:
            raise RuntimeError(f"the item page answered {status}")
        htmx = {"HX-Request": "true", "HX-Current-URL": self.origin + "/a/items/", "HX-Target": "item-panel",
                "HX-Trigger": "item-form", "Accept": "*/*"}
        while True:
            image = re.search(r'<img src="(/a/images/[^"]*)"', html)
            if image and image.group(1) not in self.cached:
                self.cached.add(image.group(1))
                self.send("GET", image.group(1), headers={"Accept": "image/*"})
            if time.monotonic() > self.deadline:
                return False  # time is up: the session is left open, as by a participant who leaves
            action, data = item_answer(html, self.rng)
            self.read()
            status, hdrs, content = self.send("POST", action, data, htmx)
            if status == 200:
                html = content.decode()
            elif status == 204 and hdrs.get("HX-Redirect"):
                return self.go("GET", hdrs["HX-Redirect"])[1] == 200
            else:
                raise RuntimeError(f"the submit answered {status}")

    def run(self, stagger: float = 0.0):
        time.sleep(self.rng.uniform(0, stagger))  # annotators out of step, as people are
        while time.monotonic() < self.deadline:
            try:
                self.session()
            except Exception as exc:  # noqa: BLE001 - counted, then a new participant
                self.errors[f"{type(exc).__name__}: {str(exc)[:60]}"] += 1
                time.sleep(0.1)


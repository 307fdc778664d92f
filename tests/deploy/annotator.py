"""An annotator's browser over HTTP, as little as a test of real servers needs (bench/bench_hotpath.py
has the measuring one): the entry link with new Prolific ids, consent, eligibility and instructions,
then the htmx submit of a complete valid answer per item until the session ends. Each response's
``X-Tessera-Node`` (which node served it, written by the proxy) is kept."""

from __future__ import annotations

import http.client
import random
import re
import uuid
from collections import Counter
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

from bench.browser import ONBOARDING, item_answer  # the benchmark's browser fills the forms alike


def csrf_token(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


class Browser:
    """One browser: a cookie jar, a connection to the proxy, the nodes that answered it."""

    def __init__(self, base: str):
        url = urlsplit(base)
        self.base, self.host, self.port = base, url.hostname, url.port
        self.cookies: dict[str, str] = {}
        self.nodes: Counter = Counter()

    def send(self, method: str, path: str, data=None, headers=None) -> tuple[int, http.client.HTTPMessage, bytes]:
        headers = {"Accept": "text/html", **(headers or {})}
        body = None
        if method == "POST":
            body = urlencode(data or [])
            headers.update({"Content-Type": "application/x-www-form-urlencoded", "Origin": self.base})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse()
            content = r.read()
        finally:
            conn.close()
        for header in r.msg.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0":
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        self.nodes[r.msg.get("X-Tessera-Node", "?")] += 1
        return r.status, r.msg, content

    def go(self, method: str, path: str, data=None) -> tuple[str, int, str]:
        """A navigation: the request and the redirects it leads to."""
        while True:
            status, hdrs, content = self.send(method, path, data)
            if status not in (301, 302, 303):
                return path, status, content.decode()
            method, path, data = "GET", hdrs["Location"], None

    def annotate_a_session(self, entry: str, rng: random.Random) -> int:
        """A new participant through ``entry`` to the end of their session; the items submitted."""
        ids = f"PROLIFIC_PID={uuid.uuid4().hex[:24]}&STUDY_ID=NODES&SESSION_ID={uuid.uuid4().hex[:24]}"
        path, status, html = self.go("GET", f"{entry}?{ids}")
        while path != "/a/items/":
            if status != 200 or path not in ONBOARDING:
                raise RuntimeError(f"{path} answered {status}")
            path, status, html = self.go("POST", path, [("csrfmiddlewaretoken", csrf_token(html)),
                                                         *ONBOARDING[path](html)])
        htmx = {"HX-Request": "true", "HX-Current-URL": self.base + "/a/items/", "HX-Target": "item-panel",
                "HX-Trigger": "item-form", "Accept": "*/*"}
        submitted = 0
        while status == 200:
            action, data = item_answer(html, rng)
            status, hdrs, content = self.send("POST", action, data, htmx)
            if status == 200:
                html = content.decode()
                submitted += 1
            elif status == 204 and hdrs.get("HX-Redirect"):
                self.go("GET", hdrs["HX-Redirect"])
                return submitted + 1
        raise RuntimeError(f"the submit answered {status}")

"""An annotator's browser over HTTP, as little as a test of real servers needs (bench/bench_hotpath.py
has the measuring one): the entry link with new Prolific ids, consent, eligibility and instructions,
then the htmx submit of a complete valid answer per item until the session ends. Each response's
``X-Tessera-Node`` (which node served it, written by the proxy) is kept."""

from __future__ import annotations

import http.client
import json
import random
import re
import uuid
from collections import Counter
from html import unescape
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

from studies.protocol.conditions import evaluate

TEXT = "The lanterns and the festive food of the prompt are missing from this picture."
ONBOARDING = {  # the form of each onboarding page, as a person fills it in
    "/a/consent/": lambda html: [("consent", "yes")],
    "/a/eligibility/": lambda html: [(n, "yes") for n in dict.fromkeys(re.findall(r'type="radio" name="(\w+)"', html))],
    "/a/instructions/": lambda html: [],
}


def csrf_token(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def _attrs(tag: str) -> dict[str, str]:
    return {k: unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag)}


def item_answer(html: str, rng: random.Random) -> tuple[str, list[tuple[str, str]]]:
    """The form's hx-post URL and a complete valid answer to every question shown."""
    form = html[html.index('<form id="item-form"'):]
    form = form[:form.index("</form>")]
    data = [("csrfmiddlewaretoken", csrf_token(form))]
    values: dict = {}
    for chunk in form.split("<fieldset")[1:]:
        field = _attrs(chunk[:chunk.index(">")])
        key, name = field["data-field"], field["data-name"]
        if "data-show-if" in field and not evaluate(json.loads(field["data-show-if"]), values):
            continue
        inputs = [a for a in map(_attrs, re.findall(r"<input [^>]*>", chunk)) if a.get("name") == name]
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

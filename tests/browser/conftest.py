"""Browser tests drive the real pages in Debian's Chromium through Playwright.

They skip with a reason where no Chromium is installed, and fail instead when E2E_REQUIRED=1.

A test's page is closed, and the live server's requests in flight are waited for, before the
database is flushed at the test's end: a page ends its test with requests of its own still running
(a draft saved, a poll, a prefetch), and one still writing after the flush would leave its rows to
the next test. ``live_server_idle_at_the_end`` (autouse) sets the live server up first, so that
the page is torn down before it, then waits for the server to be idle before the flush.
"""

import os
import shutil
import threading
import time

import pytest

# Playwright's sync API runs an event loop in this thread; the test's own ORM calls are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    missing = None
    if not os.path.exists(CHROMIUM):
        missing = f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - playwright is in requirements.txt
        missing = "playwright is not installed"
    if missing:
        if os.environ.get("E2E_REQUIRED") == "1":
            pytest.fail(f"browser tests are required (E2E_REQUIRED=1) but {missing}")
        pytest.skip(f"browser test skipped: {missing}")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Answered:
    """A response that counts as answered once the server closes it (after its last byte). Its own
    ``close`` is called first: Django's closes files and sends request_finished (which returns the
    request's database connection)."""

    def __init__(self, response, done):
        self.response, self.done = response, done

    def __iter__(self):
        return iter(self.response)

    def close(self):
        try:
            close = getattr(self.response, "close", None)
            if close is not None:
                close()
        finally:
            self.done()


class InFlight:
    """The live server's WSGI app, counting the requests it is answering (the body streamed out
    included)."""

    def __init__(self, app):
        self.app, self.count, self.idle = app, 0, threading.Condition()

    def __call__(self, environ, start_response):
        with self.idle:
            self.count += 1
        try:
            return Answered(self.app(environ, start_response), self.done)
        except BaseException:
            self.done()
            raise

    def done(self) -> None:
        with self.idle:
            self.count -= 1
            self.idle.notify_all()

    def drain(self, timeout: float) -> bool:
        """Wait until no request is in flight (at most ``timeout`` seconds); True when idle."""
        with self.idle:
            return self.idle.wait_for(lambda: self.count == 0, timeout=timeout)


def live_requests_counted(live_server) -> InFlight:
    """The live server's in-flight counter, installed once for the session's server."""
    httpd = live_server.thread.httpd
    app = httpd.get_app()
    if not isinstance(app, InFlight):
        app = InFlight(app)
        httpd.set_app(app)
    return app


def live_requests_drain(live_server, timeout: float = 15.0) -> None:
    if not live_requests_counted(live_server).drain(timeout):
        raise AssertionError(f"the live server still answered a request {timeout:g}s after the test ended")
    time.sleep(0)  # let the server thread close its connection to the database


@pytest.fixture(autouse=True)
def live_server_idle_at_the_end(request):
    """For a test of the live server: the server set up first (so its database is flushed last),
    and, once the test's pages are closed, its requests in flight waited for."""
    if "live_server" not in request.fixturenames:
        yield
        return
    server = request.getfixturevalue("live_server")
    live_requests_counted(server)
    yield
    live_requests_drain(server)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()  # no new request from the page now; the server's are waited for next
    assert not errors, f"JavaScript errors on the page: {errors}"

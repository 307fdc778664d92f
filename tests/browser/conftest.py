"""Browser tests drive the real pages in Debian's Chromium through Playwright.

They skip with a reason where no Chromium is installed, and fail instead when E2E_REQUIRED=1.
"""

import os
import shutil

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


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"

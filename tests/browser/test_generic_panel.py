"""A study with a Prolific pool and a pool on a generic URL panel, in Chromium: the researcher sets the
panel and makes signed links on its pages; an annotator enters the URL pool by a signed link, walks
consent, screening, instructions and the items, and lands on the panel's completion link (a loopback
fake), at desktop and phone widths; a tampered link is refused; the Prolific pool beside it still enters."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from annotation.models import Annotation, Annotator
from tests import factories as f
from tests.factories import add_items, entry_url, spec_study

from .helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SPEC = {"fields": [{"key": "fits", "type": "choice", "label": "Does it fit?", "choices": ["yes", "no"]}]}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


class FakePanel:
    """The panel's completion page on loopback: it records each address it is sent to."""

    def __init__(self):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                if self.path != "/favicon.ico":
                    seen.append(self.path)
                body = b"<!doctype html><title>Panel</title><h1>Thanks from the panel</h1>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_panel():
    panel = FakePanel()
    yield panel
    panel.close()


@pytest.fixture
def mixed(live_server, settings):
    """An open study of two items per session: India on a URL panel (set in the browser), Japan on Prolific."""
    settings.SITE_URL = live_server.url  # the signed links the page makes point at this server
    study, pool = spec_study(SPEC, items_per_session=2)
    add_items(study, 2)
    japan = f.make_pool(study, "JP", "Japan")
    f.make_items(study, "JP", 2)
    return study, pool, japan


def set_panel_and_make_links(page, live_server, study, pool, fake_panel, ids="lab-007\nlab-008") -> list[str]:
    log_in(page, live_server, "owner-inline")
    page.goto(f"{live_server.url}/studies/{study.pk}/pools")
    page.locator("tr", has_text="India").locator("td[data-label=Panel] a").click()
    page.get_by_label("Recruited through").select_option("url")
    page.get_by_label("Panel name").fill("Lab list")
    page.get_by_label("Participant id parameter").fill("pid")
    done = page.get_by_label("Completion link: completed")
    done.fill("javascript:alert(1)")
    page.get_by_role("button", name="Save the panel").click()
    page.get_by_text("Enter a full http:// or https:// address").wait_for()  # said next to the field
    page.get_by_label("Completion link: completed").fill(fake_panel.url + "/done?pid={participant_id}&cc={code}")
    page.get_by_role("button", name="Save the panel").click()
    page.get_by_text("recruits through Lab list").wait_for()
    page.get_by_role("link", name="Make signed links for a list of ids…").click()
    page.get_by_label("Participant ids").fill(ids)
    page.get_by_role("button", name="Show the links").click()
    cells = page.locator("#signed-links tbody tr td code")
    cells.first.wait_for()
    return [c.inner_text() for c in cells.all()]


def walk(page, link, fake_panel, *, wait_countdown=False):
    page.goto(link)
    page.get_by_role("button", name="I agree, continue").click()
    for fieldset in page.locator("fieldset").all():
        fieldset.get_by_label("Yes").check()
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="I have read the instructions").click()
    for n in (1, 2):
        page.get_by_role("heading", name=f"Image {n} of 2").wait_for()
        page.locator("#item-panel[data-ready=true]").wait_for()
        page.locator("fieldset[data-field=fits]").get_by_label("yes").check()
        page.get_by_role("button", name="Submit and continue").click()
    page.get_by_role("heading", name="All done, thank you!").wait_for()
    assert page.locator("#completion-code").inner_text() == "C0MPLETE"
    assert "Prolific" not in page.locator("main").inner_text()
    if wait_countdown:
        page.locator("#countdown").get_by_text("Taking you on to Lab list").wait_for()
    else:
        page.get_by_role("link", name="Continue to Lab list").click()
    page.get_by_role("heading", name="Thanks from the panel").wait_for(timeout=20_000)


def test_a_url_panel_pool_runs_beside_a_prolific_pool(page, browser, live_server, mixed, fake_panel):
    study, pool, japan = mixed
    links = set_panel_and_make_links(page, live_server, study, pool, fake_panel)
    assert len(links) == 2 and all("token=" in link for link in links)
    annotator = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    walk(annotator, links[0], fake_panel)
    assert fake_panel.seen == ["/done?pid=lab-007&cc=C0MPLETE"]
    assert Annotation.objects.filter(annotator__prolific_pid="lab-007").count() == 2
    annotator.context.close()

    # a phone, the second id, the countdown taking them on by itself
    phone = browser.new_context(**PHONE).new_page()
    walk(phone, links[1], fake_panel, wait_countdown=True)
    assert fake_panel.seen[-1] == "/done?pid=lab-008&cc=C0MPLETE"
    assert Annotation.objects.filter(annotator__prolific_pid="lab-008").count() == 2
    phone.context.close()

    # the Prolific pool of the same study still enters by Prolific's link
    prolific = browser.new_context().new_page()
    prolific.goto(live_server.url + entry_url(japan))
    prolific.get_by_role("button", name="I agree, continue").wait_for()
    prolific.context.close()


def test_a_tampered_signed_link_is_refused(page, browser, live_server, mixed, fake_panel):
    study, pool, _ = mixed
    (link,) = set_panel_and_make_links(page, live_server, study, pool, fake_panel, ids="lab-009")
    tampered = link.replace("pid=lab-009", "pid=lab-010")
    other = browser.new_context(**PHONE).new_page()
    other.goto(tampered)
    other.get_by_role("heading", name="This link is not valid").wait_for()
    assert "Lab list" in other.locator("main").inner_text()
    assert not Annotator.objects.filter(pool=pool).exists()
    other.context.close()

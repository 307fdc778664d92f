"""Every annotator page passes an automated WCAG 2.x A/AA audit (axe-core, tests/browser/a11y.py) with no
serious or critical violation: consent, eligibility (and its refused form), instructions, the practice
test, an item page of every field type of the protocol engine (opened, refused, a box drawn), the resume
page (and a wrong code), the end page; on a 390 px touch phone and a 1280 px desktop, in English and in
Arabic (right to left). One browser context per width and language walks the pages in sequence; every
page's violations are gathered and reported together."""

import pytest

from studies.protocol.types import FIELD_TYPES
from tests import factories as f
from tests.factories import add_items, preset_study, spec_study

from .a11y import report, serious_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 900}},
}
PROLIFIC = "https://app.prolific.com/**"
CANDIDATES = [
    {"id": "sys-a", "text": "A woman in a red sari lights diyas at dusk."},
    {"id": "sys-b", "text": "Diwali: a woman lights clay oil lamps (diyas) on her doorstep."},
]
COMPARE_SPEC = {"fields": [
    {"key": "extremes", "type": "best_worst", "label": "Which image fits the prompt best, and which worst?"},
    {"key": "ranked", "type": "rank", "label": "Rank the images"},
]}
# The item pages walked, each with the field types it shows (every type of the engine on one at least).
ITEM_PAGES = {
    "rating": {"scale", "choice", "multi", "highlight", "text"},
    "documents": {"choice", "per_document", "url_list"},
    "captions": {"pick_one"},
    "grounding": {"upload", "bbox", "choice"},
    "pair": {"pairwise", "text", "choice"},
    "compare": {"best_worst", "rank"},
}


def test_the_walk_shows_every_field_type():
    assert set().union(*ITEM_PAGES.values()) == set(FIELD_TYPES)


def in_language(pool, language):
    pool.language = language
    pool.save()
    return pool


def studies(language):
    """The pools of the walk, each speaking ``language``: name -> (study, pool)."""
    owner = f.make_researcher("owner-a11y")
    rating = f.make_study(owner, items_per_session=1)
    rating_pool = f.make_pool(rating)
    f.make_mock_question(rating, expected="Completely")
    f.make_items(rating, n=2, size=(1600, 1200))  # larger than shown: the zoom opens
    documents, documents_pool = f.ravenea(owner)
    captions, captions_pool = preset_study("ravenea-caption-choice")
    add_items(captions, 1, candidates=CANDIDATES)
    grounding, grounding_pool = preset_study("globalrg-grounding")
    add_items(grounding, 1, prompt="Kathakali")
    pair, pair_pool = preset_study("culturalframes-pairwise")
    compare, compare_pool = spec_study(COMPARE_SPEC)
    f.quotas_for_items(items=[f.make_comparison_item(pair, size=(320, 240))])  # one study's items a call
    three = ("model-a", "model-b", "model-c")
    f.quotas_for_items(items=[f.make_comparison_item(compare, models=three, size=(320, 240))])
    pools = {"rating": (rating, rating_pool), "documents": (documents, documents_pool),
             "captions": (captions, captions_pool), "grounding": (grounding, grounding_pool),
             "pair": (pair, pair_pool), "compare": (compare, compare_pool)}
    return {name: (study, in_language(pool, language)) for name, (study, pool) in pools.items()}


class Walk:
    """One browser context's way through the pages; ``check`` audits the page as it stands."""

    def __init__(self, page, live_server, where):
        self.page, self.live_server, self.where, self.found = page, live_server, where, {}

    def check(self, name):
        violations = serious_violations(self.page)
        if violations:
            self.found[name] = violations

    def enter(self, pool, pid):
        self.page.goto(self.live_server.url + f.entry_url(pool, pid=pid))

    def item_ready(self):
        self.page.locator("#item-panel[data-ready=true]").wait_for()

    def summary(self):
        return "\n\n".join(report(v, f"{name} ({self.where})") for name, v in self.found.items())


def onboarding(walk, study, pool):
    """Consent, eligibility (refused, then passed), instructions, the practice test: each page audited."""
    page = walk.page
    walk.enter(pool, "a11y00000000000000000001")
    page.locator("button[name=consent][value=yes]").wait_for()
    walk.check("consent")
    page.locator("button[name=consent][value=yes]").click()
    page.locator("input[name=born][value=yes]").wait_for()
    walk.check("eligibility")
    page.locator("main form button[type=submit]").click()  # nothing answered: refused, each question marked
    page.locator("fieldset.has-error").first.wait_for()
    walk.check("eligibility, refused")
    for radio in page.locator("input[type=radio][value=yes]").all():
        radio.check()
    page.locator("main form button[type=submit]").click()
    page.locator("main form button.primary[autofocus]").wait_for()
    walk.check("instructions")
    page.locator("main form button.primary").click()
    question = study.mock_questions.get()
    page.locator(f"input[name=q{question.pk}]").first.wait_for()
    walk.check("practice")
    page.locator(f"input[name=q{question.pk}][value={question.expected}]").check()
    page.locator("main form button[type=submit]").click()


def rating_item(walk, pool, language):
    """The rating item: as it opens, with its conditional questions opened, refused; then the resume
    page (a wrong code, the right one) in a browser without the session's cookie; then submitted, to the
    end page."""
    page = walk.page
    walk.item_ready()
    assert page.evaluate("document.documentElement.lang") == language
    walk.check("item: scale, choice")
    page.locator("fieldset[data-field=alignment] input[value='0.5']").check()  # opens multi, highlight, text
    page.locator("fieldset[data-field=words] label.token").first.click()
    page.locator("fieldset[data-field=explanation] textarea").wait_for()
    walk.check("item: scale, multi, highlight, text, choice")
    page.keyboard.press("Control+Enter")
    page.locator("#item-panel [role=alert]").first.wait_for()
    walk.item_ready()
    walk.check("item, refused")
    overlays(walk)

    code = page.locator("#resume-code-note strong").inner_text()
    page.context.clear_cookies()
    walk.enter(pool, "a11y00000000000000000001")
    page.locator("#resume-code").wait_for()
    walk.check("resume")
    page.locator("#resume-code").fill("AAAA-AAAA")
    page.locator(".resume-form button").click()
    page.locator("#resume-error").wait_for()
    walk.check("resume, wrong code")
    page.locator("#resume-code").fill(code)
    page.locator(".resume-form button").click()
    walk.item_ready()

    for key, value in (("error_types", "explicit"), ("stereotype", "no"), ("quality", "1"), ("overall", "3")):
        page.locator(f"fieldset[data-field={key}] input[value='{value}']").check()
    page.locator("fieldset[data-field=explanation] textarea").fill("The festival food is missing entirely.")
    page.locator("#item-form button[type=submit]").click()
    page.locator("#completion-code").wait_for()
    walk.check("end")


def overlays(walk):
    """The item page's dialogs, each audited open: a question's definition, the zoomed image, and on a
    desktop the keyboard shortcuts."""
    page = walk.page
    opened = {"definition": "fieldset[data-field=alignment] button.info", "zoom": "button.zoom"}
    if page.locator("[popovertarget=shortcuts-help]").is_visible():
        opened["shortcuts"] = "[popovertarget=shortcuts-help]"
    for name, opener in opened.items():
        page.locator(opener).click()
        page.locator(":popover-open, dialog[open]").first.wait_for()
        walk.check(f"item, {name} open")
        page.keyboard.press("Escape")
        page.locator(":popover-open, dialog[open]").first.wait_for(state="detached")


def grounding_item(walk, photo):
    page = walk.page
    walk.item_ready()
    walk.check("item: upload, bbox (before the upload), choice")
    page.locator("fieldset[data-field=photo] input[type=file]").set_input_files(photo)
    page.wait_for_function("document.querySelector('.bbox-image').naturalWidth === 400")
    page.locator(".bbox-stage").focus()
    page.keyboard.press("Enter")  # a box, by the keyboard
    page.locator(".bbox-box").wait_for()
    walk.check("item: upload, bbox (a box drawn), choice")


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "kathakali.png"
    path.write_bytes(f.png_bytes(size=(400, 300)))
    return path


@pytest.mark.parametrize("language", ["en", "ar"])
@pytest.mark.parametrize("size", SIZES)
def test_every_annotator_page_has_no_serious_violation(browser, live_server, size, language, photo):
    pools = studies(language)
    context = browser.new_context(**SIZES[size])
    context.route(PROLIFIC, lambda route: route.fulfill(status=200, body="Prolific"))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    walk = Walk(page, live_server, f"{size}, {language}")
    try:
        study, pool = pools["rating"]
        onboarding(walk, study, pool)
        rating_item(walk, pool, language)
        for n, name in enumerate(("documents", "captions", "grounding", "pair", "compare"), start=2):
            _, pool = pools[name]
            f.make_annotator(pool, f"a11y{n:020d}")
            walk.enter(pool, f"a11y{n:020d}")
            if name == "grounding":
                grounding_item(walk, photo)
            else:
                walk.item_ready()
                walk.check(f"item: {', '.join(sorted(ITEM_PAGES[name]))}")
    finally:
        context.close()
    assert not walk.found, walk.summary()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_the_audit_reports_a_serious_violation_readably(page):
    """The helper is no empty check: the box-drawing stage as it was (a label on a role-less div), an image
    without a text, are reported with their rule, place and help."""
    page.set_content('<!doctype html><html lang="en"><head><title>t</title></head><body><main>'
                     '<div class="stage" tabindex="0" aria-label="The image to draw on"></div>'
                     '<img src="data:," class="photo"></main></body></html>')
    found = serious_violations(page)
    assert {v["id"] for v in found} == {"aria-prohibited-attr", "image-alt"}
    text = report(found, "a test page")
    assert "- aria-prohibited-attr (serious, 1 node(s)): Elements must only use permitted ARIA attributes" in text
    assert 'at div: Fix all of the following: aria-label attribute cannot be used on "div"' in text
    assert "- image-alt (critical, 1 node(s)): Images must have alternative text" in text
    assert '<img src="data:," class="photo">' in text

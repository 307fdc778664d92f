"""Every demo study of demo_setup, walked through once in Chromium: a new participant of its India pool
goes from consent to Prolific's completion page, answering each item by mouse and keyboard as its
protocol asks. One session per study; demo_setup runs per test (a transactional db cannot share it)."""

import json
import re
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from PIL import Image, ImageDraw
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from annotation.models import Annotation, Annotator, Upload
from studies.models import CountryPool, ItemQuota, Study
from tests.factories import entry_url

from .helpers import drag

DEMO_FIXTURES = Path(settings.BASE_DIR) / "fixtures" / "demo"
PRESETS = Path(settings.BASE_DIR) / "studies" / "presets"
DEMOS = {  # preset -> the demo study's name, as demo_setup creates it
    spec["study"]["protocol_preset"]: spec["study"]["name"]
    for spec in (json.loads(p.read_text(encoding="utf-8")) for p in sorted(DEMO_FIXTURES.glob("*/study.json")))
}
PROLIFIC_DONE = "https://app.prolific.com/submissions/complete?cc="


def test_there_is_one_demo_study_per_preset():
    assert sorted(DEMOS) == sorted(p.stem for p in PRESETS.glob("*.json"))
    assert len(DEMOS) == 11


# --- answering one item, per preset ----------------------------------------------------------------
# Each takes (page, n, tmp_path) on item n (1-based), ready for keys, and leaves it submitted.


def keys(page, *pressed):
    for key in pressed:
        page.keyboard.press(key)


def rating(page, n, tmp_path):
    if n == 1:  # a partial match: explicit elements wrong, two words marked, explained
        page.keyboard.press("2")  # alignment: Partially; the focus moves to "What is missing"
        page.keyboard.press("Space")  # ticks the focused first box: explicit
        tokens = page.locator("label.token")
        tokens.nth(0).click()
        tokens.nth(tokens.count() - 1).click()
        page.get_by_role("textbox", name="Explain what is missing or incorrect").click()
        page.keyboard.type("The setting does not look like a home in India.")
        page.keyboard.press("Tab")  # out of the text, on to the stereotype question
        keys(page, "2", "3", "4")  # stereotype No, quality Good, overall 4
    else:
        keys(page, "3", "2", "2", "5")  # Completely, no stereotype, quality Fair, overall 5
    page.keyboard.press("Control+Enter")


def prompt_filter(page, n, tmp_path):
    page.keyboard.press("1" if n % 2 else "2")
    page.keyboard.press("Control+Enter")


CAIRE_SCORES = {1: "5", 2: "1", 3: "3"}


def caire(page, n, tmp_path):
    page.keyboard.press(CAIRE_SCORES.get(n, "4"))
    page.get_by_role("button", name="Submit and continue").click()


# Per document: (country, topic, visual) keys; the last document of each item is "Cannot be determined".
DOC_KEYS = [("1", "1", "1"), ("1", "1", "2"), ("2", "2", "2")]


def doc_relevance(page, n, tmp_path):
    page.keyboard.press("1")  # the caption is accurate; the focus moves to document 1
    documents = page.locator(".document-group").count()
    assert documents >= 1
    for d in range(documents):
        keys(page, *(("3", "2", "2") if d == documents - 1 else DOC_KEYS[d % 2]))
    if n == 1:  # a missing article, by keyboard: the focus is on "Add another article" now
        page.keyboard.press("Enter")
        page.keyboard.type("Lakshmi Puja")
        page.keyboard.press("Enter")  # to the URL
        page.keyboard.type("https://en.wikipedia.org/wiki/Lakshmi_Puja")
    page.keyboard.press("Control+Enter")


def caption_choice(page, n, tmp_path):
    if n == 2:  # by mouse: the last caption as shown
        page.locator("fieldset[data-field=best_caption] label.option").last.click()
        page.get_by_role("button", name="Submit and continue").click()
    else:
        page.keyboard.press(str(n if n <= 3 else 1))
        page.keyboard.press("Control+Enter")


def pairwise(page, n, tmp_path):
    field = page.locator("fieldset[data-field=fidelity]")
    if n % 2:  # by mouse: the image shown on the left, clearly better
        field.locator("label.compare-pick").first.click()
        field.get_by_label("Clearly better").check()
    else:
        field.get_by_label("About the same (a tie)").check()
    page.get_by_role("button", name="Submit and continue").click()


def best_worst(page, n, tmp_path):
    field = page.locator("fieldset[data-field=fidelity]")
    field.locator("label.compare-best").first.click()  # the first image shown is the best
    field.locator("label.compare-worst").last.click()  # the last one the worst
    page.get_by_role("button", name="Submit and continue").click()


PHOTO = (480, 360)
SHAPE = (0.1, 0.2, 0.3, 0.45)  # the concept's place in the photo, as fractions (left, top, right, bottom)


def photo(tmp_path, n) -> Path:
    """A distinct PNG for concept n: the concept (a shape) among other things."""
    path = tmp_path / f"concept-{n}.png"
    image = Image.new("RGB", PHOTO, (200 + 10 * n, 220, 210))
    draw = ImageDraw.Draw(image)
    w, h = PHOTO
    draw.rectangle((0, 0.7 * h, w, h), fill=(120, 150, 90))
    draw.ellipse((SHAPE[0] * w, SHAPE[1] * h, SHAPE[2] * w, SHAPE[3] * h), fill=(180, 40 * n, 40))
    draw.rectangle((0.6 * w, 0.3 * h, 0.8 * w, 0.7 * h), fill=(60, 60, 140))
    image.save(path)
    return path


def grounding(page, n, tmp_path):
    page.get_by_label("Choose an image file").set_input_files(photo(tmp_path, n))
    page.locator(".upload-status", has_text="Uploaded.").wait_for()
    # Both the preview and the image to draw on have loaded: the layout is settled before the drag.
    page.wait_for_function(
        "w => [...document.querySelectorAll('.upload-preview, .bbox-image')]"
        ".every(img => img.complete && img.naturalWidth === w)", arg=PHOTO[0])
    drag(page, SHAPE[:2], SHAPE[2:])
    assert page.locator(".bbox-box").count() == 1
    page.keyboard.press("1")  # prevalent: Yes
    page.keyboard.press("Control+Enter")


QUESTIONS = {1: "What are these called in your language?", 3: "On which festival is this usually seen?"}


def vqa_question(page, n, tmp_path):
    if n == 2:  # skipped by keyboard, with a reason
        page.get_by_role("button", name="Skip this image").click()
        page.keyboard.press("2")
        page.keyboard.press("Control+Enter")
        return
    page.get_by_role("textbox", name=re.compile("Write a question about this image")).click()
    page.keyboard.type(QUESTIONS.get(n, "What is this thing called here?"))
    page.keyboard.press("Control+Enter")


ANSWERS = {1: "Diya", 2: "Auto rickshaw", 3: "Banana leaf meal"}


def vqa_answer(page, n, tmp_path):
    page.get_by_role("textbox", name="Your answer to the question").click()
    page.keyboard.type(ANSWERS.get(n, "Kolam"))
    page.keyboard.press("Control+Enter")


JUDGMENTS = {1: "1", 2: "5", 3: "2"}


def vqa_judgment(page, n, tmp_path):
    page.keyboard.press(JUDGMENTS.get(n, "3"))
    page.keyboard.press("Control+Enter")


# --- checking what was stored, per preset ------------------------------------------------------------
# Each takes the annotator's annotations in the order submitted.


def check_rating(annotations):
    first, *rest = [a.answers for a in annotations]
    assert first["alignment"] == 0.5 and first["error_types"] == ["explicit"]
    assert len(first["words"]) == 2 and first["words"][0]["index"] == 0
    assert first["explanation"] == "The setting does not look like a home in India."
    assert (first["stereotype"], first["quality"], first["overall"]) == ("no", 1, 4)
    for answers in rest:
        assert answers == {"alignment": 1, "stereotype": "no", "quality": 0.5, "overall": 5}


def check_prompt_filter(annotations):
    wanted = ["yes" if n % 2 else "no" for n in range(1, len(annotations) + 1)]
    assert [a.answers["fits_culture"] for a in annotations] == wanted


def check_caire(annotations):
    wanted = [{"relevance": int(CAIRE_SCORES.get(n, "4"))} for n in range(1, len(annotations) + 1)]
    assert [a.answers for a in annotations] == wanted


def check_doc_relevance(annotations):
    choices = {"1": "yes", "2": "no", "3": "cannot_determine"}
    for n, annotation in enumerate(annotations, start=1):
        answers = annotation.answers
        assert answers["caption_correct"] == "yes"
        documents = list(annotation.item.documents.order_by("position").values_list("pk", flat=True))
        assert [d["document"] for d in answers["documents"]] == documents
        for d, given in enumerate(answers["documents"]):
            pressed = ("3", "2", "2") if d == len(documents) - 1 else DOC_KEYS[d % 2]
            wanted = [choices[pressed[0]], *("yes" if k == "1" else "no" for k in pressed[1:])]
            assert [given["country"], given["topic"], given["visual"]] == wanted
        missing = [{"title": "Lakshmi Puja", "url": "https://en.wikipedia.org/wiki/Lakshmi_Puja"}] if n == 1 else []
        assert answers.get("missing_documents", []) == missing


def check_caption_choice(annotations):
    for n, annotation in enumerate(annotations, start=1):
        pick = annotation.answers["best_caption"]
        assert sorted(pick["order"]) == sorted(c["id"] for c in annotation.item.candidates)
        shown = len(pick["order"]) if n == 2 else (n if n <= 3 else 1)
        assert pick["choice"] == pick["order"][shown - 1]


def check_grounding(annotations):
    for annotation in annotations:
        answers = annotation.answers
        assert answers["prevalent"] == "yes"
        upload = Upload.objects.get(token=answers["photo"]["upload"])
        assert (upload.width, upload.height) == PHOTO and upload.assignment_id == annotation.assignment_id
        [box] = answers["box"]
        assert 0.03 < box["area_ratio"] < 0.3
        assert abs(box["x"] - SHAPE[0] * PHOTO[0]) <= 3 and abs(box["y"] - SHAPE[1] * PHOTO[1]) <= 3


def check_vqa_question(annotations):
    reasons = Study.objects.get(name=DEMOS["culturalvqa-question"]).spec.skip.reasons
    for n, annotation in enumerate(annotations, start=1):
        if n == 2:
            assert annotation.answers == {"_skip": reasons[1]}
        else:
            assert annotation.answers == {"question": QUESTIONS.get(n, "What is this thing called here?")}
            assert len(annotation.answers["question"].split()) >= 3


def check_vqa_answer(annotations):
    for n, annotation in enumerate(annotations, start=1):
        assert annotation.answers == {"answer": ANSWERS.get(n, "Kolam")}
        assert 1 <= len(annotation.answers["answer"].split()) <= 3


def check_vqa_judgment(annotations):
    wanted = [{"judgment": int(JUDGMENTS.get(n, "3"))} for n in range(1, len(annotations) + 1)]
    assert [a.answers for a in annotations] == wanted


def check_pairwise(annotations):
    for n, annotation in enumerate(annotations, start=1):
        answer = annotation.answers["fidelity"]
        assert sorted(answer["order"]) == ["1", "2"]
        if n % 2:
            assert answer["choice"] == answer["order"][0] and answer["strength"] == 2
        else:
            assert answer["choice"] == "tie" and "strength" not in answer


def check_best_worst(annotations):
    for annotation in annotations:
        answer = annotation.answers["fidelity"]
        assert sorted(answer["order"]) == ["1", "2", "3", "4"]
        assert (answer["best"], answer["worst"]) == (answer["order"][0], answer["order"][-1])


CASES = {  # preset -> (answer one item, check the stored answers)
    "culturalframes-rating": (rating, check_rating),
    "culturalframes-prompt-filter": (prompt_filter, check_prompt_filter),
    "caire-relevance": (caire, check_caire),
    "ravenea-doc-relevance": (doc_relevance, check_doc_relevance),
    "ravenea-caption-choice": (caption_choice, check_caption_choice),
    "globalrg-grounding": (grounding, check_grounding),
    "culturalvqa-question": (vqa_question, check_vqa_question),
    "culturalvqa-answer": (vqa_answer, check_vqa_answer),
    "culturalvqa-judgment": (vqa_judgment, check_vqa_judgment),
    "culturalframes-pairwise": (pairwise, check_pairwise),
    "culturalframes-best-worst": (best_worst, check_best_worst),
}


def test_every_preset_has_a_case():
    assert sorted(CASES) == sorted(DEMOS)


# --- the walk ---------------------------------------------------------------------------------------


def onboard(page, study):
    """Consent, eligibility (Yes to every question), instructions, and the mock test if there is one."""
    page.get_by_role("button", name="I agree, continue").click()
    page.get_by_role("heading", name="About you").wait_for()
    for fieldset in page.locator("fieldset").all():
        fieldset.get_by_label("Yes").check()
    page.keyboard.press("Enter")  # submits the eligibility form from the focused radio
    page.get_by_role("heading", name="Instructions").wait_for()
    page.get_by_role("button", name="I have read the instructions").click()
    questions = list(study.mock_questions.order_by("position"))
    if questions:
        page.get_by_role("heading", name="A short practice test").wait_for()
        for question in questions:
            page.locator("fieldset", has_text=question.text).get_by_label(question.expected, exact=True).check()
        page.get_by_role("button", name="Check my answers").click()


def next_item_or_end(page, heading: str, tmp_path) -> bool:
    """Wait for the item with this heading, ready for keys (True), or the end page (False)."""
    ready = page.locator("#item-panel[data-ready=true]").filter(
        has=page.get_by_role("heading", name=heading, exact=True))
    end = page.locator("#completion-code")
    refused = page.locator("#form-errors, section.card[role=alert]")  # a refused submit, a problem page
    try:
        ready.or_(end).or_(refused).first.wait_for(timeout=10_000)
    except PlaywrightTimeout:
        shot = tmp_path / "stuck.png"
        page.screenshot(path=shot, full_page=True)
        shown = page.locator("h1, [role=alert]:visible").all_inner_texts()
        pytest.fail(f"waiting for {heading!r} at {page.url}: the page shows {shown}; screenshot {shot}")
    if refused.count():
        shot = tmp_path / "refused.png"
        page.screenshot(path=shot, full_page=True)
        shown = page.locator("h1, .error:visible").all_inner_texts()
        pytest.fail(f"waiting for {heading!r} at {page.url}: the page shows {shown}; screenshot {shot}")
    return end.count() == 0


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("preset", sorted(DEMOS, key=lambda p: list(CASES).index(p) if p in CASES else len(CASES)))
def test_a_new_participant_completes_a_session_of_the_demo_study(page, live_server, tmp_path, preset):
    walk(page, live_server, tmp_path, preset)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("preset", ["culturalframes-pairwise", "culturalframes-best-worst"])
def test_a_participant_on_a_phone_completes_a_comparison_session(browser, live_server, tmp_path, preset):
    """The comparisons by touch at 390 px: two images side by side, four in a row that swipes."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        walk(context.new_page(), live_server, tmp_path, preset)
    finally:
        context.close()


def walk(page, live_server, tmp_path, preset):
    """A new participant of the preset's demo study, from the entry link to Prolific's page: every
    item answered by the preset's case, then what was stored checked."""
    call_command("demo_setup", verbosity=0)
    study = Study.objects.get(name=DEMOS[preset])
    pool = CountryPool.objects.get(study=study, country="IN")
    answer, check = CASES[preset]
    noun, total = study.spec.display.noun, study.items_per_session
    available = ItemQuota.objects.filter(pool=pool, item__is_example=False).count()
    total = min(total, available)  # the page counts the items there are
    pid = uuid.uuid4().hex[:24]

    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="Prolific"))
    page.goto(live_server.url + entry_url(pool, pid=pid, study_id="demostudy", session_id=f"S{pid[:12]}"))
    onboard(page, study)

    n = 1
    while next_item_or_end(page, f"{noun} {n} of {total}", tmp_path):
        answer(page, n, tmp_path)
        n += 1
    assert n - 1 == min(total, available)

    assert page.locator("#completion-code").inner_text() == study.code_completed
    page.get_by_role("link", name="Return to Prolific now").click()
    page.wait_for_url(re.compile(re.escape(PROLIFIC_DONE)))
    assert page.url == PROLIFIC_DONE + study.code_completed

    annotator = Annotator.objects.get(study=study, prolific_pid=pid)
    assert annotator.pool == pool
    session = annotator.sessions.get()
    assert session.completed_at is not None
    annotations = list(Annotation.objects.filter(annotator=annotator).select_related("item").order_by("id"))
    assert len(annotations) == min(session.items_target, available)
    assert all(a.pool == pool and not a.item.is_example for a in annotations)
    if study.routing == Study.Routing.COUNTRY:  # CAIRE sends every image to every pool
        assert all(a.item.country == "IN" for a in annotations)
    assert len({a.item_id for a in annotations}) == len(annotations)
    check(annotations)

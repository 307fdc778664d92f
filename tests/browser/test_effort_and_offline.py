"""The item page's honest-effort counts and its offline submit, in a real browser: a paste and typed
keys in a text answer and the page hidden once are counted (never the text) and stored with the
answer; a submit made offline is kept on the page, says so, stores nothing, and is sent once the
connection returns: stored exactly once, and the next item shows."""

import re

import pytest

from annotation.models import Annotation
from tests.factories import add_items, preset_study

from .helpers import item_ready, start_annotating, stored_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASTED = "What is the name of this festival dish"  # 38 characters

# What a paste does in the browser: the paste event, the text inserted, an input event of type
# insertFromPaste (a synthetic paste event inserts nothing by itself).
PASTE = """text => {
  const box = document.querySelector("#item-form [data-type=text] textarea");
  box.focus();
  const data = new DataTransfer();
  data.setData("text/plain", text);
  box.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
  box.setRangeText(text, box.selectionStart, box.selectionEnd, "end");
  box.dispatchEvent(new InputEvent("input", {inputType: "insertFromPaste", bubbles: true}));
}"""

# The page hidden (another tab in front), then shown again.
VISIBILITY = """hidden => {
  Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
  Object.defineProperty(document, "visibilityState", {value: hidden ? "hidden" : "visible", configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def heading(start: str) -> re.Pattern:
    return re.compile(rf"^{start} of \d+$")


def test_the_page_counts_pastes_typing_and_leaving_and_stores_them_with_the_answer(page, live_server):
    study, pool = preset_study("culturalvqa-question")
    add_items(study, 2)
    start_annotating(page, live_server, pool)
    item_ready(page, heading("Image 1"))

    page.evaluate(PASTE, PASTED)
    page.keyboard.type(" here?")  # 6 characters typed, 5 intervals between keystrokes
    page.evaluate(VISIBILITY, True)
    page.evaluate(VISIBILITY, False)
    page.get_by_role("button", name="Submit and continue").click()
    item_ready(page, heading("Image 2"))

    stored = Annotation.objects.get()
    assert stored.answers["question"] == PASTED + " here?"
    effort = stored.effort
    assert effort["fields"] == {"question": {"pasted": len(PASTED), "typed": 6, "keys": 5, "burst": len(PASTED)}}
    assert effort["blurs"] == 1 and effort["hidden_ms"] >= 0
    assert PASTED not in str(effort)  # counts, never the text


def test_a_submit_made_offline_is_kept_and_sent_once_the_connection_returns(page, live_server):
    study, pool = preset_study("culturalvqa-question")
    add_items(study, 2)
    start_annotating(page, live_server, pool)
    item_ready(page, heading("Image 1"))
    page.keyboard.type("What is this dish called?")

    page.context.set_offline(True)
    page.get_by_role("button", name="Submit and continue").click()
    notice = page.locator("#net-error")
    offline = "You are offline. Your answer is kept and will be sent when the connection returns."
    notice.filter(has_text=offline).wait_for()
    assert notice.get_attribute("role") == "alert"  # read out at once
    assert not stored_answers()
    assert page.get_by_role("textbox").input_value() == "What is this dish called?"  # still on the page

    page.context.set_offline(False)  # the browser's "online" event sends it again
    item_ready(page, heading("Image 2"))
    assert [a["question"] for a in stored_answers()] == ["What is this dish called?"]
    assert notice.is_hidden()


# What an input method does: the text composed so far replaced at each key, then committed.
COMPOSE = """() => {
  const box = document.querySelector("#item-form [data-type=text] textarea");
  box.focus();
  for (const part of ["に", "にほ", "にほん"]) {
    box.dispatchEvent(new InputEvent("input", {inputType: "insertCompositionText", data: part, isComposing: true,
                                               bubbles: true}));
  }
  const text = "日本のお祭りで食べる料理は何ですか";
  box.value = text;
  box.dispatchEvent(new CompositionEvent("compositionend", {data: text, bubbles: true}));
}"""


def test_text_from_an_input_method_counts_once_as_typed(page, live_server):
    study, pool = preset_study("culturalvqa-question")
    add_items(study, 2)
    start_annotating(page, live_server, pool)
    item_ready(page, heading("Image 1"))

    page.evaluate(COMPOSE)
    page.keyboard.type(" a b")
    page.get_by_role("button", name="Submit and continue").click()
    item_ready(page, heading("Image 2"))
    counts = Annotation.objects.get().effort["fields"]["question"]
    assert (counts["typed"], counts["pasted"], counts["burst"]) == (17 + 4, 0, 0)

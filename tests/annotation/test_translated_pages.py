"""The annotator's pages speak the page's language: the gates, the item page (a refused submit's
messages, its counters), the completion page and the words the scripts show; the English pages are
pinned by the other modules' tests."""

import json
import re

import pytest
from django.urls import reverse

from annotation.models import Annotator
from tests.factories import add_items, make_annotator, make_session, preset_study
from tests.helpers import as_annotator, enter, on_items
from tests.helpers import item_submit as submit


def choose(client, code):
    client.cookies["django_language"] = code  # what the bar's language menu sets


def post(client, step, data):
    return client.post(reverse(f"annotation:{step}"), data)


def test_the_consent_gate_in_japanese(client, pool, items):
    pool.language = "ja"
    pool.save()
    enter(client, pool)
    page = client.get(reverse("annotation:consent")).content.decode()
    assert "<h1>始める前に</h1>" in page and "同意して続ける" in page and "本文へスキップ" in page
    assert "ステップ 1 / " in page and "再開コード:" in page
    assert "Before you start" not in page
    assert '<option value="en" lang="en">English</option>' in page  # each language in its own words


def test_the_eligibility_gate_in_hindi_names_the_country_in_hindi(client, pool, items):
    pool.language = "hi"
    pool.save()
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    page = client.get(reverse("annotation:eligibility")).content.decode()
    assert "क्या आपका जन्म भारत में हुआ था?" in page  # India, in CLDR's Hindi
    assert "यह अध्ययन भारत के लोगों से" in page and "हाँ" in page
    response = post(client, "eligibility", {})
    assert response.status_code == 422 and "कृपया हाँ या नहीं में उत्तर दें।" in response.content.decode()


def test_a_country_cldr_does_not_know_keeps_its_stored_name(client, pool, items):
    pool.country, pool.country_name, pool.language = "XZ", "Atlantis", "ar"
    pool.save()
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    assert "هل وُلدت في Atlantis؟" in client.get(reverse("annotation:eligibility")).content.decode()


@pytest.mark.django_db
def test_a_refused_submit_in_arabic_counts_its_errors_in_arabic(client):
    choose(client, "ar")
    _, a, page = on_items(client, "culturalvqa-answer", texts={"question": "What is this?"})
    assert '<html lang="ar" dir="rtl">' in page and "إرسال ومتابعة" in page
    response = submit(client, a, {})
    page = response.content.decode()
    assert response.status_code == 422
    assert "يُرجى تصحيح 1 إجابة واحدة معلَّمة بالأحمر أدناه." in page  # the "one" of Arabic's six forms
    assert "هذا السؤال يحتاج إلى إجابة." in page or "اكتب إجابة." in page  # the engine's message
    assert "Please fix" not in page


@pytest.mark.django_db
def test_the_text_counter_and_the_scripts_words_in_japanese(client):
    choose(client, "ja")
    _, a, page = on_items(client, "culturalvqa-answer", texts={"question": "What is this?"})
    assert re.search(r'<p class="muted counter" aria-live="polite">1〜3 語。</p>', page)
    messages = json.loads(re.search(r'<script id="ui-messages" type="application/json">(.*?)</script>', page).group(1))
    assert messages["draft_saved"] == "下書きを保存しました"
    assert messages["words"] == {"other": "{n} 語"}  # Japanese has one plural form


@pytest.mark.django_db
def test_a_field_s_markup_kept_for_one_language_is_not_shown_in_another(client):
    study, pool = preset_study("culturalvqa-answer")
    add_items(study, 2, texts={"question": "What is this?"})
    pages = {}
    for code in ("ar", "ja"):
        client.cookies.clear()
        as_annotator(client, make_session(make_annotator(pool)))
        choose(client, code)
        pages[code] = client.get(reverse("annotation:items")).content.decode()
    assert "من 1 إلى 3 كلمات." in pages["ar"] and "1〜3 語。" in pages["ja"]


@pytest.mark.django_db
def test_arabic_scripts_get_a_form_for_each_plural_category(client):
    choose(client, "ar")
    _, a, page = on_items(client, "culturalvqa-answer", texts={"question": "What is this?"})
    messages = json.loads(re.search(r'<script id="ui-messages" type="application/json">(.*?)</script>', page).group(1))
    assert set(messages["words"]) == {"zero", "one", "two", "few", "many", "other"}
    assert messages["words"]["two"] == "{n} كلمتان" and messages["words"]["few"] == "{n} كلمات"


def test_the_completion_page_in_arabic_keeps_its_code_and_counts_down_in_arabic(client, pool, items, study):
    pool.language = "ar"
    pool.save()
    enter(client, pool)
    Annotator.objects.update(outcome=Annotator.Outcome.ALL_SKIPPED)
    page = client.get(reverse("annotation:end")).content.decode()
    code = f'<strong class="code" id="completion-code">{study.code_all_skipped}</strong>'
    assert f"رمز الإكمال الخاص بك هو {code}" in page
    assert 'ستعود إلى Prolific خلال <strong data-seconds>10</strong> ثوانٍ.' in page  # 10: Arabic's "few"
    assert "العودة إلى Prolific الآن" in page and "البقاء في هذه الصفحة" in page


def test_an_entry_refusal_in_the_browser_s_language(client, db):
    response = client.get(reverse("annotation:next"), headers={"accept-language": "ja"})
    assert response.status_code == 403 and "Prolific から調査を開いてください" in response.content.decode()

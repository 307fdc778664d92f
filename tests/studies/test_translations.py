"""A study's texts in other languages: the text keys, the localized study (fallback per key, unused
keys, the process cache), the save service and its refusals, the researcher's Translations pages."""

import html

import pytest
from django.urls import reverse

from studies import translations
from studies.models import Study
from studies.services import WorkspaceError, study_set_protocol, study_translations_save
from studies.translations import localized, source_texts, unused_keys
from tests import factories as f
from tests.helpers import login

pytestmark = pytest.mark.django_db

JA = {
    "instructions_md": "各画像を評価してください。**注意深く。**",
    "field.alignment.label": "画像はプロンプトに合っていますか？",
    "field.alignment.choice.0.label": "いいえ",
}


@pytest.fixture
def ja_study(study):
    study.translations = {"ja": dict(JA)}
    study.save()
    return study


def test_the_keys_name_the_consent_the_instructions_and_each_question_s_words(study):
    texts = source_texts(study)
    assert texts["consent_md"] == study.consent_md and texts["instructions_md"] == study.instructions_md
    assert texts["field.alignment.label"] == "Does the image match the prompt?"
    assert texts["field.alignment.help"].startswith("Image–prompt alignment")
    assert texts["field.alignment.choice.0.5.label"] == "Partially"
    assert texts["field.alignment.choice.0.5.description"].startswith("Some of the prompt")
    assert texts["field.overall.choice.3.description"] == "Acceptable"
    # a choice whose label is its own value ("1" … "5") has no words to translate
    assert "field.overall.choice.3.label" not in texts


def test_a_translated_text_replaces_the_study_s_and_a_missing_one_falls_back(ja_study):
    shown = localized(ja_study, "ja")
    assert shown.instructions_md == JA["instructions_md"]
    assert shown.consent_md == ja_study.consent_md  # no Japanese consent: the English one
    alignment = shown.spec.field("alignment")
    assert alignment.label == JA["field.alignment.label"]
    assert [c.label for c in alignment.choices] == ["いいえ", "Partially", "Completely"]
    assert alignment.help == ja_study.spec.field("alignment").help
    fallen = {t.key for t in shown.fallbacks}
    assert "consent_md" in fallen and "field.alignment.choice.0.5.label" in fallen
    assert not fallen & set(JA)
    assert shown.total == len(source_texts(ja_study)) and shown.translated == 3


def test_only_the_words_change_never_the_keys_values_or_conditions(ja_study):
    own, shown = ja_study.spec, localized(ja_study, "ja").spec
    assert [f.key for f in shown.fields] == [f.key for f in own.fields]
    for a, b in zip(own.fields, shown.fields, strict=True):
        assert (a.type, a.show_if, a.required_if, a.level) == (b.type, b.show_if, b.required_if, b.level)
        assert [c.value for c in a.choices] == [c.value for c in b.choices]
    assert shown.reports == own.reports and shown.skip == own.skip


def test_the_study_s_own_language_shows_its_own_texts_with_nothing_fallen_back(ja_study):
    shown = localized(ja_study, "en")
    assert shown.spec is ja_study.spec and shown.fallbacks == () and shown.instructions_md == ja_study.instructions_md


def test_a_language_without_translations_falls_back_for_every_text(study):
    shown = localized(study, "hi")
    assert len(shown.fallbacks) == shown.total > 10
    assert shown.spec.field("alignment").label == study.spec.field("alignment").label


def test_a_translation_of_a_text_the_protocol_no_longer_has_is_unused_and_never_shown(ja_study):
    ja_study.translations["ja"]["field.gone.label"] = "消えた質問"
    assert unused_keys(ja_study, "ja") == ["field.gone.label"]
    shown = localized(ja_study, "ja")
    assert "消えた質問" not in repr(shown.spec) and shown.translated == 3


def test_the_localized_study_is_kept_per_process_until_its_texts_or_spec_change(ja_study):
    first = localized(ja_study, "ja")
    assert localized(Study.objects.get(pk=ja_study.pk), "ja") is first  # another request's row: the same object
    ja_study.translations["ja"]["field.alignment.label"] = "一致していますか？"
    changed = localized(ja_study, "ja")
    assert changed is not first and changed.spec.field("alignment").label == "一致していますか？"
    protocol = dict(ja_study.protocol, fields=[fd for fd in ja_study.protocol["fields"] if fd["key"] != "overall"])
    protocol["reports"] = [r for r in protocol.get("reports", []) if "overall" not in str(r)]
    study_set_protocol(study=ja_study, protocol=protocol)
    assert [f.key for f in localized(ja_study, "ja").spec.fields] == [f.key for f in ja_study.spec.fields]


def test_the_fallbacks_are_summed_up_as_a_researcher_reads_them(ja_study):
    shown = localized(ja_study, "ja")
    words = translations.fallback_summary(shown.fallbacks_on("items"))
    assert words == [
        "the definition of “Does the image match the prompt?”",  # its words are translated, not its definition
        "question “What is missing or incorrect?”",
        "question “Click the words of the prompt that are not depicted well”",
        "5 more questions", "15 choices",
    ]
    assert translations.fallback_summary(shown.fallbacks_on("consent")) == ["Consent text"]
    assert translations.fallback_summary(shown.fallbacks_on("instructions")) == []


# --- the service ---


def test_saving_stores_the_typed_texts_and_an_empty_one_removes_its_translation(ja_study):
    study_translations_save(study=ja_study, language="ja", texts={
        "consent_md": "  研究への参加に同意します。 ", "field.alignment.choice.0.label": "",
    })
    stored = Study.objects.get(pk=ja_study.pk).translations["ja"]
    assert stored["consent_md"] == "研究への参加に同意します。"
    assert "field.alignment.choice.0.label" not in stored
    assert stored["field.alignment.label"] == JA["field.alignment.label"]  # not sent: kept


def test_unused_translations_are_kept_unless_asked_to_drop_them(ja_study):
    ja_study.translations["ja"]["field.gone.label"] = "消えた質問"
    ja_study.save()
    study_translations_save(study=ja_study, language="ja", texts={})
    assert "field.gone.label" in Study.objects.get(pk=ja_study.pk).translations["ja"]
    study_translations_save(study=ja_study, language="ja", texts={}, drop_unused=True)
    assert "field.gone.label" not in Study.objects.get(pk=ja_study.pk).translations["ja"]


def test_a_language_left_without_texts_is_removed(ja_study):
    study_translations_save(study=ja_study, language="ja", texts=dict.fromkeys(JA, ""))
    assert Study.objects.get(pk=ja_study.pk).translations == {}


@pytest.mark.parametrize(("language", "texts", "field", "message"), [
    ("en", {"consent_md": "x"}, "language", "the study's own language"),
    ("xx", {"consent_md": "x"}, "language", "not a language the platform offers"),
    ("ja", {"field.nope.label": "x"}, None, "has no text “field.nope.label”"),
    ("ja", {"field.alignment.label": "x" * 1001}, "field.alignment.label", "at most 1,000 characters"),
    ("ja", {"consent_md": "[" * 40}, "consent_md", "nested more than 32 deep"),
    ("ja", {"field.alignment.label": "a\x00b"}, "field.alignment.label", "NUL"),
])
def test_a_refused_save_names_its_text_and_changes_nothing(ja_study, language, texts, field, message):
    with pytest.raises(WorkspaceError) as refused:
        study_translations_save(study=ja_study, language=language, texts={"consent_md": "同意", **texts})
    assert refused.value.field == field and message in str(refused.value)
    assert Study.objects.get(pk=ja_study.pk).translations == {"ja": JA}


# --- the pages ---


def edit_url(study, language="ja"):
    return reverse("studies:translation-edit", args=[study.pk, language])


def test_the_list_puts_the_pools_languages_first_with_how_much_is_translated(client, owner, ja_study, pool):
    pool.language = "ja"
    pool.save()
    total = len(source_texts(ja_study))
    page = login(client, owner).get(reverse("studies:translation-list", args=[ja_study.pk])).content.decode()
    assert f"Japanese: 3 of {total} texts; annotators see English for {total - 3}" in page
    assert page.index(">Japanese <") < page.index(">Arabic <") < page.index(">Hindi <")  # the pool's first
    assert "India" in page and edit_url(ja_study) in page
    assert '>English <span class="muted">(en)</span>' not in page  # the study's own language is not offered


def test_the_language_page_shows_each_text_beside_the_study_s_own(client, owner, ja_study):
    page = login(client, owner).get(edit_url(ja_study)).content.decode()
    assert 'name="field.alignment.label"' in page and JA["field.alignment.label"] in page
    assert "Does the image match the prompt?" in page  # the English beside it
    assert f'hx-post="{reverse("studies:markdown-preview")}"' in page and 'id="preview-consent_md"' in page
    assert "<strong>注意深く。</strong>" in page  # the Japanese instructions, rendered


def test_the_owner_saves_and_an_unknown_field_of_the_form_is_ignored(client, owner, ja_study):
    data = {"consent_md": "同意します。", "field.alignment.label": "一致？", "field.nope.label": "x"}
    response = login(client, owner).post(edit_url(ja_study), data)
    assert response.status_code == 302 and response.url == reverse("studies:translation-list", args=[ja_study.pk])
    stored = translations.translations_in(Study.objects.get(pk=ja_study.pk), "ja")
    assert stored == {"consent_md": "同意します。", "field.alignment.label": "一致？"}  # the rest left empty: removed


def test_an_editor_saves(client, ja_study):
    editor = f.make_member(ja_study, "ed", "editor")
    assert login(client, editor).post(edit_url(ja_study), {"consent_md": "同意"}).status_code == 302
    assert translations.translations_in(Study.objects.get(pk=ja_study.pk), "ja") == {"consent_md": "同意"}


def test_a_viewer_reads_but_cannot_save(client, ja_study):
    viewer = f.make_member(ja_study, "vi", "viewer")
    login(client, viewer)
    page = client.get(edit_url(ja_study)).content.decode()
    assert "Read-only" in page and " disabled>" in page
    assert client.post(edit_url(ja_study), {"consent_md": "同意"}).status_code == 403
    assert Study.objects.get(pk=ja_study.pk).translations == {"ja": JA}


def test_another_researcher_finds_nothing(client, other_researcher, ja_study):
    login(client, other_researcher)
    assert client.get(reverse("studies:translation-list", args=[ja_study.pk])).status_code == 404
    assert client.get(edit_url(ja_study)).status_code == 404
    assert client.post(edit_url(ja_study), {"consent_md": "同意"}).status_code == 404
    assert Study.objects.get(pk=ja_study.pk).translations == {"ja": JA}


def test_a_language_not_offered_or_the_study_s_own_is_refused_with_a_message(client, owner, ja_study):
    login(client, owner)
    unknown = client.post(edit_url(ja_study, "xx"), {"consent_md": "x"})
    assert unknown.status_code == 404 and "is not a language the platform offers" in unknown.content.decode()
    own = client.post(edit_url(ja_study, "en"), {"consent_md": "x"})
    assert own.status_code == 400 and "English is the study's own language" in html.unescape(own.content.decode())
    assert Study.objects.get(pk=ja_study.pk).translations == {"ja": JA}


def test_a_refused_text_is_marked_beside_its_input_and_nothing_is_saved(client, owner, ja_study):
    response = login(client, owner).post(edit_url(ja_study), {"consent_md": "[" * 40, "instructions_md": "新しい"})
    page = response.content.decode()
    assert response.status_code == 400 and "Nothing was saved" in page
    assert page.index("nested more than 32 deep") > page.index('name="consent_md"') - 2000
    assert Study.objects.get(pk=ja_study.pk).translations == {"ja": JA}


def test_an_oversized_label_is_refused_by_the_form(client, owner, ja_study):
    response = login(client, owner).post(edit_url(ja_study), {"field.alignment.label": "x" * 1001})
    assert response.status_code == 400 and "at most 1000 characters" in response.content.decode()
    assert Study.objects.get(pk=ja_study.pk).translations == {"ja": JA}


def test_the_pool_list_and_the_dashboard_warn_of_a_pool_whose_language_misses_texts(client, owner, ja_study, pool,
                                                                                   other_pool):
    pool.language = "ja"
    pool.save()
    login(client, owner)
    missing = len(source_texts(ja_study)) - 3
    for name in ("studies:pool-list", "analysis:study-dashboard"):
        page = client.get(reverse(name, args=[ja_study.pk])).content.decode()
        assert f"India: annotators see Japanese, but {missing} of" in page and edit_url(ja_study) in page
        assert "Japan:" not in page.split("Untranslated")[-1].split("</p>")[0]  # the English pool: nothing missing


def test_no_warning_once_every_text_is_translated(client, owner, study, pool):
    pool.language = "ja"
    pool.save()
    study.translations = {"ja": {key: f"訳 {n}" for n, key in enumerate(source_texts(study))}}
    study.save()
    page = login(client, owner).get(reverse("studies:pool-list", args=[study.pk])).content.decode()
    assert "Untranslated" not in page
    assert "complete" in client.get(reverse("studies:translation-list", args=[study.pk])).content.decode()


def test_translations_into_what_became_the_study_s_language_are_kept_and_said_unused(client, owner, ja_study):
    ja_study.language = "ja"
    ja_study.save()
    assert localized(ja_study, "ja").fallbacks == () and localized(ja_study, "ja").spec is ja_study.spec
    response = login(client, owner).get(reverse("studies:translation-list", args=[ja_study.pk]))
    page = html.unescape(response.content.decode())
    assert "3 Japanese translations are kept from before Japanese became the study's language" in page
    assert '>English <span class="muted">(en)</span>' in page  # English is now a language to translate into


def test_a_translation_is_outdated_once_the_study_s_text_changes_until_retyped_or_confirmed(client, owner, study):
    study_translations_save(study=study, language="ja", texts={"consent_md": "同意", "instructions_md": "説明"})
    assert translations.outdated_keys(study, "ja") == []
    study.consent_md, study.instructions_md = "A new consent.", "New instructions."
    study.save()
    assert translations.outdated_keys(study, "ja") == ["consent_md", "instructions_md"]
    assert localized(study, "ja").consent_md == "同意"  # still shown meanwhile
    login(client, owner)
    listing = html.unescape(client.get(reverse("studies:translation-list", args=[study.pk])).content.decode())
    assert "2 outdated" in listing
    page = html.unescape(client.get(edit_url(study)).content.decode())
    assert page.count("English changed since") == 2 and 'name="confirmed" value="consent_md"' in page
    # the consent confirmed as it is, the instructions kept unconfirmed: only the consent is up to date
    client.post(edit_url(study), {"consent_md": "同意", "instructions_md": "説明", "confirmed": ["consent_md"]})
    assert translations.outdated_keys(Study.objects.get(pk=study.pk), "ja") == ["instructions_md"]
    client.post(edit_url(study), {"consent_md": "同意", "instructions_md": "新しい説明"})  # retyped
    assert translations.outdated_keys(Study.objects.get(pk=study.pk), "ja") == []


def test_the_fingerprints_are_neither_texts_nor_unused(ja_study):
    study_translations_save(study=ja_study, language="ja", texts={"consent_md": "同意"})
    saved = Study.objects.get(pk=ja_study.pk)
    assert "_source.consent_md" in saved.translations["ja"]
    assert unused_keys(saved, "ja") == [] and "_source.consent_md" not in translations.translations_in(saved, "ja")
    with pytest.raises(WorkspaceError):
        study_translations_save(study=saved, language="ja", texts={"_source.consent_md": "x"})


def test_an_unstorable_character_is_refused_by_the_form_and_nothing_is_saved(client, owner, ja_study):
    response = login(client, owner).post(edit_url(ja_study), {"consent_md": "同意\x00", "instructions_md": "説明"})
    assert response.status_code == 400 and "Null characters are not allowed" in response.content.decode()
    assert Study.objects.get(pk=ja_study.pk).translations == {"ja": JA}


def test_a_translation_of_a_text_the_study_does_not_have_is_never_shown(study):
    study.consent_md = ""
    study.translations = {"ja": {"consent_md": "同意", "field.overall.choice.3.label": "三"}}
    shown = localized(study, "ja")
    assert shown.consent_md == "" and [c.label for c in shown.spec.field("overall").choices][2] == "3"
    assert unused_keys(study, "ja") == ["consent_md", "field.overall.choice.3.label"]


def test_a_per_document_field_s_sub_questions_are_named_by_their_path():
    from studies.protocol import parse_spec
    from studies.services import preset_load
    from studies.translations import study_texts, translated_protocol

    spec = parse_spec(preset_load("ravenea-doc-relevance"))
    keys = [t.key for t in study_texts(spec, consent_md="", instructions_md="")]
    assert "field.documents/country.label" in keys and "field.documents/country.choice.yes.label" in keys
    shown = translated_protocol(spec, {"field.documents/country.choice.yes.label": "はい"})
    country = next(sub for sub in shown.field("documents").fields if sub.key == "country")
    assert [c.label for c in country.choices][0] == "はい" and country.choices[0].value == "yes"

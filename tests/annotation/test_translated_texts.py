"""The researcher's texts on the annotator's pages in the page's language: a translation where the study
gives one, the study's own text where it does not (never marked for the annotator), the same answers
stored whatever the language, no query added; the researcher's walk of the path lists what fell back."""

import html

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from annotation.models import Annotation, Assignment
from tests import factories as f
from tests.factories import valid_answers
from tests.helpers import HX, as_annotator, login

JA = {
    "consent_md": "回答が研究に使われることに同意します。",
    "instructions_md": "各画像を評価してください。**注意深く。**",
    "field.alignment.label": "画像はプロンプトに合っていますか？",
    "field.alignment.choice.0.5.label": "部分的に",
}
FALLBACK_NOTE = "no Japanese text"


@pytest.fixture
def japanese(study, pool, items):
    """The India pool's annotators see Japanese; the study gives some of its texts in Japanese."""
    pool.language = "ja"
    pool.save()
    study.translations = {"ja": dict(JA)}
    study.save()
    return pool


@pytest.fixture
def annotating(client, japanese):
    session = f.make_session(f.make_annotator(japanese))
    as_annotator(client, session)
    client.session_row = session
    return client


def page(client, name="annotation:items", **extra) -> str:
    return html.unescape(client.get(reverse(name), **extra).content.decode())


def test_the_item_page_shows_the_translation_and_the_study_s_text_where_none(annotating, study):
    shown = page(annotating)
    assert JA["field.alignment.label"] in shown and "部分的に" in shown
    assert "Does the image match the prompt?" not in shown
    assert "Image quality" in shown and "Completely" in shown  # not translated: the English
    assert FALLBACK_NOTE not in shown and "Shown in English" not in shown  # the annotator is never told


def test_consent_and_instructions_in_the_page_s_language(client, japanese, study):
    annotator = f.make_annotator(japanese, onboarded=False)
    as_annotator(client, f.make_session(annotator))
    assert JA["consent_md"] in page(client, "annotation:consent")
    assert study.consent_md not in page(client, "annotation:consent")


def test_an_untranslated_consent_is_the_study_s_own(client, japanese, study):
    study.translations["ja"].pop("consent_md")
    study.save()
    as_annotator(client, f.make_session(f.make_annotator(japanese, onboarded=False)))
    shown = page(client, "annotation:consent")
    assert study.consent_md in shown and FALLBACK_NOTE not in shown


def test_the_same_answers_are_stored_whatever_the_language(annotating, study, other_pool):
    page(annotating)
    a = Assignment.objects.get(session=annotating.session_row, status="leased")
    response = annotating.post(reverse("annotation:item-submit", args=[a.pk]), valid_answers(), **HX)
    assert response.status_code == 200
    japanese_answers = Annotation.objects.get(assignment=a).answers

    english = f.make_session(f.make_annotator(other_pool))  # the Japan pool: the study's language, English
    other = as_annotator(Client(), english)
    page(other)
    b = Assignment.objects.get(session=english, status="leased")
    other.post(reverse("annotation:item-submit", args=[b.pk]), valid_answers(), **HX)
    assert Annotation.objects.get(assignment=b).answers == japanese_answers


def test_a_refused_submit_names_the_question_in_the_page_s_language(annotating, study):
    study.translations["ja"]["field.error_types.label"] = "何が欠けているか、間違っていますか？"
    study.save()
    page(annotating)
    a = Assignment.objects.get(session=annotating.session_row, status="leased")
    response = annotating.post(reverse("annotation:item-submit", args=[a.pk]), {"alignment": ["0.5"]}, **HX)
    shown = html.unescape(response.content.decode())
    assert response.status_code == 422 and not Annotation.objects.exists()
    assert 'data-error-link><bdi>何が欠けているか、間違っていますか？</bdi></a>' in shown  # the error banner's link
    assert 'value="0.5" data-v="0.5" checked' in shown  # the answer kept by its value, not its word


def test_translations_add_no_query_to_the_item_page(annotating, django_assert_num_queries):
    # as many as in English (tests/annotation/test_item_views.py)
    with django_assert_num_queries(8 if connection.vendor == "postgresql" else 9):
        assert annotating.get(reverse("annotation:items")).status_code == 200
    with django_assert_num_queries(2):
        assert annotating.get(reverse("annotation:items"), **HX).status_code == 200


def test_the_next_item_path_keeps_its_queries_in_japanese(annotating, django_assert_num_queries):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=annotating.session_row)
    with django_assert_num_queries(13 if connection.vendor == "postgresql" else 16):  # as in English
        annotating.post(reverse("annotation:item-submit", args=[a.pk]), valid_answers(), **HX)


# --- the researcher's walk of the path ---


def preview(study, pool, step=None):
    return reverse("annotation:path-preview" + (f"-{step}" if step else ""), args=[study.pk, pool.pk])


@pytest.fixture
def walking(client, owner, japanese, study):
    f.make_mock_question(study, expected="No")
    login(client, owner)
    client.get(preview(study, japanese))
    return client


def test_the_walk_lists_the_texts_shown_in_the_study_s_language_with_the_way_to_translate(walking, study, japanese):
    walking.post(preview(study, japanese, "consent"), {"consent": "yes"})
    walking.post(preview(study, japanese, "eligibility"), {k: "yes" for k, _ in japanese.eligibility_questions()})
    instructions = html.unescape(walking.get(preview(study, japanese, "instructions")).content.decode())
    assert "<strong>注意深く。</strong>" in instructions and FALLBACK_NOTE not in instructions  # translated
    walking.post(preview(study, japanese, "instructions"))
    question = study.mock_questions.get()
    walking.post(preview(study, japanese, "mock"), {f"q{question.pk}": "No"})
    items = html.unescape(walking.get(preview(study, japanese, "items")).content.decode())
    assert "Shown in English, no Japanese text:" in items
    assert "the definition of “Does the image match the prompt?”, question “What is missing or incorrect?”" in items
    assert "5 more questions, 15 choices." in items
    assert reverse("studies:translation-edit", args=[study.pk, "ja"]) in items
    assert JA["field.alignment.label"] in items  # and the page itself is the annotators'


def test_the_walk_names_an_untranslated_consent(client, owner, japanese, study):
    study.translations["ja"].pop("consent_md")
    study.save()
    login(client, owner)
    consent = html.unescape(client.get(preview(study, japanese), follow=True).content.decode())
    assert "Shown in English, no Japanese text: Consent text." in consent


def test_a_walk_in_the_study_s_own_language_lists_nothing(client, owner, study, pool, items):
    login(client, owner)
    consent = client.get(preview(study, pool), follow=True).content.decode()
    assert "Shown in English" not in consent and "Preview — nothing is saved" in consent

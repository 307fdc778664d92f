"""The researcher's page of one item: its image, texts, candidates and documents, and every
annotation, answers shown by their field types (a per_document field's document by document); for
the study's owner and members."""

import re

import pytest
from django.urls import reverse

from studies.models import Document
from tests import factories as f
from tests.annotations import annotate, annotators
from tests.factories import add_items, preset_study

pytestmark = pytest.mark.django_db


def url(study, item):
    return reverse("annotation:study-item", args=[study.pk, item.pk])


def test_it_shows_the_image_and_each_annotation_with_its_answers(client, owner, study, pool, items):
    item = items[0]
    first, second = annotators(pool, 2)
    annotate(first, item)
    annotate(second, item, explanation="The sari colour is wrong for a wedding.")
    client.force_login(owner)

    response = client.get(url(study, item))

    assert response.status_code == 200
    html = response.content.decode()
    assert reverse("studies:item-image", args=[study.pk, item.pk]) in html
    assert "2 annotations" in html
    assert first.pseudonym in html and second.pseudonym in html
    assert "The festival food is missing entirely." in html
    assert "The sari colour is wrong for a wedding." in html
    labels = [row.label for shown in response.context["annotations"] for row in shown.answers]
    assert len(labels) == len(set(labels)) * 2, "both annotations show the same fields"


def test_a_ravenea_item_shows_its_caption_documents_and_each_documents_answers(client, owner):
    study, pool = f.ravenea(owner)
    annotation = f.annotate_ravenea(pool)[0]
    item = annotation.item
    client.force_login(owner)

    page = client.get(url(study, item)).content.decode()

    assert "A woman lights diyas on her doorstep for Diwali." in page
    for title, link, text in f.DOCUMENTS:
        assert f'<a href="{link}" target="_blank" rel="noopener noreferrer">{title}</a>' in page
        assert f"<p>{text}</p>" in page
    assert "The Wikipedia articles" in page
    labels = {"yes": "Yes", "no": "No", "cannot_determine": "Cannot be determined"}
    for entry in annotation.answers["documents"]:
        title = Document.objects.get(pk=entry["document"]).title
        country = labels[entry["country"]]
        question = "Is the topic of the Wikipedia article from the same country as the image and its caption?"
        assert re.search(rf"<dt>{title}</dt>\s*<dd>{re.escape(question)}: <strong>{country}</strong>", page)
    assert page.count("<strong>Cannot be determined</strong>") == 1  # Candle's country, in one annotation
    assert "Rangoli" in page  # the missing documents, a url_list


def test_a_culturalvqa_item_shows_its_question_reference_and_answer(client):
    study, pool = preset_study("culturalvqa-judgment")
    texts = {"question": "What is this dish called?", "reference": "Appam | Palappam", "answer": "Rice pancake"}
    item = add_items(study, 1, texts=texts)[0]
    client.force_login(study.owner)

    response = client.get(url(study, item))

    page = response.content.decode()
    for label, text in (("Question", texts["question"]), ("Reference answers", texts["reference"]),
                        ("Answer", texts["answer"])):
        assert f"<dt>{label}</dt><dd>{text}</dd>" in page


def test_a_culturalvqa_question_item_shows_its_background(client):
    study, pool = preset_study("culturalvqa-question")
    item = add_items(study, 1, texts={"background": "Onam is a harvest festival of Kerala."})[0]
    client.force_login(study.owner)
    page = client.get(url(study, item)).content.decode()
    assert "<dt>Background</dt><dd>Onam is a harvest festival of Kerala.</dd>" in page


def test_a_caption_choice_item_shows_its_candidates(client):
    study, pool = preset_study("ravenea-caption-choice")
    candidates = [{"id": "sys-a", "text": "A bowl of pho."}, {"id": "sys-b", "text": "Soup."}]
    item = add_items(study, 1, candidates=candidates)[0]
    client.force_login(study.owner)
    page = client.get(url(study, item)).content.decode()
    assert "<li><code>sys-a</code> A bowl of pho.</li>" in page and "<li><code>sys-b</code> Soup.</li>" in page


def test_an_item_without_annotations_says_so(client, owner, study, items):
    client.force_login(owner)
    assert "No annotation yet." in client.get(url(study, items[1])).content.decode()


def test_another_studys_item_is_404(client, owner, study, items, other_researcher):
    their_study = f.make_study(other_researcher)
    f.make_pool(their_study)
    theirs = f.make_items(their_study, "IN", 1)[0]
    client.force_login(owner)
    assert client.get(url(study, theirs)).status_code == 404


def test_another_researcher_and_a_checker_get_404(client, other_researcher, checker, study, items):
    for user in (other_researcher, checker):
        client.force_login(user)
        assert client.get(url(study, items[0])).status_code == 404


def test_an_anonymous_visitor_is_sent_to_log_in(client, study, items):
    response = client.get(url(study, items[0]))
    assert response.status_code == 302 and "login" in response["Location"]


def test_a_comparison_item_shows_each_image_with_its_model_to_the_studys_researchers(client, owner, other_researcher,
                                                                                       study, pool):
    import hashlib

    item = f.make_comparison_item(study, "IN", models=("sdxl", "flux"))
    client.force_login(owner)
    html = client.get(url(study, item)).content.decode()
    image = reverse("studies:item-image", args=[study.pk, item.pk])
    assert f"{image}?n=1" in html and f"{image}?n=2" in html
    assert "Image 1: sdxl" in html and "Image 2: flux" in html
    second = client.get(image, {"n": 2})
    assert hashlib.sha256(b"".join(second.streaming_content)).hexdigest() == item.images.get(position=2).sha256
    assert client.get(image, {"n": 3}).status_code == 404 and client.get(image, {"n": "x"}).status_code == 404
    client.force_login(other_researcher)  # a researcher of another study
    assert client.get(image, {"n": 1}).status_code == 404

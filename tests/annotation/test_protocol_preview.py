"""The protocol editor's annotator form: the typed spec rendered by the real field templates for a
real item of the study routed to a pool (else the made-up sample item); owner only, nothing stored."""

import json

import pytest
from django.conf import settings
from django.urls import reverse

from annotation.models import Annotation, Assignment
from studies.models import ProtocolVersion
from tests import factories as f
from tests.helpers import HX, as_annotator, login

CHOICE = {"fields": [{"key": "mood", "type": "choice", "label": "How does it feel?", "choices": ["calm", "busy"]}]}
WORDS = {"fields": [{"key": "words", "type": "highlight", "over": "prompt", "label": "Which words?"}]}


def preview(client, study, spec):
    text = spec if isinstance(spec, str) else json.dumps(spec)
    return client.post(reverse("annotation:protocol-preview", args=[study.pk]), {"spec": text}, **HX)


def test_it_renders_the_typed_spec_with_the_real_field_templates(client, owner, study):
    response = preview(login(client, owner), study, CHOICE)
    page = response.content.decode()
    assert response.status_code == 200
    assert 'name="mood"' in page and 'type="radio"' in page and "How does it feel?" in page
    assert "a made-up item" in page
    assert not ProtocolVersion.objects.exclude(spec=study.protocol).exists()


def test_it_uses_a_real_item_routed_to_a_pool(client, owner, study, pool):
    f.make_item(study, "IN", prompt="Lanterns over the river", example=True)  # never a preview's item
    [item] = f.make_items(study, "IN", 1, prompt="Kites above the rooftops")
    page = preview(login(client, owner), study, WORDS).content.decode()
    assert ">Kites</label>" in page and ">rooftops</label>" in page
    assert reverse("annotation:study-item", args=[study.pk, item.pk]) in page
    assert "Lanterns" not in page
    assert not (Assignment.objects.exists() or Annotation.objects.exists())


def test_a_real_items_documents_are_the_per_document_questions(client, owner):
    study, _ = f.ravenea(owner)  # two items routed to India, each with two documents
    page = preview(login(client, owner), study, study.protocol).content.decode()
    assert "Diwali" in page and "Candle" in page


def test_an_invalid_spec_shows_a_note_instead_of_the_form(client, owner, study):
    page = preview(login(client, owner), study, '{"fields": [}').content.decode()
    assert "once the spec has no problem" in page and "<form" not in page


def test_another_researcher_finds_no_such_page(client, other_researcher, study):
    assert preview(login(client, other_researcher), study, CHOICE).status_code == 404


@pytest.mark.parametrize("who", ["annotator", "visitor"])
def test_an_annotator_or_a_visitor_is_sent_to_log_in(client, study, session, who):
    if who == "annotator":
        as_annotator(client, session)
    response = preview(client, study, CHOICE)
    assert response.status_code == 302 and response.url.startswith(reverse(settings.LOGIN_URL))


def test_it_answers_only_a_post(client, owner, study):
    assert login(client, owner).get(reverse("annotation:protocol-preview", args=[study.pk])).status_code == 405

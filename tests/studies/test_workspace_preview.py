"""A preset's annotator form, previewed for a sample item from the New study page: the real field
templates, and nothing written to the database."""

import pytest
from django.conf import settings
from django.urls import reverse

from annotation.models import Annotation, Annotator, Assignment
from studies.models import Item, Study
from studies.protocol import parse_spec
from studies.services import preset_get, presets_list
from tests.helpers import login


def preview_url(name: str) -> str:
    return reverse("annotation:preset-preview", args=[name])


@pytest.mark.parametrize("name", [p.name for p in presets_list()])
def test_every_presets_form_renders_for_a_sample_item_and_stores_nothing(client, owner, name):
    login(client, owner)
    response = client.get(preview_url(name))
    page = response.content.decode()
    assert response.status_code == 200
    spec = parse_spec(preset_get(name).protocol)
    first = spec.fields[0]
    assert f'name="{first.key}' in page  # the field's own inputs, from its type's template
    assert 'id="item-form"' in page
    assert not Study.objects.exists() and not Item.objects.exists()
    assert not (Annotator.objects.exists() or Assignment.objects.exists() or Annotation.objects.exists())


def test_the_rating_preview_shows_the_scale_and_the_prompts_words(client, owner):
    login(client, owner)
    page = client.get(preview_url("culturalframes-rating")).content.decode()
    assert 'name="alignment"' in page and 'type="radio"' in page
    assert ">festival</label>" in page  # the highlight field's words of the sample prompt
    assert f"{reverse('studies:study-new')}?preset=culturalframes-rating" in page


def test_the_start_page_links_each_preset_to_its_preview(client, owner):
    login(client, owner)
    page = client.get(reverse("studies:study-new")).content.decode()
    for preset in presets_list():
        assert preview_url(preset.name) in page


def test_it_refuses_an_unknown_preset_a_checker_and_a_visitor(client, checker):
    response = client.get(preview_url("caire-relevance"))
    assert response.status_code == 302 and response.url.startswith(reverse(settings.LOGIN_URL))
    login(client, checker)
    assert client.get(preview_url("caire-relevance")).status_code == 404


def test_it_answers_404_for_an_unknown_preset(client, owner):
    login(client, owner)
    assert client.get(preview_url("no-such-preset")).status_code == 404

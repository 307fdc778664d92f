"""The item form's fixed fields are rendered once per process and protocol: the page must be the
same, byte for byte, as when every field is rendered afresh."""

import re
from unittest.mock import patch

import pytest
from django.urls import reverse

from annotation.templatetags import item_form
from studies.services import presets_list
from tests.helpers import HX, on_items

PRESETS = [p.name for p in presets_list()]
pytestmark = pytest.mark.django_db


def without_store():
    """Every field rendered afresh, as before the store existed."""
    return patch.object(item_form, "_fixed", lambda bf: False)


def same_page(page: str) -> str:
    """The page without what differs between two requests: the CSRF token, and the image link's
    signature (it carries the second it was signed in)."""
    page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page)
    return re.sub(r"/image\?t=[^\"]+\"", '/image?t="', page)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_page_from_the_store_is_the_page_rendered_afresh(client, preset):
    item_form._markup.clear()
    client, assignment, first = on_items(client, preset)
    panel = reverse("annotation:items")
    stored = client.get(panel, **HX).content.decode()  # now from the store, where fixed
    with without_store():
        fresh = client.get(panel, **HX).content.decode()
    assert same_page(stored) == same_page(fresh)
    assert "<fieldset" in stored


def test_fixed_fields_are_kept_and_reused(client):
    item_form._markup.clear()
    client, assignment, _ = on_items(client, "culturalframes-rating")
    spec = assignment.item.study.spec
    kept = item_form._markup[id(spec)][1]
    fixed = {name for name, _, _, _ in kept}  # (name, shown, language, label)
    assert fixed and all(f.kind.markup_is_fixed(f) for f in spec.fields if f.key in fixed)
    assert not any(f.type == "highlight" for f in spec.fields if f.key in fixed)  # the item's words are not
    with patch.object(item_form, "_render", return_value="x") as render:
        client.get(reverse("annotation:items"), **HX)
    rendered = {call.args[1].name for call in render.call_args_list}
    assert rendered.isdisjoint(fixed)  # the fixed ones came from the store


def test_a_drafted_or_refused_field_is_rendered_with_its_value(client):
    item_form._markup.clear()
    client, assignment, page = on_items(client, "culturalframes-rating")
    choice = next(f for f in assignment.item.study.spec.fields if f.type == "choice")
    token = choice.choices[0].token
    client.post(reverse("annotation:item-draft", args=[assignment.pk]), {choice.key: token})
    page = client.get(reverse("annotation:items"), **HX).content.decode()
    assert f'name="{choice.key}" value="{token}"' in page
    checked = re.search(rf'<input type="radio" name="{choice.key}" value="{re.escape(token)}"[^>]*>', page).group(0)
    assert " checked" in checked
    refused = client.post(reverse("annotation:item-submit", args=[assignment.pk]), {}, **HX).content.decode()
    assert "has-error" in refused


def test_highlight_words_are_written_as_the_template_loop_wrote_them():
    from django.template import Context, Template

    from studies.protocol import ItemContext, bind, parse_spec

    spec = parse_spec({"fields": [{"key": "words", "type": "highlight", "label": "Words", "over": "prompt"}]})
    ctx = ItemContext(texts={"prompt": "L'été: a \"red\" lantern & 2 bowls, at dusk"})
    [bf] = bind(spec, {"words": ["1", "3"]}, ctx)
    loop = Template(
        '{% for t in bf.tokens %}<input type="checkbox" class="token-input" id="{{ bf.name }}-{{ t.index }}" '
        'name="{{ bf.name }}" value="{{ t.index }}" data-v="{{ t.index }}"{% if t.index|stringformat:"d" in '
        'bf.values %} checked{% endif %}><label class="token" for="{{ bf.name }}-{{ t.index }}">{{ t.text }}'
        "</label> {% endfor %}"
    ).render(Context({"bf": bf}))
    assert item_form.highlight_tokens(bf) == loop
    assert loop.count(" checked") == 2

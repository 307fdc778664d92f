"""The item form's fields, each rendered by its type's template; a field whose empty markup is the
same for every item of a protocol (``FieldType.markup_is_fixed``) is rendered once per process and
protocol and language, then reused: most of an item page's rendering time went to the same radio buttons."""

from __future__ import annotations

from django import template
from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from studies.protocol import Bound, Protocol
from studies.protocol.types.compare import parts

register = template.Library()

SPECS_KEPT = 64  # protocols whose markup a process keeps (each a few KB)
_markup: dict[int, tuple[Protocol, dict[tuple[str, bool, str, str], SafeString]]] = {}


def _fixed(bf: Bound) -> bool:
    return not bf.values and bf.error is None and bf.field.kind.markup_is_fixed(bf.field)


def _render(context, bf: Bound) -> SafeString:
    with context.push(bf=bf):
        return mark_safe(context.template.engine.get_template(bf.template).render(context))


@register.simple_tag(takes_context=True)
def field_markup(context, bf: Bound, spec: Protocol) -> SafeString:
    """``bf``'s markup: from this process's store when the field is blank and fixed, else rendered."""
    if not _fixed(bf):
        return _render(context, bf)
    entry = _markup.get(id(spec))
    if entry is None or entry[0] is not spec:  # (the spec is kept in the entry, so its id is not reused)
        if len(_markup) >= SPECS_KEPT:
            _markup.clear()
        entry = _markup[id(spec)] = (spec, {})
    # The markup holds the page language's words, and the label (an attention check's adds its instruction).
    key = (bf.name, bf.shown, translation.get_language(), bf.field.label)
    html = entry[1].get(key)
    if html is None:
        html = entry[1][key] = _render(context, bf)
    return html


@register.simple_tag
def highlight_tokens(bf: Bound) -> SafeString:
    """A highlight field's words as checkboxes with their labels, each followed by a space: written
    here rather than in a template loop, where a prompt's words cost ten variable lookups each."""
    name, ticked = escape(bf.name), {str(v) for v in bf.values}
    return mark_safe("".join(
        f'<input type="checkbox" class="token-input" id="{name}-{t.index}" name="{name}" value="{t.index}" '
        f'data-v="{t.index}"{" checked" if str(t.index) in ticked else ""}>'
        f'<label class="token" for="{name}-{t.index}">{escape(t.text)}</label> '
        for t in bf.tokens
    ))


@register.filter
def posted(values, part) -> str:
    """The value a field posted under several form names holds for one ``part``, its values being
    ``"<part>=<value>"`` texts (a comparison field's: ``studies.protocol.types.compare``); "" for none."""
    return parts(values).get(str(part), "")

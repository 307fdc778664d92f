"""``{% page_messages %}``: the annotator's scripts' words in the page's language, as JSON."""

from django import template
from django.utils import translation
from django.utils.html import json_script

from ..page_messages import page_messages as messages_in

register = template.Library()


@register.simple_tag
def page_messages():
    return json_script(messages_in(translation.get_language() or "en"), "ui-messages")

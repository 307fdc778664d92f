import json

from django import template
from django.utils.html import escape

from studies.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text):
    return render_markdown(text)


@register.filter
def as_json(value):
    """JSON for an HTML attribute (escaped)."""
    return escape(json.dumps(value))

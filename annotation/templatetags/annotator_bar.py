"""What the annotator's bar reads beyond the page's context."""

from django import template
from django.conf import settings

from ..selectors import OtherStudy, other_studies

register = template.Library()


@register.simple_tag
def studies_also_open(request) -> list[OtherStudy]:
    """The other studies this browser holds an open session of (``selectors.other_studies``)."""
    return other_studies(request)


@register.simple_tag
def language_choices() -> list[tuple[str, str]]:
    """The languages of the bar's menu, each in its own words ("English" on an Arabic page too), unlike
    Django's ``get_available_languages``, which translates them into the page's language."""
    return list(settings.LANGUAGES)

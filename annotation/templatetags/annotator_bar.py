"""What the annotator's bar reads beyond the page's context."""

from django import template

from ..selectors import OtherStudy, other_studies

register = template.Library()


@register.simple_tag
def studies_also_open(request) -> list[OtherStudy]:
    """The other studies this browser holds an open session of (``selectors.other_studies``)."""
    return other_studies(request)

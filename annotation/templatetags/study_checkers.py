"""The members page's checkers section (a studies page showing annotation's rows, so the imports
still point one way)."""

from django import template

from ..members import checkers_of

register = template.Library()


@register.inclusion_tag("annotation/_checkers.html")
def study_checkers(study):
    return {"study": study, "checkers": checkers_of(study=study)}

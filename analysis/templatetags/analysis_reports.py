"""The reports section of the analysis page: which fragment shows each report's result."""

from django import template

from analysis.reports import report_template as _template

register = template.Library()


@register.filter
def report_template(kind: str) -> str:
    """The fragment its kind names (``stats.reports.catalog``); "" for a kind no longer implemented."""
    return _template(kind)

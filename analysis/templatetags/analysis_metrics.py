"""The metric section of the analysis page: the study's latest upload."""

from django import template

from analysis.metrics import metric_upload_latest as _latest

register = template.Library()


@register.simple_tag
def metric_upload_latest(study):
    """The upload the next analysis will use (one query)."""
    return _latest(study=study)


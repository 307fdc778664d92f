"""The export section, drawn where a page includes it (the analysis page, and its status fragment
once a run ends): the analysis app's pages show it without importing this app."""

from django import template

from exports.formats import FORMATS, ExportFormat
from exports.selectors import export_panel as panel_of

register = template.Library()


@register.inclusion_tag("exports/_export_panel.html", takes_context=True)
def export_panel(context, study, fingerprint=None, oob=False):
    """The panel of ``study`` against ``fingerprint`` (the page's read of the current data)."""
    return {
        "study": study, "panel": panel_of(study=study, fingerprint=fingerprint), "oob": oob,
        "csrf_token": context.get("csrf_token"), "request": context.get("request"),
    }


@register.filter
def export_format(job) -> ExportFormat | None:
    """The catalog's format of an export job (its label, what its ZIP holds)."""
    return FORMATS.get(job.format)

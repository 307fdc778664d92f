"""Tables of the analysis page: how many rows a table of the result has, cut or not."""

from django import template

register = template.Library()


@register.filter
def table_total(res, key: str = "rows") -> int:
    """The length of ``res[key]`` in the whole result: ``<key>_total`` where the page's summary
    cut the table (``stats.summary``), else the table's own length."""
    if not isinstance(res, dict):
        return 0
    total = res.get(f"{key}_total")
    return total if total is not None else len(res.get(key) or ())

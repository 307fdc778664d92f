"""Tables of the analysis page: the rows a table shows, and how many it has, cut or not."""

from django import template

from stats.summary import HEAD

register = template.Library()


@register.filter
def head(rows) -> list:
    """The first rows of a table, as many as the page shows of any table (``stats.summary.HEAD``)."""
    return list(rows or ())[:HEAD]


@register.simple_tag
def head_rows() -> int:
    """How many rows the page shows of a long table."""
    return HEAD


@register.filter
def table_total(res, key: str = "rows") -> int:
    """The length of ``res[key]`` in the whole result: ``<key>_total`` where the page's summary
    cut the table (``stats.summary``), else the table's own length."""
    if not isinstance(res, dict):
        return 0
    total = res.get(f"{key}_total")
    return total if total is not None else len(res.get(key) or ())

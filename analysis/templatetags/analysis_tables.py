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


@register.filter
def win_matrix(fit) -> dict:
    """A Bradley–Terry fit's win rates (``things``, ``win_rates`` of its ``as_dict``) as a matrix,
    models in rank order: ``{"models": [...], "rows": [(model, [(rate %, n) or None per model])]}``;
    no rows where the fit has no win rates (best–worst, rankings, or no fit)."""
    if not isinstance(fit, dict) or not fit.get("win_rates"):
        return {"models": [], "rows": []}
    models = sorted(fit.get("things") or {}, key=lambda m: (fit["things"][m].get("rank") or 0, str(m)))
    cells = {(w["thing"], w["over"]): (round(100 * w["rate"]), w["n"]) for w in fit["win_rates"]}
    return {"models": models, "rows": [(m, [cells.get((m, o)) for o in models]) for m in models]}

"""What the analysis page shows of a result: the same document with each long table cut to its
first rows. Pure: no Django.

A million ratings make a result of about 18 MB, nearly all of it tables of one row per (item,
country) or per rater; the page shows the first 20 rows of each and the plots are drawn from
figures the analysis computed (histograms), so the page reads this summary and the JSON download
serves the whole result.
"""

from __future__ import annotations

from typing import Any

TABLE_KEYS = ("rows", "raters")  # the lists of table rows a result holds
KEEP_WHOLE = 1_000  # a table up to this long is kept whole (some plots draw every row)
HEAD = 20  # rows kept of a longer table, as the page shows them


def page_summary(result: Any, *, keep_whole: int = KEEP_WHOLE, head: int = HEAD) -> Any:
    """``result`` with every table (a list under a key of ``TABLE_KEYS``) longer than
    ``keep_whole`` cut to its first ``head`` rows, and ``<key>_total`` giving its length. Other
    values are shared with ``result``, not copied."""
    if isinstance(result, list):
        return [page_summary(x, keep_whole=keep_whole, head=head) for x in result]
    if not isinstance(result, dict):
        return result
    out: dict[str, Any] = {}
    for key, value in result.items():
        if key in TABLE_KEYS and isinstance(value, list) and len(value) > keep_whole:
            out[key] = value[:head]
            out[f"{key}_total"] = len(value)
        else:
            out[key] = page_summary(value, keep_whole=keep_whole, head=head)
    return out

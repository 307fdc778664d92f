"""``url_list``: articles, each a title and a web address."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..gold import at_least, jaccard, share_problem
from ..web import web_address
from .base import FieldType, ShownAnswer, json_cell, mappings


class UrlListType(FieldType):
    """Pairs of title and URL, posted as ``<name>.title`` and ``<name>.url`` lists; stored as
    ``[{"title", "url"}, …]`` and exported as that JSON list."""

    name = "url_list"
    shortcuts = frozenset({"typing"})
    plain_export = False
    required_text = "Give at least one article."
    script = "annotation/url_list.js"

    def form_names(self, name):
        return (f"{name}.title", f"{name}.url")

    def raw_from(self, data, name):
        titles, urls = list(data.get(f"{name}.title", [])), list(data.get(f"{name}.url", []))
        width = max(len(titles), len(urls))
        titles += [""] * (width - len(titles))
        urls += [""] * (width - len(urls))
        return [(t.strip(), u.strip()) for t, u in zip(titles, urls) if t.strip() or u.strip()]

    def parse(self, f, raw, ctx, answers):
        out = []
        for n, (title, url) in enumerate(raw, start=1):
            if not title:
                raise ValueError(f"Row {n}: give the article's title.")
            if web_address(url) is None:
                raise ValueError(f"Row {n}: '{url}' is not a web address (it starts with https://).")
            out.append({"title": title, "url": url})
        if f.min and len(out) < f.min:
            raise ValueError(f"Give at least {f.min} article{'s' if f.min > 1 else ''}.")
        if f.max and len(out) > f.max:
            raise ValueError(f"Give at most {f.max} articles.")
        return out

    def gold_tolerance_problem(self, f, tolerance):
        return share_problem(tolerance, "the least Jaccard overlap of the web addresses given")

    def gold_matches(self, f, given, expected, tolerance):
        """The same web addresses, titles aside (``address_key``: scheme and host in any case, no
        "#part", no closing "/"); with a tolerance, a Jaccard overlap of the addresses at least it."""
        overlap = jaccard(_addresses(given), _addresses(expected))
        return overlap == 1.0 if tolerance is None else at_least(overlap, tolerance)

    def export_cells(self, f, value):
        if value is None:
            return {}
        return {f.key: json_cell([{"title": r.get("title", ""), "url": r.get("url", "")} for r in mappings(value)])}

    def export_values(self, f, value):
        if value is None:
            return {}
        return {f.key: [{"title": str(r.get("title", "")), "url": str(r.get("url", ""))} for r in mappings(value)]}

    def export_arrow(self, f):
        import pyarrow as pa

        return {f.key: pa.list_(pa.struct([("title", pa.string()), ("url", pa.string())]))}

    def show_answer(self, f, value, *, candidates=()):
        links = tuple((str(e.get("title", "")), str(e.get("url", ""))) for e in value if isinstance(e, dict))
        return ShownAnswer(text="" if links else "none", links=links)


def address_key(url: str) -> str:
    """A web address as gold compares it: scheme and host lower case, without its "#part" or a
    closing "/"."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}{query}"


def _addresses(value) -> set[str]:
    return {address_key(str(r.get("url", ""))) for r in mappings(value)}

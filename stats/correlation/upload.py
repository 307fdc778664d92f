"""The researcher's metric file: parsed into typed rows, or refused with the lines at fault.

Refused, the whole file (``MetricCSVError``, one message per bad line, naming it): a header without
the item, metric or score column; an empty item id or metric name; a score that is not a finite
number (empty, ``nan`` and ``inf`` included: leave such a line out instead); a line with more
cells than the header; a second score for the same (item, country, metric); no score at all; a
file none of whose item ids is an item of the study (the wrong id column, surely).

Accepted, reported (``unknown_items``, ``unknown_countries``: a count and a few examples): lines
naming an item (or country) the study does not have. Metric files often cover more items than were
annotated; those lines are left out, not fatal.

Pure: no Django.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from studies.protocol.safetext import text_problem

HEADER_NAMES = {
    "item": ("item", "item_id", "id", "image", "image_id", "external_id"),
    "country": ("country", "country_code", "pool"),
    "metric": ("metric", "metric_name", "name"),
    "score": ("score", "value"),
}
MAX_EXAMPLES = 5


class MetricCSVError(ValueError):
    """An upload refused as a whole; ``errors`` holds one message per problem, naming its line."""

    def __init__(self, errors: Sequence[str], total: int | None = None):
        self.errors = list(errors)
        self.total = total if total is not None else len(self.errors)
        more = self.total - len(self.errors)
        text = "; ".join(self.errors) + (f"; and {more} more problem{'s' if more != 1 else ''}" if more > 0 else "")
        super().__init__(text)


@dataclass(frozen=True)
class MetricScores:
    """The scores of an upload: rows of (item, country or None, metric, score), in file order."""

    rows: list[tuple[Any, str | None, str, float]]
    metrics: list[str]  # in order of first appearance
    lines: int  # data lines read (blank lines not counted)
    unknown_items: int = 0  # lines left out: the item is not the study's
    unknown_item_examples: list[str] = field(default_factory=list)
    unknown_countries: int = 0  # lines left out: the country is not one of the study's
    unknown_country_examples: list[str] = field(default_factory=list)
    ignored_columns: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A summary (the rows are not repeated)."""
        d = asdict(self)
        d.pop("rows")
        d["scores"] = len(self.rows)
        return d


def _header_key(cell: str) -> str:
    return cell.strip().lower().replace(" ", "_").replace("-", "_")


def _text(source: str | bytes | Iterable[str]) -> Iterable[str]:
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise MetricCSVError(["the file is not UTF-8 text: save it as CSV (UTF-8)"]) from None
    if isinstance(source, str):
        return io.StringIO(source.lstrip("\ufeff"), newline="")
    return source


def _columns(header: list[str]) -> tuple[dict[str, int], list[str]]:
    known = {alias: name for name, aliases in HEADER_NAMES.items() for alias in aliases}
    columns: dict[str, int] = {}
    ignored, errors = [], []
    for i, cell in enumerate(header):
        name = known.get(_header_key(cell))
        if name is None:
            if cell.strip():
                ignored.append(cell.strip())
        elif name in columns:
            errors.append(
                f"line 1: two columns mean the {name} ('{header[columns[name]].strip()}' and '{cell.strip()}')"
            )
        else:
            columns[name] = i
    missing = [name for name in ("item", "metric", "score") if name not in columns]
    if missing:
        errors.append(
            f"line 1: the header must name the columns item, metric and score (country is optional); "
            f"missing: {', '.join(missing)}"
        )
    if errors:
        raise MetricCSVError(errors)
    return columns, ignored


def _dialect(first_line: str) -> str:
    if "," not in first_line:
        for delimiter in ("\t", ";"):
            if delimiter in first_line:
                return delimiter
    return ","


def parse_metric_csv(
    source: str | bytes | Iterable[str],
    *,
    items: Mapping[str, Any] | Collection[str] | None = None,
    countries: Collection[str] | None = None,
    max_errors: int = 20,
) -> MetricScores:
    """Read an uploaded metric file (comma-, tab- or semicolon-separated, UTF-8) into typed rows.

    ``items``: the study's item ids as written in the file (its ``external_id``), either a mapping to
    the id the human rows use (e.g. the item's primary key) or a collection (ids kept as written);
    None keeps every item. ``countries``: the study's country codes; matched case-insensitively and
    written as given here. Raises ``MetricCSVError`` (at most ``max_errors`` messages, and the total)
    on a refused file; see the module's docstring for what is refused and what is only reported.
    """
    lines = iter(_text(source))
    first = ""
    buffered: list[str] = []
    for line in lines:
        buffered.append(line)
        if line.strip():
            first = line
            break
    reader = csv.reader(_chain(buffered, lines), delimiter=_dialect(first))
    header = next((row for row in reader if any(c.strip() for c in row)), None)
    if header is None:
        raise MetricCSVError(["the file is empty: it needs a header (item, country, metric, score) and scores"])
    columns, ignored = _columns(header)
    item_map = items if isinstance(items, Mapping) else ({i: i for i in items} if items is not None else None)
    country_map = {c.strip().lower(): c for c in countries} if countries is not None else None

    rows: list[tuple[Any, str | None, str, float]] = []
    metrics: dict[str, None] = {}
    seen: dict[tuple[str, str | None, str], int] = {}
    errors: list[str] = []
    total_errors = 0
    data_lines = 0
    unknown_items: dict[str, None] = {}
    unknown_countries: dict[str, None] = {}
    n_unknown_items = n_unknown_countries = 0

    def error(message: str) -> None:
        nonlocal total_errors
        total_errors += 1
        if len(errors) < max_errors:
            errors.append(message)

    for row in reader:
        if not any(c.strip() for c in row):
            continue
        data_lines += 1
        at = f"line {reader.line_num}"
        if len(row) > len(header):
            error(f"{at}: {len(row)} cells, but the header has {len(header)}")
            continue
        cell = {name: (row[i].strip() if i < len(row) else "") for name, i in columns.items()}
        item, metric, raw_score = cell["item"], cell["metric"], cell["score"]
        country = cell.get("country") or None
        problems = []
        if not item:
            problems.append("the item id is empty")
        if not metric:
            problems.append("the metric name is empty")
        unstorable = text_problem(" ".join((item, metric, country or "")))
        if unstorable:
            problems.append(unstorable)
        try:
            score = float(raw_score)
            if not math.isfinite(score):
                problems.append(f"the score '{raw_score}' is not a finite number")
        except ValueError:
            problems.append(f"the score '{raw_score}' is not a number" if raw_score else "the score is empty")
        if problems:
            error(f"{at}: {'; '.join(problems)}")
            continue
        key = (item, country.lower() if country else None, metric)
        if key in seen:
            where = f"item {item}" + (f", country {country}" if country else "")
            error(f"{at}: a second score for {where}, metric {metric} (the first is on line {seen[key]})")
            continue
        seen[key] = reader.line_num
        if item_map is not None and item not in item_map:
            n_unknown_items += 1
            if len(unknown_items) < MAX_EXAMPLES:
                unknown_items[item] = None
            continue
        if country is not None and country_map is not None:
            if country.lower() not in country_map:
                n_unknown_countries += 1
                if len(unknown_countries) < MAX_EXAMPLES:
                    unknown_countries[country] = None
                continue
            country = country_map[country.lower()]
        metrics[metric] = None
        rows.append((item_map[item] if item_map is not None else item, country, metric, score))

    if total_errors:
        raise MetricCSVError(errors, total_errors)
    if data_lines == 0:
        raise MetricCSVError(["the file has a header but no scores"])
    if not rows and n_unknown_items:
        raise MetricCSVError([(
            f"none of the {n_unknown_items} item ids is an item of this study "
            f"(e.g. {', '.join(unknown_items)}): use the item ids of the study's import file"
        )])
    return MetricScores(
        rows=rows,
        metrics=list(metrics),
        lines=data_lines,
        unknown_items=n_unknown_items,
        unknown_item_examples=list(unknown_items),
        unknown_countries=n_unknown_countries,
        unknown_country_examples=list(unknown_countries),
        ignored_columns=ignored,
    )


def _chain(first: list[str], rest: Iterable[str]) -> Iterable[str]:
    yield from first
    yield from rest



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
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
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
    lines = _lines(source)
    _, header = next(lines, (0, None))
    if header is None:
        raise MetricCSVError(["the file is empty: it needs a header (item, country, metric, score) and scores"])
    columns, ignored = _columns(header)
    scores = _Scores(
        columns=columns,
        width=len(header),
        item_map=items if isinstance(items, Mapping) else ({i: i for i in items} if items is not None else None),
        country_map={c.strip().lower(): c for c in countries} if countries is not None else None,
        errors=_Errors(limit=max_errors),
    )
    for line_num, row in lines:
        scores.add(row, line_num)
    return scores.result(ignored)


def _lines(source: str | bytes | Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """The file's rows that are not blank, each with its line number; the delimiter is guessed from
    the first line that is not blank."""
    lines = iter(_text(source))
    first = ""
    buffered: list[str] = []
    for line in lines:
        buffered.append(line)
        if line.strip():
            first = line
            break
    reader = csv.reader(_chain(buffered, lines), delimiter=_dialect(first))
    for row in reader:
        if any(c.strip() for c in row):
            yield reader.line_num, row


def _score(item: str, metric: str, country: str | None, raw_score: str) -> tuple[float, list[str]]:
    """A line's score, and what is wrong with its cells: an empty id or name, text that cannot be
    stored, a score that is not a finite number."""
    problems = []
    if not item:
        problems.append("the item id is empty")
    if not metric:
        problems.append("the metric name is empty")
    unstorable = text_problem(" ".join((item, metric, country or "")))
    if unstorable:
        problems.append(unstorable)
    score = math.nan
    try:
        score = float(raw_score)
        if not math.isfinite(score):
            problems.append(f"the score '{raw_score}' is not a finite number")
    except ValueError:
        problems.append(f"the score '{raw_score}' is not a number" if raw_score else "the score is empty")
    return score, problems


@dataclass
class _Errors:
    """The problems found: every one counted, the first ``limit`` kept."""

    limit: int
    kept: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, message: str) -> None:
        self.total += 1
        if len(self.kept) < self.limit:
            self.kept.append(message)


@dataclass
class _LeftOut:
    """Lines left out for naming what the study does not have: how many, and a few of the names."""

    count: int = 0
    examples: dict[str, None] = field(default_factory=dict)

    def add(self, name: str) -> None:
        self.count += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples[name] = None


@dataclass
class _Scores:
    """The scores read so far, and the lines refused or left out."""

    columns: dict[str, int]
    width: int  # the header's cells
    item_map: Mapping[str, Any] | None
    country_map: dict[str, str] | None
    errors: _Errors
    rows: list[tuple[Any, str | None, str, float]] = field(default_factory=list)
    metrics: dict[str, None] = field(default_factory=dict)
    seen: dict[tuple[str, str | None, str], int] = field(default_factory=dict)
    lines: int = 0
    unknown_items: _LeftOut = field(default_factory=_LeftOut)
    unknown_countries: _LeftOut = field(default_factory=_LeftOut)

    def add(self, row: list[str], line_num: int) -> None:
        """One data line: kept, refused (an error naming it) or left out (counted)."""
        self.lines += 1
        at = f"line {line_num}"
        if len(row) > self.width:
            self.errors.add(f"{at}: {len(row)} cells, but the header has {self.width}")
            return
        cell = {name: (row[i].strip() if i < len(row) else "") for name, i in self.columns.items()}
        item, metric, raw_score = cell["item"], cell["metric"], cell["score"]
        country = cell.get("country") or None
        score, problems = _score(item, metric, country, raw_score)
        if problems:
            self.errors.add(f"{at}: {'; '.join(problems)}")
            return
        if self._repeated(at, line_num, item, country, metric) or self._left_out(item, country):
            return
        self.metrics[metric] = None
        kept_item = self.item_map[item] if self.item_map is not None else item
        self.rows.append((kept_item, self._country(country), metric, score))

    def _repeated(self, at: str, line_num: int, item: str, country: str | None, metric: str) -> bool:
        """Is this a second score for its (item, country, metric)? Refused if so, else noted."""
        key = (item, country.lower() if country else None, metric)
        if key in self.seen:
            where = f"item {item}" + (f", country {country}" if country else "")
            first = self.seen[key]
            self.errors.add(f"{at}: a second score for {where}, metric {metric} (the first is on line {first})")
            return True
        self.seen[key] = line_num
        return False

    def _left_out(self, item: str, country: str | None) -> bool:
        """Does the line name an item or a country the study does not have? Counted if so."""
        if self.item_map is not None and item not in self.item_map:
            self.unknown_items.add(item)
            return True
        if country is not None and self.country_map is not None and country.lower() not in self.country_map:
            self.unknown_countries.add(country)
            return True
        return False

    def _country(self, country: str | None) -> str | None:
        """The country as the study writes it."""
        if country is not None and self.country_map is not None:
            return self.country_map[country.lower()]
        return country

    def result(self, ignored: list[str]) -> MetricScores:
        """The scores, or the file refused: any error, no score line, or none of its items the study's."""
        if self.errors.total:
            raise MetricCSVError(self.errors.kept, self.errors.total)
        if self.lines == 0:
            raise MetricCSVError(["the file has a header but no scores"])
        if not self.rows and self.unknown_items.count:
            raise MetricCSVError([(
                f"none of the {self.unknown_items.count} item ids is an item of this study "
                f"(e.g. {', '.join(self.unknown_items.examples)}): use the item ids of the study's import file"
            )])
        return MetricScores(
            rows=self.rows,
            metrics=list(self.metrics),
            lines=self.lines,
            unknown_items=self.unknown_items.count,
            unknown_item_examples=list(self.unknown_items.examples),
            unknown_countries=self.unknown_countries.count,
            unknown_country_examples=list(self.unknown_countries.examples),
            ignored_columns=ignored,
        )


def _chain(first: list[str], rest: Iterable[str]) -> Iterable[str]:
    yield from first
    yield from rest



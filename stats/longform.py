"""Agreement on data collected elsewhere: a long-format CSV of ``unit,rater,value``. No Django.

Used by ``python manage.py analyse --csv FILE --level LEVEL``. Every problem names its line; an
empty value is a missing rating.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .agreement import (
    AC_WEIGHTS,
    GWET_WEIGHTS,
    ICC_LEVELS,
    LEVELS,
    alpha,
    cohen_kappa,
    fleiss_kappa,
    gwet,
    icc,
    percent_agreement,
)

COLUMNS = ("unit", "rater", "value")
METRICS = ("alpha", "ac1", "ac2", "icc", "cohen", "fleiss", "percent")


class LongFormError(ValueError):
    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors[:5]))
        self.errors = errors


@dataclass(frozen=True)
class LongData:
    ratings: dict[tuple[str, str], str]  # (unit, rater) → value
    units: list[str]
    raters: list[str]


def csv_rows(
    path: Path, columns: tuple[str, ...], *, need: str, optional: tuple[str, ...] = (),
    error: type[LongFormError] = LongFormError,
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, {column: its stripped text}) of each row of a UTF-8 CSV (a BOM allowed, header names
    stripped) with ``columns``, and those of ``optional`` it has; ``error`` for a missing column
    (``need`` says which the file must have) or a file that cannot be read."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in reader.fieldnames or []]
            missing = [c for c in columns if c not in header]
            if missing:
                raise error([f"line 1: missing column(s) {', '.join(missing)} (need {need})"])
            reader.fieldnames = header
            wanted = [*columns, *(c for c in optional if c in header)]
            for row in reader:
                yield reader.line_num, {c: str(row.get(c) or "").strip() for c in wanted}
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise error([f"{path.name}: cannot be read as a UTF-8 CSV file ({exc})"]) from None


def read_long_csv(path: Path) -> LongData:
    errors: list[str] = []
    ratings: dict[tuple[str, str], str] = {}
    first_line: dict[tuple[str, str], int] = {}
    for line, cells in csv_rows(path, COLUMNS, need="unit,rater,value"):
        unit, rater, value = (cells[c] for c in COLUMNS)
        if not unit or not rater:
            errors.append(f"line {line}: 'unit' and 'rater' must not be empty")
            continue
        if (unit, rater) in first_line:
            errors.append(
                f"line {line}: a second rating of unit {unit!r} by {rater!r} "
                f"(first on line {first_line[(unit, rater)]})"
            )
            continue
        first_line[(unit, rater)] = line
        if value:
            ratings[(unit, rater)] = value
    if errors:
        raise LongFormError(errors)
    if not ratings:
        raise LongFormError([f"{path.name}: no ratings"])
    return LongData(ratings, sorted({u for u, _ in ratings}), sorted({r for _, r in ratings}))


def value_domain(data: LongData, level: str) -> list[Any]:
    """The values in order: numbers for ordinal/interval/ratio (each value must be one), else text."""
    values = sorted(set(data.ratings.values()))
    if level == "nominal":
        return values
    bad = [v for v in values if not _is_number(v)]
    if bad:
        raise LongFormError([f"a {level} analysis needs numeric values; not numbers: {', '.join(bad[:5])}"])
    return sorted({float(v) for v in values})


def counts_matrix(data: LongData, domain: list[Any]) -> np.ndarray:
    index = {v: i for i, v in enumerate(domain)}
    units = {u: i for i, u in enumerate(data.units)}
    numeric = not isinstance(domain[0], str)
    counts = np.zeros((len(units), len(domain)), dtype=np.int64)
    for (unit, _), value in data.ratings.items():
        counts[units[unit], index[float(value) if numeric else value]] += 1
    return counts


def analyse_long(data: LongData, *, level: str, metric: str = "alpha", weights: str | None = None,
                 n_resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """``metric`` on ``data`` at ``level``. ``weights``: Cohen's kappa's (default none) or AC2's
    (default as the level allows: ordinal weights for ordinal, quadratic for interval and ratio)."""
    if level not in LEVELS:
        raise LongFormError([f"unknown level {level!r} (known: {', '.join(LEVELS)})"])
    if metric not in METRICS:
        raise LongFormError([f"unknown metric {metric!r} (known: {', '.join(METRICS)})"])
    weights = _weights(metric, level, weights)
    domain = value_domain(data, level)
    base = {"metric": metric, "level": level, "units": len(data.units), "raters": len(data.raters),
            "ratings": len(data.ratings), "values": domain}
    if metric == "icc":
        return {**base, **icc(ratings_matrix(data)).as_dict()}
    if metric in ("ac1", "ac2"):
        try:
            figures = gwet(counts_matrix(data, domain), domain, weights=weights).as_dict()
        except ValueError as exc:
            raise LongFormError([str(exc)]) from None
        return {**base, metric: figures.pop("value"), **figures}
    if metric == "cohen":
        if len(data.raters) != 2:
            raise LongFormError([f"Cohen's kappa compares two raters; this file has {len(data.raters)}"])
        first, second = data.raters
        numeric = level != "nominal"
        def label(u, r):
            v = data.ratings.get((u, r))
            return None if v is None else (float(v) if numeric else v)
        a = [label(u, first) for u in data.units]
        b = [label(u, second) for u in data.units]
        result = cohen_kappa(a, b, weights=weights, categories=domain)
        return {**base, "weights": weights, "raters_compared": [first, second], **result.as_dict()}
    counts = counts_matrix(data, domain)
    if metric == "fleiss":
        try:
            return {**base, **fleiss_kappa(counts).as_dict()}
        except ValueError as exc:  # uneven raters per unit
            raise LongFormError([str(exc)]) from None
    if metric == "percent":
        return {**base, **percent_agreement(counts).as_dict()}
    coefficient = alpha(counts, level, domain, n_raters=len(data.raters), n_resamples=n_resamples, seed=seed)
    return {**base, **coefficient.as_dict()}


def _weights(metric: str, level: str, weights: str | None) -> str:
    """The weights ``metric`` uses at ``level``, or the problem (a LongFormError)."""
    if metric == "ac1":
        if weights not in (None, "none"):
            raise LongFormError([f"AC1 has no weights ({weights!r} given): use --metric ac2 --weights {weights}"])
        return "none"
    if metric == "ac2":
        weights = weights or AC_WEIGHTS[level]  # as the level allows
        if weights not in GWET_WEIGHTS:
            raise LongFormError([f"unknown weights {weights!r} for AC2 (known: {', '.join(GWET_WEIGHTS)})"])
        if weights != "none" and level == "nominal":
            raise LongFormError([f"{weights} weights need ordered values: a nominal analysis has none (use ac1)"])
        return weights
    if metric == "icc" and level not in ICC_LEVELS:
        raise LongFormError([f"the intraclass correlation needs interval or ratio values, not {level}"])
    weights = weights or "none"
    if weights != "none" and metric != "cohen":
        raise LongFormError([f"--weights applies to cohen and ac2, not to {metric}"])
    if weights not in ("none", "linear", "quadratic"):
        raise LongFormError([f"unknown weights {weights!r} for Cohen's kappa (known: none, linear, quadratic)"])
    return weights


def ratings_matrix(data: LongData) -> np.ndarray:
    """Units × raters, each rating a number (NaN where a rater did not rate a unit)."""
    units = {u: i for i, u in enumerate(data.units)}
    raters = {r: i for i, r in enumerate(data.raters)}
    out = np.full((len(units), len(raters)), np.nan)
    for (unit, rater), value in data.ratings.items():
        out[units[unit], raters[rater]] = float(value)
    return out


def _is_number(text: str) -> bool:
    try:
        return np.isfinite(float(text))
    except ValueError:
        return False

"""Gold labels per field, by its level of measurement. Pure: no Django.

``field_gold`` takes one field's ratings as a frame with the columns item, country, annotator and
value (the stored answer, None where the annotator gave none) and returns one row per (item,
country) and one per item. Each field type says what its answers count as
(``FieldType.gold_votes``: a choice one vote, a multi a vote per option; ``FieldType.gold_number``:
a scale its point, an ordinal choice its rank in the domain). A missing answer is not a rating.
Annotators in ``excluded`` (flagged by a checker, left out by the researcher) are left out first.

Columns of a row (``GOLD_COLUMNS``; a unit is one (item, country), or one item):

- ``document``: None but for a sub-field of a per_document field (``stats.gold.study``), whose
  unit is an (item, document) pair within a country, or pooled;
- ``field``: the key, or ``key.option`` for one option of a multi;
- ``level``, ``n`` (ratings counted), ``agreement`` (the share of pairs of ratings that are equal;
  None with fewer than two ratings);
- nominal: ``majority`` (None on a tie), ``tie``, ``tied`` (the labels sharing the most votes,
  joined by "|"), ``majority_share`` (the top label's votes / n);
- where the field's type reads its answers as categories (``FieldType.gold_categorical``: every
  nominal field, and an ordinal one with a fixed domain, its points or options as categories),
  Dawid–Skene (``stats.gold.dawid_skene``) fitted over the field's units: ``ds_label`` and
  ``ds_probability``;
- ordinal: ``median``, ``mean``; interval and ratio: also ``sd`` (sample) and the 95% t interval
  ``ci_low``, ``ci_high`` (None with a single rating: nothing to estimate a spread from).

Dawid–Skene is fitted per part twice: over (item, country) units for ``by_country`` and over items
for ``by_item``; each annotator's competence (from the first fit) is in ``annotators``, for an
ordinal field as for a nominal one. With few
ratings per annotator its estimates are loose: the majority stays beside it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from studies.protocol import Field

from ..reports.common import column_values
from .dawid_skene import dawid_skene

NOMINAL, ORDINAL = "nominal", "ordinal"
GOLD_COLUMNS = (
    "item", "country", "document", "field", "level", "n", "agreement", "majority", "tie", "tied", "majority_share",
    "ds_label", "ds_probability", "median", "mean", "sd", "ci_low", "ci_high",
)
ANNOTATOR_COLUMNS = ("field", "annotator", "competence", "items")
TIE_SEPARATOR = "|"


@dataclass(frozen=True)
class FieldGold:
    """One field's gold labels: ``by_country`` one row per (item, country) and part, ``by_item`` one
    per item and part (columns ``GOLD_COLUMNS``, the item-level rows with country None), and
    ``annotators`` the Dawid–Skene competence of each annotator per categorical part (nominal, or
    ordinal with a fixed domain)."""

    by_country: pd.DataFrame
    by_item: pd.DataFrame
    annotators: pd.DataFrame


def t_bounds(mean: float, sd: float | None, n: int, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """The t-based interval of a mean from its sample sd and n; (None, None) with fewer than two values."""
    if n < 2 or sd is None:
        return None, None
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / np.sqrt(n)
    return mean - half, mean + half


def t_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """The t-based interval of the mean of ``values``; (None, None) with fewer than two values."""
    if len(values) < 2:
        return None, None
    return t_bounds(float(values.mean()), float(values.std(ddof=1)), len(values), confidence)


def pair_agreement(counts: Sequence[int] | np.ndarray) -> float | None:
    """The share of pairs of ratings that are equal, given how many ratings each value has."""
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    return float((c * (c - 1)).sum() / (n * (n - 1))) if n >= 2 else None


def _frame(rows: pd.DataFrame, excluded: Collection[Any]) -> pd.DataFrame:
    frame = rows.iloc[:, :4].set_axis(["item", "country", "annotator", "value"], axis=1)
    values = pd.Series([_absent_as_none(v) for v in frame["value"].tolist()], index=frame.index, dtype=object)
    frame = frame.assign(value=values)
    if excluded:
        frame = frame[~frame["annotator"].isin(set(excluded))]
    return frame


def _votes(f: Field, frame: pd.DataFrame) -> pd.DataFrame:
    """One row per vote: item, country, annotator, part, label (each distinct answer read once)."""
    codes, _ = pd.factorize(frame["value"].map(_hashable), use_na_sentinel=False)
    first = pd.Series(np.arange(len(frame))).groupby(codes).first().to_numpy()
    cast = [f.kind.gold_votes(f, frame["value"].iloc[i]) for i in first]  # by code
    parts = list(dict.fromkeys(part for votes in cast for part in votes))
    pieces = []
    for part in parts:
        labels = np.array([votes.get(part) for votes in cast], dtype=object)[codes]
        rows = np.flatnonzero(labels != None)  # noqa: E711 - an elementwise test of an object array
        pieces.append(frame.iloc[rows][["item", "country", "annotator"]].assign(part=part, label=labels[rows]))
    if not pieces:
        return pd.DataFrame(columns=["item", "country", "annotator", "part", "label"])
    return pd.concat(pieces, ignore_index=True)


def _absent_as_none(value: Any) -> Any:
    """None for a missing answer however the frame holds it (None, NaN, NA)."""
    if isinstance(value, (list, dict, tuple)):
        return value
    return None if pd.isna(value) else value


def _hashable(value: Any) -> Hashable:
    try:
        hash(value)
        return value
    except TypeError:
        return json.dumps(value, sort_keys=True, default=str)


def _pairs(values: pd.DataFrame, unit: list[str], value: str) -> pd.DataFrame:
    """Per unit: ``n`` ratings and ``agreement``, the share of their pairs with equal ``value``."""
    counts = values.groupby([*unit, value], dropna=False, sort=False).size().rename("count").reset_index()
    counts = counts.assign(equal=counts["count"] * (counts["count"] - 1))
    table = counts.groupby(unit, dropna=False, sort=True).agg(n=("count", "sum"), equal=("equal", "sum"))
    n = table["n"].to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = np.where(n >= 2, table["equal"].to_numpy() / (n * (n - 1)), np.nan)
    return table.assign(agreement=agreement).drop(columns="equal").reset_index()


def _nominal(votes: pd.DataFrame, keys: list[str], order: dict[str, int]) -> pd.DataFrame:
    """Per unit (``keys`` and part): n, agreement, majority, tie, tied, majority_share."""
    unit = [*keys, "part"]
    table = _pairs(votes, unit, "label")
    counts = votes.groupby([*unit, "label"], dropna=False, sort=False).size().rename("count").reset_index()
    top = counts.groupby(unit, dropna=False, sort=False)["count"].transform("max")
    winners = counts[counts["count"] == top]
    rank = winners["label"].astype(object).map(order).fillna(len(order))
    winners = winners.assign(rank=rank, top=top).sort_values(["rank", "label"], kind="stable")
    tied = winners.groupby(unit, dropna=False, sort=False).agg(
        ties=("label", "size"), first=("label", "first"), top=("top", "first"),
    ).reset_index()
    several = winners.merge(tied[tied["ties"] > 1][unit], on=unit)  # joined only where there is a tie
    joined = several.groupby(unit, dropna=False, sort=False)["label"].agg(TIE_SEPARATOR.join).rename("tied")
    tied = tied.merge(joined.reset_index(), on=unit, how="left")
    tied = tied.assign(tied=tied["tied"].where(tied["ties"] > 1, tied["first"]))
    table = table.merge(tied, on=unit, how="left")
    return table.assign(
        majority=table["first"].where(table["ties"] == 1, None), tie=table["ties"] > 1,
        majority_share=table["top"] / table["n"],
    ).drop(columns=["ties", "first", "top"])


def _numeric(frame: pd.DataFrame, keys: list[str], interval: bool) -> pd.DataFrame:
    """Per unit: n, agreement, median, mean and, for an interval or ratio field, sd and the t interval."""
    table = _pairs(frame, keys, "number")
    stats_ = frame.groupby(keys, dropna=False, sort=True)["number"].agg(["median", "mean", "std"]).reset_index()
    table = table.merge(stats_, on=keys, how="left").assign(part="")
    if not interval:
        return table.drop(columns="std")
    n = table["n"].to_numpy(dtype=np.float64)
    sd = table["std"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        half = stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)  # NaN with a single rating
    mean = table["mean"].to_numpy(dtype=np.float64)
    return table.rename(columns={"std": "sd"}).assign(ci_low=mean - half, ci_high=mean + half)


def _rows(table: pd.DataFrame, f: Field) -> pd.DataFrame:
    table = table.assign(field=[f.key if not p else f"{f.key}.{p}" for p in table["part"]], level=f.level)
    if "country" not in table:
        table = table.assign(country=None)
    table = table.reindex(columns=list(GOLD_COLUMNS))
    return table.astype(object).where(table.notna(), None)


def _with_ds(table: pd.DataFrame, votes: pd.DataFrame, keys: list[str], labels: list[str]) -> tuple[pd.DataFrame, Any]:
    """``table`` with the Dawid–Skene label and probability of each unit, fitted per part."""
    parts, fits = [], {}
    for part, group in votes.groupby("part", sort=True):
        units = group.groupby(keys, dropna=False, sort=False)
        given = set(pd.unique(group["label"]).tolist())
        fit = dawid_skene(pd.DataFrame({"unit": units.ngroup().to_numpy(), "annotator": group["annotator"].to_numpy(),
                                        "label": group["label"].to_numpy()}),
                          labels=[lab for lab in labels if lab in given] or None)
        fits[part] = fit
        first = units.head(1).assign(unit=units.ngroup())[[*keys, "unit"]]  # a unit's keys, by its code
        fitted = first.merge(fit.units[["unit", "label", "probability"]], on="unit").drop(columns="unit")
        parts.append(fitted.rename(columns={"label": "ds_label", "probability": "ds_probability"}).assign(part=part))
    if not parts:
        return table.assign(ds_label=None, ds_probability=None), fits
    return table.merge(pd.concat(parts, ignore_index=True), on=[*keys, "part"], how="left"), fits


def field_gold(
    rows: pd.DataFrame, f: Field, *, excluded: Collection[Any] = (), with_dawid_skene: bool = True
) -> FieldGold:
    """The gold labels of one field ``f`` (which must have a level of measurement) from ``rows``:
    a frame whose first four columns are item, country, annotator and value (see the module's
    docstring)."""
    if not f.level:
        raise ValueError(f"field '{f.key}' has no level of measurement")
    frame = _frame(rows, excluded)
    outputs: dict[str, pd.DataFrame] = {}
    annotators = pd.DataFrame(columns=list(ANNOTATOR_COLUMNS))
    order = {c.token: i for i, c in enumerate(f.kind.domain(f) or ())}
    categorical = f.kind.gold_categorical(f)  # the type says whether Dawid–Skene reads its answers
    votes = _votes(f, frame) if categorical or f.level == NOMINAL else None
    numeric = None
    if f.level != NOMINAL:
        numbers = frame["value"].map(lambda v: f.kind.gold_number(f, v))
        numeric = frame.assign(number=pd.to_numeric(numbers, errors="coerce")).dropna(subset=["number"])
        if votes is not None:  # ordinal categories: the domain's, as its numbers are
            votes = votes[votes["label"].isin(order)]
    for name, keys in (("by_country", ["item", "country"]), ("by_item", ["item"])):
        if numeric is None:
            table = _nominal(votes, keys, order)
        else:
            table = _numeric(numeric, keys, interval=f.level != ORDINAL)
        if votes is not None and categorical and with_dawid_skene:
            labels = sorted(set(votes["label"]), key=lambda t: (order.get(t, len(order)), str(t)))
            table, fits = _with_ds(table, votes, keys, labels)
            if name == "by_country" and fits:
                annotators = pd.concat([
                    fit.annotators.assign(field=f.key if not part else f"{f.key}.{part}")
                    for part, fit in fits.items()
                ], ignore_index=True).reindex(columns=list(ANNOTATOR_COLUMNS))
        outputs[name] = _rows(table, f)
    return FieldGold(outputs["by_country"], outputs["by_item"], annotators)


def plain_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A gold frame as a list of dicts of plain Python values (None for missing)."""
    columns = {c: column_values(frame[c]) for c in frame.columns}
    return [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]


__all__ = ["ANNOTATOR_COLUMNS", "FieldGold", "GOLD_COLUMNS", "TIE_SEPARATOR", "field_gold", "pair_agreement",
           "plain_rows", "t_bounds", "t_interval"]

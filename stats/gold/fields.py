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
  ``ds_probability``, given only where the data can carry them (``DS_MIN_ITEMS``,
  ``DS_MIN_RATINGS``), else None with ``ds_note`` saying why (None where a label is given, and
  for a field Dawid–Skene does not read);
- ordinal: ``median``, ``mean``; interval and ratio: also ``sd`` (sample) and the 95% t interval
  ``ci_low``, ``ci_high`` (None with a single rating: nothing to estimate a spread from).

Dawid–Skene is fitted per part twice: over (item, country) units for ``by_country`` and over items
for ``by_item``; each annotator's competence (from the first fit) is in ``annotators``, for an
ordinal field as for a nominal one. An annotator who rated fewer than ``DS_MIN_ITEMS`` units of
the part is left out of its fit (their ratings still count in ``n``, the majority, the median), and
has no competence; a unit with fewer than ``DS_MIN_RATINGS`` ratings by annotators in the fit gets
no label. Even above that floor its probabilities are optimistic with few annotators: the majority
stays beside it. ``ds_withheld`` sums up, per field, the units left without a label and why.
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
    "ds_label", "ds_probability", "ds_note", "median", "mean", "sd", "ci_low", "ci_high",
)
GOLD_FLOATS = ("agreement", "majority_share", "ds_probability", "median", "mean", "sd", "ci_low", "ci_high")

# How much data a Dawid–Skene label needs. The model estimates, per annotator, a confusion matrix:
# with K labels, K·(K − 1) free chances, the row of each true label from the units that truly have
# it. With fewer than about ten units an annotator's rows rest on a handful of units each (five per
# row for a balanced yes/no question, two for a five-point scale), and EM fits that annotator's
# answers exactly: the matrix goes to 0s and 1s and the posteriors to 1.000 whatever the data. The
# pilot of issue 24 (three annotators × four items) labelled ratings 5, 2, 4 as 2 with p = 1.000.
# Simulated (three annotators of accuracy 0.55–0.85, a yes/no question; the table in
# docs/agreement.md), 83% of units get p > 0.999 at four items each while 75% of labels are right;
# the share of such certain units falls once there are ten or more (69% at 10, 32% at 20, 21% at
# 40). Ten is the floor below which the fit is degenerate rather than merely loose; no number of
# items makes the probability calibrated with three annotators (a five-point scale stays near
# certain at 40), so the card calls ``ds_probability`` an upper bound. A unit needs two ratings
# from annotators in the fit: on one rating the label is that rating and its probability only the
# annotator's estimated competence, nothing the others checked.
DS_MIN_ITEMS = 10  # units of the part an annotator rated, below which they are left out of the fit
DS_MIN_RATINGS = 2  # ratings of a unit by annotators in the fit, below which it gets no label
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


def ds_note(ratings: int, kept: int, fewest: int, most: int) -> str | None:
    """Why a unit has no Dawid–Skene label: ``ratings`` it has, ``kept`` of them by annotators in the
    fit, ``fewest`` and ``most`` units its annotators rated; None when it has one."""
    if kept >= DS_MIN_RATINGS:
        return None
    if ratings < DS_MIN_RATINGS:
        return f"a single rating (Dawid–Skene needs ≥ {DS_MIN_RATINGS} per unit)"
    if kept == 0:
        span = f"{fewest}" if fewest == most else f"{fewest}–{most}"
        return (f"too little data per annotator ({span} item{'s' if most > 1 else ''} each; "
                f"Dawid–Skene needs ≥ {DS_MIN_ITEMS})")
    return (f"{kept} of its {ratings} ratings by an annotator with ≥ {DS_MIN_ITEMS} items "
            f"(Dawid–Skene needs ≥ {DS_MIN_RATINGS})")


def _with_ds(table: pd.DataFrame, votes: pd.DataFrame, keys: list[str], labels: list[str]) -> tuple[pd.DataFrame, Any]:
    """``table`` with the Dawid–Skene label, probability and note of each unit, fitted per part over
    the annotators who rated at least ``DS_MIN_ITEMS`` of its units (the fits: by part, those with
    any such annotator)."""
    parts, fits = [], {}
    for part, group in votes.groupby("part", sort=True):
        units = group.groupby(keys, dropna=False, sort=False)
        code = units.ngroup().to_numpy()
        annotator = group["annotator"].reset_index(drop=True)
        rated = pd.Series(code).groupby(annotator).nunique()  # units per annotator
        items = annotator.map(rated).to_numpy()
        kept = items >= DS_MIN_ITEMS
        label = group["label"].to_numpy()
        given = set(pd.unique(label[kept]).tolist())
        fit = dawid_skene(pd.DataFrame({"unit": code[kept], "annotator": annotator.to_numpy()[kept],
                                        "label": label[kept]}),
                          labels=[lab for lab in labels if lab in given] or None)
        if kept.any():
            fits[part] = fit
        counts = pd.DataFrame({"unit": code, "kept": kept, "items": items}).groupby("unit").agg(
            ratings=("kept", "size"), kept=("kept", "sum"), fewest=("items", "min"), most=("items", "max"))
        first = units.head(1).assign(unit=units.ngroup())[[*keys, "unit"]]  # a unit's keys, by its code
        fitted = first.merge(counts, left_on="unit", right_index=True).merge(
            fit.units[["unit", "label", "probability"]], on="unit", how="left")
        labelled = (fitted["kept"] >= DS_MIN_RATINGS).to_numpy()
        notes: list[Any] = [ds_note(*row)
                            for row in fitted[["ratings", "kept", "fewest", "most"]].itertuples(index=False)]
        parts.append(fitted[keys].assign(
            ds_label=fitted["label"].where(labelled, None), ds_probability=fitted["probability"].where(labelled),
            ds_note=notes, part=part,
        ))
    if not parts:
        return table.assign(ds_label=None, ds_probability=None, ds_note=None), fits
    return table.merge(pd.concat(parts, ignore_index=True), on=[*keys, "part"], how="left"), fits


def ds_withheld(gold: pd.DataFrame) -> dict[str, str]:
    """Per field with units left without a Dawid–Skene label (their ``ds_note`` set) in ``gold`` (rows
    of ``GOLD_COLUMNS``): how many of its units, and why (the commonest reasons first, at most three)."""
    if "ds_note" not in gold or not len(gold):
        return {}
    out = {}
    for key, rows in gold[gold["ds_note"].notna()].groupby("field", sort=False):
        reasons = rows["ds_note"].value_counts()
        why = "; ".join(str(note) if len(reasons) == 1 else f"{n}: {note}" for note, n in reasons.head(3).items())
        more = "; …" if len(reasons) > 3 else ""
        out[str(key)] = f"no Dawid–Skene label on {len(rows)} of {int((gold['field'] == key).sum())} units: {why}{more}"
    return out


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
            assert votes is not None  # nominal: votes are always made
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


__all__ = ["ANNOTATOR_COLUMNS", "DS_MIN_ITEMS", "DS_MIN_RATINGS", "FieldGold", "GOLD_COLUMNS", "GOLD_FLOATS",
           "TIE_SEPARATOR", "ds_note", "ds_withheld", "field_gold", "pair_agreement", "plain_rows", "t_bounds",
           "t_interval"]

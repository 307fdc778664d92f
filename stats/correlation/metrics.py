"""Metrics against the human score of each unit, and the human–human baseline. Pure: no Django."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..frames import as_frame, only
from ..jsonsafe import plain
from .estimates import BOOTSTRAP_MAX_UNITS, METHODS, MIN_N, Coefficient, coefficients, rng_for
from .grouped import grouped_correlations
from .upload import MetricScores

REASON_ONE_RATER = "only one rater: no interval"
REASON_NO_RATERS = "no rater shares at least {n} units with other raters"


def human_frame(
    rows: pd.DataFrame | Iterable[tuple[Any, Any, Any, Any]], *, only_items: Collection[Any] | None = None
) -> pd.DataFrame:
    """Human ratings (item, country, rater, value) as a frame, one row per (item, country, rater):
    a rater's repeated ratings of a unit are averaged; missing or non-numeric values left out."""
    frame = only(as_frame(rows, ["item", "country", "rater", "value"]), only_items)
    frame = frame.assign(value=pd.to_numeric(frame["value"], errors="coerce"))
    frame = frame.dropna(subset=["value"])
    return frame.groupby(["item", "country", "rater"], dropna=False, sort=False, as_index=False)[["value"]].mean()


def _unit_columns(per_country: bool) -> list[str]:
    return ["item", "country"] if per_country else ["item"]


@dataclass(frozen=True)
class RaterSummary:
    """The mean of the per-rater leave-one-out correlations of one coefficient, with a Student t
    interval over raters (mean ± t(level, k-1) · sd / sqrt k), the median and the count."""

    mean: float | None
    ci_low: float | None
    ci_high: float | None
    median: float | None
    sd: float | None
    n_raters: int
    reason: str = ""


def summarise_raters(values: Sequence[float], level: float = 0.95, min_items: int = MIN_N) -> RaterSummary:
    v = np.asarray([x for x in values if x is not None], dtype=np.float64)
    k = len(v)
    if k == 0:
        return RaterSummary(None, None, None, None, None, 0, REASON_NO_RATERS.format(n=min_items))
    mean, median = float(v.mean()), float(np.median(v))
    if k == 1:
        return RaterSummary(mean, None, None, median, None, 1, REASON_ONE_RATER)
    sd = float(v.std(ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, k - 1)) * sd / math.sqrt(k)
    return RaterSummary(mean, max(-1.0, mean - half), min(1.0, mean + half), median, sd, k)


@dataclass(frozen=True)
class Baseline:
    """Each rater against the mean of the other raters of the same units (leave one out).

    ``raters`` holds one row per rater with a coefficient: (rater, country, units, pearson,
    spearman, kendall) — ``country`` is None unless per country. ``left_out`` counts raters with no
    coefficient, by reason (too few shared units, or their values or the others' means constant)."""

    summary: dict[str, RaterSummary]
    raters: list[tuple[Any, Any, int, float | None, float | None, float | None]]
    left_out: dict[str, int]
    countries: list[dict[str, Any]] = field(default_factory=list)

    COLUMNS = ("rater", "country", "units", "pearson", "spearman", "kendall")

    def as_dict(self) -> dict[str, Any]:
        return {
            "summary": {m: asdict(s) for m, s in self.summary.items()},
            "left_out": dict(self.left_out),
            "columns": list(self.COLUMNS),
            "raters": [list(r) for r in self.raters],
            "countries": [
                {"country": c["country"], "summary": {m: asdict(s) for m, s in c["summary"].items()}}
                for c in self.countries
            ],
        }


def rater_baseline(
    frame: pd.DataFrame, *, per_country: bool = False, min_items: int = MIN_N, level: float = 0.95
) -> Baseline:
    """The human–human baseline of a ``human_frame``: for each rater, the correlations between their
    value and the mean of the other raters' values over the units they share with at least one other
    rater (at least ``min_items``), then the mean and interval of those per-rater correlations."""
    units = _unit_columns(per_country)
    grouped = frame.groupby(units, dropna=False, sort=False)["value"]
    total, count = grouped.transform("sum"), grouped.transform("count")
    shared = frame[count >= 2].assign(others=((total - frame["value"]) / (count - 1))[count >= 2])
    raters = ["rater", "country"] if per_country else ["rater"]
    by_rater = shared.groupby(raters, dropna=False, sort=True)
    found = grouped_correlations(
        shared["value"].to_numpy(), shared["others"].to_numpy(), by_rater.ngroup().to_numpy(),
        min_n=min_items, names=("rater's", "others' mean"), n_groups=by_rater.ngroups,
    )
    rows = []
    left_out: dict[str, int] = {}
    for g, (key, size) in enumerate(by_rater.size().items()):
        if all(found.reasons[m][g] for m in METHODS):
            reason = found.reasons["pearson"][g]
            left_out[reason] = left_out.get(reason, 0) + 1
            continue
        key = key if isinstance(key, tuple) else (key,)
        rater, country = plain(key[0]), (plain(key[1]) if per_country else None)
        rows.append((rater, country, int(size), *(found.value(m, g) for m in METHODS)))
    alone = frame["rater"].nunique() - shared["rater"].nunique() if len(frame) else 0
    if alone:
        left_out["shares no unit with another rater"] = int(alone)
    summary = {m: summarise_raters([r[3 + i] for r in rows], level, min_items) for i, m in enumerate(METHODS)}
    countries = []
    if per_country:
        for country in sorted({r[1] for r in rows}, key=str):
            mine = [r for r in rows if r[1] == country]
            countries.append({
                "country": country,
                "summary": {
                    m: summarise_raters([r[3 + i] for r in mine], level, min_items) for i, m in enumerate(METHODS)
                },
            })
    return Baseline(summary, rows, left_out, countries)


# --- metric correlations -----------------------------------------------------------------------


@dataclass(frozen=True)
class MetricResult:
    """One metric against the human scores: the coefficients over the units both score, and the
    units only one side scores. ``reason`` is set when the metric could not be analysed at all."""

    metric: str
    n: int
    coefficients: dict[str, Coefficient]
    metric_only: int  # units the metric scores that have no human score
    human_only: int  # units with a human score the metric does not score
    missing_country: int = 0  # per country: rows of the metric without a country, left out
    reason: str = ""
    countries: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("coefficients", "countries")}
        d["coefficients"] = {m: c.as_dict() for m, c in self.coefficients.items()}
        d["countries"] = [
            {
                "country": c["country"],
                "n": c["n"],
                "coefficients": {m: x.as_dict() for m, x in c["coefficients"].items()},
            }
            for c in self.countries
        ]
        return d


@dataclass(frozen=True)
class MetricCorrelations:
    unit: str  # "item" or "(item, country)"
    human_units: int
    ratings: int  # (unit, rater) values after averaging repeats
    raters: int
    metrics: list[MetricResult]
    baseline: Baseline
    settings: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "human_units": self.human_units,
            "ratings": self.ratings,
            "raters": self.raters,
            "settings": dict(self.settings),
            "metrics": [m.as_dict() for m in self.metrics],
            "baseline": self.baseline.as_dict(),
        }


def _metric_frame(metrics: MetricScores | pd.DataFrame | Iterable[tuple[Any, Any, str, float]]) -> pd.DataFrame:
    rows = metrics.rows if isinstance(metrics, MetricScores) else metrics
    frame = as_frame(rows, ["item", "country", "metric", "score"])
    frame = frame.assign(score=pd.to_numeric(frame["score"], errors="coerce"))
    return frame.dropna(subset=["score"])


def _no_metric(metric: str, reason: str, **counts: int) -> MetricResult:
    empty = {m: Coefficient(None, None, 0, reason=reason) for m in METHODS}
    return MetricResult(metric, 0, empty, counts.get("metric_only", 0), counts.get("human_only", 0),
                        counts.get("missing_country", 0), reason)


def _one_metric(
    name: str, scores: pd.DataFrame, human: pd.DataFrame, *, per_country: bool, seed: int, n_boot: int,
    level: float, min_n: int,
) -> MetricResult:
    units = _unit_columns(per_country)
    missing_country = 0
    if per_country:
        missing_country = int(scores["country"].isna().sum())
        scores = scores[scores["country"].notna()]
    dupes = scores.duplicated(subset=units, keep=False)
    if dupes.any():
        first = scores[dupes].iloc[0]
        return _no_metric(
            name, f"item {first['item']} has {int(dupes.sum())} scores (one per country?): analyse per country",
            missing_country=missing_country,
        )
    # Object keys on both sides: an int item id never matches a str one, and never raises either.
    left = scores[units + ["score"]].astype(dict.fromkeys(units, object))
    joined = left.merge(human.astype(dict.fromkeys(units, object)), on=units, how="outer", indicator=True)
    both = joined[joined["_merge"] == "both"]
    metric_only = int((joined["_merge"] == "left_only").sum())
    human_only = int((joined["_merge"] == "right_only").sum())
    names = (f"{name} score", "human score")
    found = coefficients(both["score"], both["human"], n_boot=n_boot, rng=rng_for(seed, name), level=level,
                         names=names, min_n=min_n)
    countries = []
    if per_country:
        for country, part in both.groupby("country", sort=True, dropna=False):
            country = plain(country)
            countries.append({
                "country": country,
                "n": len(part),
                "coefficients": coefficients(part["score"], part["human"], n_boot=n_boot,
                                             rng=rng_for(seed, name, country), level=level, names=names, min_n=min_n),
            })
    reason = "" if len(both) else "no unit has both a score of this metric and a human score"
    return MetricResult(name, len(both), found, metric_only, human_only, missing_country, reason, countries)


def metric_correlations(
    human: pd.DataFrame | Iterable[tuple[Any, Any, Any, Any]],
    metrics: MetricScores | pd.DataFrame | Iterable[tuple[Any, Any, str, float]],
    *,
    per_country: bool = False,
    seed: int = 0,
    n_boot: int = 1000,
    level: float = 0.95,
    min_items: int = MIN_N,
    only_items: Collection[Any] | None = None,
) -> MetricCorrelations:
    """Each metric against the human score of each unit, beside the human–human baseline.

    ``human``: rows (item, country, rater, value), one per rating. ``metrics``: a ``MetricScores``
    (from ``parse_metric_csv``, its items mapped to the ids ``human`` uses) or rows (item, country or
    None, metric, score), as tuples or a frame. ``per_country``: the unit is (item, country), and each metric is also
    analysed within each country; a metric row without a country is then left out (counted).
    Otherwise the unit is the item and the metric's country column is ignored; a metric with two
    scores for one item is not analysed (reason given). ``only_items`` restricts both sides (e.g. to
    CulturalFrames' prompts with images from every model, ``reports.complete_prompts``).

    Pearson's interval is Fisher's z; Spearman's and Kendall's are percentile intervals of
    ``n_boot`` bootstrap resamples of the units, drawn from ``rng_for(seed, metric[, country])``,
    up to ``BOOTSTRAP_MAX_UNITS`` units, and the large-sample intervals above (Bonett & Wright;
    Fieller, Hartley & Pearson); each coefficient's ``interval`` names its kind.
    """
    frame = human_frame(human, only_items=only_items)
    units = _unit_columns(per_country)
    means = (
        frame.groupby(units, dropna=False, sort=False, as_index=False)[["value"]].mean()
        .rename(columns={"value": "human"})
    )
    scores = _metric_frame(metrics)
    if only_items is not None:
        scores = scores[scores["item"].isin(set(only_items))]
    names = metrics.metrics if isinstance(metrics, MetricScores) else list(dict.fromkeys(scores["metric"]))
    results = []
    for name in names:
        mine = scores[scores["metric"] == name]
        results.append(_one_metric(name, mine, means, per_country=per_country, seed=seed, n_boot=n_boot,
                                   level=level, min_n=min_items))
    return MetricCorrelations(
        unit="(item, country)" if per_country else "item",
        human_units=len(means),
        ratings=len(frame),
        raters=int(frame["rater"].nunique()),
        metrics=results,
        baseline=rater_baseline(frame, per_country=per_country, min_items=min_items, level=level),
        settings={"per_country": per_country, "seed": seed, "n_boot": n_boot, "level": level, "min_items": min_items,
                  "restricted_to_items": None if only_items is None else len(set(only_items)),
                  "bootstrap_max_units": BOOTSTRAP_MAX_UNITS},
    )

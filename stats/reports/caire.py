"""CAIRE: the human score of an (image, country) pair. Pure: no Django."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..binning import bin_edges
from ..frames import as_frame, only
from .common import column_values, country_key, labels, plain
from .kinds import NUMBER, ReportData, implement

HUMAN_SCORE_COLUMNS = ("item_id", "country", "mean", "n", "sd")


@dataclass(frozen=True)
class HumanScores:
    """One row per (item, country): the mean of that country's ratings, their number and their
    sample standard deviation (None for a single rating). ``countries`` summarises each country:
    its pairs, its ratings and the mean of its pair means."""

    rows: list[tuple[Any, Any, float, int, float | None]]
    ratings: int
    missing: int  # rows left out: no numeric value
    countries: list[dict[str, Any]] = field(default_factory=list)
    histogram: dict[str, Any] | None = None  # {"edges", "countries": [{"country", "counts"}]} of the pair means

    def as_dict(self) -> dict[str, Any]:
        return {
            "pairs": len(self.rows),
            "ratings": self.ratings,
            "missing": self.missing,
            "countries": [dict(c) for c in self.countries],
            "histogram": self.histogram,
            "columns": list(HUMAN_SCORE_COLUMNS),
            "rows": [list(r) for r in self.rows],
        }


def _histogram(pairs: pd.DataFrame) -> dict[str, Any]:
    """Per country, how many pair means fall in each of at most ten bins of a nice width (shared
    edges; the last bin holds its upper edge), computed here so the page does not walk every row."""
    means = pairs["mean"].to_numpy(dtype=np.float64)
    edges = bin_edges([float(means.min()), float(means.max())])
    step, n = edges[1] - edges[0], len(edges) - 1
    index = np.clip(np.floor((means - edges[0]) / step + 1e-9).astype(np.int64), 0, n - 1)
    country, countries = labels(pairs["country"])
    counts = np.bincount(country * n + index, minlength=len(countries) * n).reshape(-1, n)
    order = sorted(range(len(countries)), key=lambda i: country_key(countries[i]))
    return {"edges": edges, "countries": [{"country": countries[i], "counts": counts[i].tolist()} for i in order]}


def human_scores(
    rows: pd.DataFrame | Iterable[tuple[Any, Any, Any]], *, only_items: Collection[Any] | None = None
) -> HumanScores:
    """CAIRE's human score: per (item, country), the mean of that country's ratings.

    ``rows``: (item id, country, value), one per rating — the ``relevance`` answer (1–5) of each
    annotation, with its pool's country. Values that are missing or not numbers are left out and
    counted. Rows are sorted by item, then country."""
    frame = only(as_frame(rows, ["item", "country", "value"]), only_items)
    frame = frame.assign(value=pd.to_numeric(frame["value"], errors="coerce"))
    missing = int(frame["value"].isna().sum())
    frame = frame.dropna(subset=["value"])
    if frame.empty:
        return HumanScores([], 0, missing)
    grouped = frame.groupby(["item", "country"], dropna=False, sort=True)["value"]
    pairs = grouped.agg(["mean", "size", "std"]).reset_index()
    out = list(zip(
        *(column_values(pairs[c]) for c in ("item", "country")),
        pairs["mean"].astype(float).tolist(), pairs["size"].astype(int).tolist(), column_values(pairs["std"]),
        strict=True,
    ))
    per_country = pairs.groupby("country", dropna=False, sort=True).agg(
        pairs=("mean", "size"), ratings=("size", "sum"), mean=("mean", "mean")
    ).reset_index()
    countries = [
        {"country": plain(c), "pairs": int(p), "ratings": int(r), "mean": float(m)}
        for c, p, r, m in zip(per_country["country"], per_country["pairs"], per_country["ratings"],
                              per_country["mean"], strict=True)
    ]
    return HumanScores(out, len(frame), missing, countries, _histogram(pairs))


# --- the report kind --------------------------------------------------------------------------


def _human_scores(report: ReportData) -> HumanScores:
    return human_scores(report.frame(["value"]))


HUMAN_SCORES = implement("human_scores", reads={"value": NUMBER}, compute=_human_scores, plot="human_score_plots")

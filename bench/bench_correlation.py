#!/usr/bin/env python
"""Time the metric correlation alone on a synthetic study of a million ratings. Pure: no database.

    python bench/bench_correlation.py                    # 1,000,000 ratings, 1,000 resamples
    python bench/bench_correlation.py --items 3637 --per-country

Builds 333,334 items × 3 ratings (1–5, around a latent quality per item) by about 40,000 raters of
about 25 ratings each, spread over 10 countries (an item and its raters in one country, as
CulturalFrames), and two metrics scoring every item (in its country, with --per-country); then times
``metric_correlations(frame, scores, per_country=..., n_boot=...)`` as ``analysis.metrics``
calls it, and prints the seconds (and the parts: the baseline, each metric).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stats.correlation import MetricScores, metric_correlations  # noqa: E402
from stats.correlation.metrics import human_frame, rater_baseline  # noqa: E402

COUNTRIES = ["BR", "CN", "DE", "IN", "JP", "KE", "MX", "NG", "PL", "US"]


def synthetic(
    items: int, per_item: int, per_rater: int, *, per_country: bool = False, seed: int = 0
) -> tuple[pd.DataFrame, MetricScores]:
    rng = np.random.default_rng(seed)
    country = rng.integers(0, len(COUNTRIES), size=items)
    latent = rng.random(items)
    item = np.repeat(np.arange(items), per_item)
    item_country = np.repeat(country, per_item)
    # Each country's ratings go to its own raters, about per_rater each, in shuffled order; the
    # per_item ratings of an item are spread apart so one rater rarely rates an item twice.
    rater = np.empty(len(item), dtype=np.int64)
    next_rater = 0
    for c in range(len(COUNTRIES)):
        where = np.flatnonzero(item_country == c)
        n_raters = max(1, round(len(where) / per_rater))
        rater[where] = next_rater + rng.permutation(np.arange(len(where)) % n_raters)
        next_rater += n_raters
    value = np.clip(np.rint(1 + 4 * latent[item] + rng.normal(0, 0.8, size=len(item))), 1, 5)
    frame = pd.DataFrame({
        "item": item, "country": np.asarray(COUNTRIES, dtype=object)[item_country], "rater": rater, "value": value,
    })
    rows = []
    for name, noise in (("clip", 0.15), ("vqa", 0.3)):
        score = latent + rng.normal(0, noise, size=items)
        where = [COUNTRIES[c] if per_country else None for c in country]
        rows += [(i, c, name, s) for i, c, s in zip(range(items), where, score.tolist())]
    return frame, MetricScores(rows=rows, metrics=["clip", "vqa"], lines=len(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=333_334)
    parser.add_argument("--per-item", type=int, default=3)
    parser.add_argument("--per-rater", type=int, default=25)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--per-country", action="store_true")
    parser.add_argument("--parts", action="store_true", help="also time the baseline alone")
    args = parser.parse_args()

    start = time.perf_counter()
    frame, scores = synthetic(args.items, args.per_item, args.per_rater, per_country=args.per_country)
    print(f"built {len(frame):,} ratings by {frame['rater'].nunique():,} raters, "
          f"{args.items:,} items, {len(scores.metrics)} metrics in {time.perf_counter() - start:.2f} s")

    if args.parts:
        h = human_frame(frame)
        start = time.perf_counter()
        baseline = rater_baseline(h, per_country=args.per_country)
        print(f"rater_baseline: {time.perf_counter() - start:.2f} s ({len(baseline.raters):,} raters)")

    start = time.perf_counter()
    found = metric_correlations(frame, scores, per_country=args.per_country, n_boot=args.n_boot)
    seconds = time.perf_counter() - start
    for m in found.metrics:
        parts = ", ".join(
            f"{k} {c.value:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}]"
            for k, c in m.coefficients.items()
            if c.value is not None
        )
        print(f"  {m.metric} (n={m.n:,}): {parts}")
    s = found.baseline.summary["kendall"]
    print(f"  baseline kendall mean {s.mean:.4f} over {s.n_raters:,} raters; left out {found.baseline.left_out}")
    print(f"metric_correlations: {seconds:.2f} s")


if __name__ == "__main__":
    main()

"""Histogram bins of a nice width, shared by the analysis (which bins long columns) and the plots
(which draw the bins). Pure: no Django."""

from __future__ import annotations

import math
from collections.abc import Sequence


def nice_step(span: float, target: int = 5) -> float:
    """A step of 1, 2, 2.5 or 5 × 10^k giving about ``target`` intervals over ``span``."""
    if span <= 0:
        return 1.0
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    return next((m * power for m in (1, 2, 2.5, 5) if m * power >= raw * 0.999), 10 * power)


def bin_edges(values: Sequence[float], max_bins: int = 10) -> list[float]:
    """Edges of at most ``max_bins`` equal bins of a nice width covering ``values``."""
    lo, hi = math.floor(min(values)), math.ceil(max(values))
    step = nice_step(max(hi - lo, 1), max_bins)
    first = math.floor(min(values) / step + 1e-9) * step
    n = max(1, math.ceil((max(values) - first) / step - 1e-9))
    return [round(first + k * step, 10) for k in range(n + 1)]


def bin_counts(values: Sequence[float], edges: Sequence[float]) -> list[int]:
    """How many values fall in each bin [a, b); the last bin holds its upper edge too."""
    out = [0] * (len(edges) - 1)
    step = edges[1] - edges[0]
    for v in values:
        out[min(max(int((v - edges[0]) / step + 1e-9), 0), len(out) - 1)] += 1
    return out

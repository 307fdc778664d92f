"""What every agreement coefficient shares: the levels of measurement, kappa weights, the reasons
a figure is undefined, and the value-counts matrix they read."""

from __future__ import annotations

from typing import Any

import numpy as np

LEVELS = ("nominal", "ordinal", "interval", "ratio")
WEIGHTS = ("none", "linear", "quadratic")

REASON_FEW_UNITS = "fewer than 2 units were rated by at least 2 annotators"
REASON_NO_VARIATION = "no variation: every rating has the same value"
REASON_NO_RESAMPLES = "no bootstrap resamples were requested"
REASON_ALL_RESAMPLES_UNDEFINED = "alpha is undefined in every resample (no variation)"
REASON_NO_PAIRS = "no item has a label from both raters"
REASON_NO_UNITS = "no units"
REASON_SINGLE_CATEGORY = "no variation: chance agreement is 1 (a single category was used)"

def counts_matrix(value_counts: Any) -> np.ndarray:
    """``value_counts`` as a units × values matrix of whole, non-negative counts (ValueError otherwise)."""
    counts = np.asarray(value_counts)
    if counts.ndim != 2:
        raise ValueError("value_counts must be a 2-D matrix: units × values")
    whole = np.issubdtype(counts.dtype, np.integer) or np.array_equal(counts, np.round(counts))
    if counts.size and not whole:
        raise ValueError("value_counts must be whole numbers")
    counts = counts.astype(np.int64)
    if (counts < 0).any():
        raise ValueError("value_counts cannot be negative")
    return counts

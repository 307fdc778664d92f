"""What every agreement coefficient shares: the levels of measurement, kappa weights, the reasons
a figure is undefined, and the value-counts matrix they read."""

from __future__ import annotations

from typing import Any

import numpy as np

LEVELS = ("nominal", "ordinal", "interval", "ratio")
WEIGHTS = ("none", "linear", "quadratic")
# Gwet's coefficient at each level of measurement: AC1 for nominal, AC2 weighted as the level allows.
AC_WEIGHTS = {"nominal": "none", "ordinal": "ordinal", "interval": "quadratic", "ratio": "quadratic"}
ICC_LEVELS = ("interval", "ratio")  # the intraclass correlation needs numbers whose differences mean something

REASON_FEW_UNITS = "fewer than 2 units were rated by at least 2 annotators"
REASON_NO_VARIATION = "no variation: every rating has the same value"
REASON_NO_RESAMPLES = "no bootstrap resamples were requested"
REASON_ALL_RESAMPLES_UNDEFINED = "alpha is undefined in every resample (no variation)"
REASON_NO_PAIRS = "no item has a label from both raters"
REASON_NO_UNITS = "no units"
REASON_SINGLE_CATEGORY = "no variation: chance agreement is 1 (a single category was used)"

# Honest numbers on small data: a coefficient computed on fewer units than this, or whose interval is
# wider than this, is shown with a warning instead of as a confident figure. 30 units is where a
# standard error or a bootstrap over units starts to describe its own uncertainty (below it the
# interval itself is unstable); an interval 0.4 wide spans from "slight" to "substantial" on the
# usual verbal scales, so the value says little about the agreement.
STABLE_UNITS = 30
WIDE_INTERVAL = 0.4


def thin_data(n_units: int, ci_low: float | None = None, ci_high: float | None = None) -> str:
    """Why a coefficient over ``n_units`` units, with interval (``ci_low``, ``ci_high``), is too thin
    to read as a stable figure; "" when it is not."""
    if n_units < STABLE_UNITS:
        return f"only {n_units} units rated twice or more ({STABLE_UNITS} or more give a stable value)"
    if ci_low is not None and ci_high is not None and ci_high - ci_low > WIDE_INTERVAL:
        return (
            f"its interval is {ci_high - ci_low:.2f} wide (over {WIDE_INTERVAL:g}): "
            "too few units or annotators per unit for a stable value"
        )
    return ""

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

"""Krippendorff's alpha from a value-counts matrix. Pure: numpy and the krippendorff package only.

A value-counts matrix has one row per unit (an item as rated in one pool) and one column per value
of the field's domain; a cell is how many annotators gave that value to that unit. Unlike a
raters × units matrix it does not grow with the number of annotators, and missing ratings are
simply absent from the counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import krippendorff
import numpy as np

LEVELS = ("nominal", "ordinal", "interval", "ratio")

REASON_FEW_UNITS = "fewer than 2 units were rated by at least 2 annotators"
REASON_NO_VARIATION = "no variation: every rating has the same value"


@dataclass(frozen=True)
class Alpha:
    alpha: float | None
    n_units: int  # units with at least 2 ratings (pairable units)
    n_ratings: int  # ratings in those units (pairable values)
    reason: str = ""  # why alpha is None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def alpha(value_counts: Any, level: str, value_domain: Sequence[Any] | None = None) -> Alpha:
    """Krippendorff's alpha of ``value_counts`` (units × values) at ``level`` of measurement.

    ``value_domain`` names the columns, in order (the order matters for ordinal, the numbers for
    interval and ratio); by default the columns are 0, 1, 2, …. Units with fewer than two
    ratings cannot be paired and are left out. Alpha is None, with a reason, when it is undefined.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r} (known: {', '.join(LEVELS)})")
    counts = np.asarray(value_counts, dtype=np.int64)
    if counts.ndim != 2:
        raise ValueError("value_counts must be a 2-D matrix: units × values")
    domain = np.arange(counts.shape[1]) if value_domain is None else np.asarray(value_domain)
    if len(domain) != counts.shape[1]:
        raise ValueError(f"value_domain has {len(domain)} values but value_counts has {counts.shape[1]} columns")
    if (counts < 0).any():
        raise ValueError("value_counts cannot be negative")

    pairable = counts[counts.sum(axis=1) >= 2]
    n_units, n_ratings = int(pairable.shape[0]), int(pairable.sum())
    if n_units < 2:
        return Alpha(None, n_units, n_ratings, REASON_FEW_UNITS)
    used = pairable.sum(axis=0) > 0
    if used.sum() < 2:
        return Alpha(None, n_units, n_ratings, REASON_NO_VARIATION)
    if level == "nominal":
        # Unused values change nothing for nominal data; dropping them keeps the matrix small.
        pairable, domain = pairable[:, used], domain[used]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(krippendorff.alpha(value_counts=pairable, value_domain=domain, level_of_measurement=level))
    if not np.isfinite(value):  # expected disagreement is zero (e.g. ratio values v and -v)
        return Alpha(None, n_units, n_ratings, REASON_NO_VARIATION)
    return Alpha(value, n_units, n_ratings)

"""Values from numpy and pandas as plain JSON-safe Python values. Pure: no Django."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd


def plain(value: Any) -> Any:
    """A key, label or number from numpy/pandas as a plain Python value that JSON can hold: numpy
    scalars unwrapped (``np.int64(3)`` → ``3``), NaN and pandas' NA as None; anything else as it is."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

"""Small helpers shared by the reports. Pure: no Django."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..frames import distinct
from ..jsonsafe import plain

Row = TypeVar("Row", bound=Sequence[Any])


def restrict(rows: Iterable[Row], only_items: Collection[Any] | None) -> Iterator[Row]:
    """The rows whose first element (the item id) is in ``only_items``; every row when None."""
    if only_items is None:
        yield from rows
        return
    keep = only_items if isinstance(only_items, (set, frozenset)) else set(only_items)
    for row in rows:
        if row[0] in keep:
            yield row


def country_key(country: Any) -> tuple[bool, str]:
    """Sort key: countries by their text, a missing country last."""
    return (country is None, str(country))


def number(value: Any) -> float | None:
    """A stored numeric answer as a float; None for a missing or non-numeric one."""
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def labels(values: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """(code of each row, the distinct labels as plain values, a missing one as None)."""
    codes, uniques = distinct(values)
    return codes, [plain(u) for u in uniques]


def column_values(column: pd.Series) -> list[Any]:
    """A column as plain Python values (numpy scalars unwrapped, NaN and NA as None)."""
    if not column.isna().any():
        return column.tolist()
    return column.astype(object).where(column.notna(), None).tolist()

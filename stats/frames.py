"""Rows as pandas frames, for the pure report and correlation functions. Pure: no Django.

Those functions take either a ``pandas.DataFrame`` (what the analysis passes: columns read once
from the database, numbers as float64) or any iterable of plain tuples (what a caller with a few
rows, or a test, passes); ``as_frame`` gives both the same shape.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd


def as_frame(rows: pd.DataFrame | Iterable[Sequence[Any]], columns: Sequence[str]) -> pd.DataFrame:
    """``rows`` as a frame with ``columns`` as its column names, in that order. A frame must have
    at least that many columns: its first ones are renamed."""
    columns = list(columns)
    if isinstance(rows, pd.DataFrame):
        if len(rows.columns) < len(columns):
            raise ValueError(f"expected the columns {columns}, got {list(rows.columns)}")
        frame = rows.iloc[:, : len(columns)]
        return frame if list(frame.columns) == columns else frame.set_axis(columns, axis=1)
    records: list[Any] = list(rows)
    return pd.DataFrame.from_records(records, columns=columns)


def only(frame: pd.DataFrame, items: Collection[Any] | None, column: str = "item") -> pd.DataFrame:
    """The rows whose ``column`` is in ``items``; every row when None."""
    if items is None:
        return frame
    return frame[frame[column].isin(items if isinstance(items, (set, frozenset)) else set(items))]


def distinct(values: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """(code of each row, the distinct values): codes index the distinct values, in order of first
    appearance. Values need not be hashable: lists and dicts are compared by their JSON."""
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        return codes, list(uniques)
    except TypeError:
        keys = values.map(lambda v: json.dumps(v, sort_keys=True, default=str))
        codes, _ = pd.factorize(keys, use_na_sentinel=False)
        _, first = np.unique(codes, return_index=True)
        return codes, [values.iloc[i] for i in first]


def numeric(values: pd.Series, convert) -> pd.Series:
    """``values`` as float64 with NaN for missing: a float column as it is (infinities as NaN),
    anything else through ``convert`` (value → float or None) one value at a time."""
    if pd.api.types.is_float_dtype(values.dtype):
        return values.where(np.isfinite(values))
    return values.map(lambda v: np.nan if (x := convert(v)) is None else x).astype(np.float64)

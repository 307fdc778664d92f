"""Gold tables (pandas frames of plain values) written as the study-level formats ship them. Pure:
no Django.

- ``arrow_table``: each column typed from its values: numbers, booleans, texts, lists stay lists
  (of their element's type); a column mixing kinds (a majority that is a number in one row and a
  text in another) is text, each value as its JSON; a column of nothing but None is text, unless
  the table declares its type (``types``: the gold tables' numbers are floats even where every row
  is None, as an ordinal field's ``sd`` is).
- ``write_csv``: lists and mappings as JSON text, every cell neutralised against formula
  injection (``studies.protocol.safetext.safe_cell``), None as an empty cell.
- ``write_parquet``: the Arrow table, zstd.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from studies.protocol.safetext import safe_cell


def plain(value: Any) -> Any:
    """A frame's cell as plain Python: numpy scalars unwrapped, NaN as None, tuples and arrays as lists."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def _json(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _numbers(values: list[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values if v is not None)


def arrow_column(values: list[Any]) -> pa.Array:
    values = [plain(v) for v in values]
    present = [v for v in values if v is not None]
    if not present:
        return pa.array([None] * len(values), type=pa.string())
    if _numbers(values) and any(isinstance(v, float) for v in present):
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    try:
        array = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        return pa.array([_json(v) for v in values], type=pa.string())
    if pa.types.is_null(array.type) or (pa.types.is_list(array.type) and pa.types.is_null(array.type.value_type)):
        return pa.array(values, type=pa.list_(pa.string()) if pa.types.is_list(array.type) else pa.string())
    return array


def arrow_table(frame: pd.DataFrame, types: Mapping[str, pa.DataType] | None = None) -> pa.Table:
    """``frame`` as an Arrow table, each column of ``types`` of its declared type (None allowed), any
    other typed from its values (see the module's docstring)."""
    types = types or {}
    columns = [str(c) for c in frame.columns]
    arrays = [pa.array([plain(v) for v in frame[c].tolist()], type=types[name]) if name in types
              else arrow_column(frame[c].tolist()) for c, name in zip(frame.columns, columns)]
    return pa.Table.from_arrays(arrays, names=columns)


def csv_cell(value: Any) -> str:
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return safe_cell(json.dumps(value, ensure_ascii=False))
    return safe_cell(str(value))


def write_csv(frame: pd.DataFrame, path: Path) -> int:
    """``frame`` as CSV at ``path``; the rows written."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow([str(c) for c in frame.columns])
        for row in frame.itertuples(index=False, name=None):
            out.writerow([csv_cell(v) for v in row])
    return len(frame)


def write_parquet(frame: pd.DataFrame, path: Path, types: Mapping[str, pa.DataType] | None = None) -> int:
    """``frame`` as Parquet at ``path`` (typed by ``arrow_table``, ``types`` declared); the rows written."""
    pq.write_table(arrow_table(frame, types), path, compression="zstd")
    return len(frame)

"""Turning stored answers into agreement figures. Pure: no Django, plain data in and out.

The analysis reads annotations as (item id, pool id, answers) tuples in chunks. Each analysable
field of the protocol gets a ``FieldCoder`` that turns an answer into a small integer code (the
column of the value in the field's domain, -1 when absent), so a whole study is held as a few
integer arrays, never as one Python object per annotation. ``field_agreement`` then builds the
value-counts matrix with numpy and computes alpha overall and per pool.

The unit of analysis is an item as rated within one pool: annotators are compared with the other
annotators of their own country, and "overall" pools those units across countries.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from studies.protocol import Field, value_token

from .agreement import alpha

MISSING = -1


class FieldCoder:
    """Codes the answers of one field as column indices of its value domain."""

    def __init__(self, f: Field):
        self.field = f
        self.fixed = f.type in ("scale", "choice")
        if self.fixed:
            choices = list(f.choices)
            if f.type == "scale":
                choices.sort(key=lambda c: c.value)
            self.tokens: list[str] = [c.token for c in choices]
            self.domain: list[Any] = [c.value for c in choices]
        else:
            # Set-valued (multi) and any other field: each distinct answer seen is a nominal value.
            self.tokens, self.domain = [], []
        self._index = {token: i for i, token in enumerate(self.tokens)}
        self.codes = array("i")
        self.out_of_domain = 0

    def _token(self, value: Any) -> str:
        if isinstance(value, list):
            order = {c.token: i for i, c in enumerate(self.field.choices)}
            parts = sorted((value_token(v) for v in value), key=lambda t: (order.get(t, len(order)), t))
            return "|".join(parts)
        return value_token(value)

    def add(self, answers: Mapping[str, Any]) -> None:
        value = answers.get(self.field.key) if isinstance(answers, Mapping) else None
        if value is None or value == [] or value == "":
            self.codes.append(MISSING)
            return
        token = self._token(value)
        code = self._index.get(token)
        if code is None and not self.fixed:
            code = self._index[token] = len(self.tokens)
            self.tokens.append(token)
            self.domain.append(token)
        if code is None:
            self.out_of_domain += 1  # e.g. a choice removed by a later protocol version
            code = MISSING
        self.codes.append(code)


@dataclass
class Ratings:
    """Everything the analysis keeps of a study's annotations: integer columns."""

    fields: Sequence[Field]
    item_ids: array = field(default_factory=lambda: array("q"))
    pool_ids: array = field(default_factory=lambda: array("q"))
    coders: list[FieldCoder] = field(default_factory=list)

    def __post_init__(self):
        if not self.coders:
            self.coders = [FieldCoder(f) for f in self.fields]

    def add_rows(self, rows: Iterable[tuple[int, int, Any]]) -> int:
        n = 0
        for item_id, pool_id, answers in rows:
            self.item_ids.append(item_id)
            self.pool_ids.append(pool_id)
            for coder in self.coders:
                coder.add(answers)
            n += 1
        return n

    def __len__(self) -> int:
        return len(self.item_ids)


@dataclass(frozen=True)
class Units:
    """Row → unit index, and the pool of each unit."""

    of_row: np.ndarray  # shape (rows,)
    pool: np.ndarray  # shape (units,)

    @classmethod
    def from_ratings(cls, ratings: Ratings) -> Units:
        keys = np.stack([np.frombuffer(ratings.pool_ids, dtype=np.int64), np.frombuffer(ratings.item_ids, dtype=np.int64)], axis=1)
        if len(keys) == 0:
            return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        return cls(inverse.reshape(-1), unique[:, 0])


def value_counts(units: Units, codes: np.ndarray, n_values: int) -> np.ndarray:
    """The units × values matrix: how many annotators gave each value to each unit."""
    n_units = len(units.pool)
    present = codes >= 0
    flat = units.of_row[present] * n_values + codes[present]
    return np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values)


def field_agreement(coder: FieldCoder, units: Units, pools: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
    """Alpha for one field, overall and per pool (``pools`` maps a pool id to its labels)."""
    f = coder.field
    codes = np.frombuffer(coder.codes, dtype=np.int32).astype(np.int64)
    counts = value_counts(units, codes, len(coder.domain))
    domain = coder.domain if coder.fixed else list(range(len(coder.domain)))
    per_pool = []
    for pool_id, labels in pools.items():
        figures = alpha(counts[units.pool == pool_id], f.level, domain)
        per_pool.append({"pool_id": pool_id, **labels, **figures.as_dict()})
    overall = alpha(counts, f.level, domain)
    return {
        "key": f.key,
        "label": f.label,
        "type": f.type,
        "level": f.level,
        "values": list(coder.tokens),
        "out_of_domain": coder.out_of_domain,
        "overall": overall.as_dict(),
        "pools": per_pool,
    }


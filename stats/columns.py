"""A study's annotations as columns: what the analysis, its reports and the metric correlation
read, built from chunks of rows. Pure: no Django (``analysis.reader.annotation_columns`` reads them).

Each chunk is a list of columns: id, item, pool, annotator, protocol version, skipped, time spent
(ms), counted (False for an annotation read only for quality control: left out because its
annotator is excluded), then the JSON text of each answer key read (None where the answer lacks
the key). Each key's texts are
interned: a column is an int32 code per annotation into the list of its distinct answers, each
decoded once. A study of a million annotations is then a few flat arrays, and a consumer's
per-answer work (coding, normalising) is done once per distinct answer, not once per row.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

CHUNK_SIZE = 50_000
MISSING = -1
KEYS_AT = 8  # a chunk's first answer key column


@dataclass
class KeyColumn:
    """One answer key over every annotation: ``codes[i]`` indexes ``values`` (the distinct answers,
    decoded) or is -1 when annotation i has no such key. A JSON null is a value (None) like any other."""

    codes: np.ndarray
    values: list[Any]

    def mapped(self, fn: Callable[[Any], Any]) -> np.ndarray:
        """``fn`` of each annotation's answer (``fn(None)`` where absent), as an object array;
        ``fn`` runs once per distinct answer."""
        table = np.empty(len(self.values) + 1, dtype=object)
        table[:-1] = [fn(v) for v in self.values]
        table[-1] = fn(None)
        return table[self.codes]  # code -1 takes the last entry

    def numbers(self, fn: Callable[[Any], float | None]) -> np.ndarray:
        """``fn`` of each answer as float64, NaN where ``fn`` gives None or the key is absent."""
        table = np.empty(len(self.values) + 1, dtype=np.float64)
        table[:-1] = [np.nan if (x := fn(v)) is None else x for v in self.values]
        table[-1] = np.nan
        return table[self.codes]

    def take(self, rows: np.ndarray) -> KeyColumn:
        return KeyColumn(self.codes[rows], self.values)


@dataclass
class AnnotationColumns:
    """The annotations of a study up to a fingerprint's last id, in id order, as columns."""

    item: np.ndarray  # int64 item id (the reports get the items' names: an object array)
    pool: np.ndarray  # int64 pool id
    annotator: np.ndarray  # int64 annotator id
    version: np.ndarray  # int64 protocol version
    skipped: np.ndarray  # bool: the annotator skipped the item (no field was answered)
    keys: dict[str, KeyColumn] = field(default_factory=dict)
    seconds: np.ndarray | None = None  # float64 time spent on the item
    counted: np.ndarray | None = None  # bool: counts (False: read only for the excluded annotators' scores)

    def __len__(self) -> int:
        return len(self.item)

    def take(self, rows: np.ndarray) -> AnnotationColumns:
        """The annotations selected by ``rows`` (a boolean mask or indices)."""
        return AnnotationColumns(
            self.item[rows], self.pool[rows], self.annotator[rows], self.version[rows], self.skipped[rows],
            {k: c.take(rows) for k, c in self.keys.items()},
            None if self.seconds is None else self.seconds[rows],
            None if self.counted is None else self.counted[rows],
        )

    def counted_only(self) -> AnnotationColumns:
        """The annotations that count (itself when every one does)."""
        if self.counted is None or self.counted.all():
            return self
        return self.take(self.counted)

    def answered(self) -> AnnotationColumns:
        """The annotations that were not skipped."""
        return self.take(~self.skipped)

    def versions(self) -> list[int]:
        return [int(v) for v in np.unique(self.version)]

    def countries(self, country_of: Mapping[int, Any]) -> np.ndarray:
        """Each annotation's pool as ``country_of`` names it (an object array; None for a pool it
        does not name), looked up once per pool."""
        pools, inverse = np.unique(self.pool, return_inverse=True)
        return np.array([country_of.get(int(p)) for p in pools] + [None], dtype=object)[inverse.reshape(-1)]


class Interner:
    """Codes for one key's JSON texts across chunks; decodes each distinct text once."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.values: list[Any] = []
        self.parts: list[np.ndarray] = []

    def add(self, texts: Sequence[str | None]) -> None:
        local, uniques = pd.factorize(np.asarray(texts, dtype=object), use_na_sentinel=True)
        if len(uniques) == 0:
            self.parts.append(np.full(len(local), MISSING, dtype=np.int32))
            return
        index, values = self.index, self.values
        glob = np.empty(len(uniques) + 1, dtype=np.int32)
        for i, text in enumerate(uniques):
            code = index.get(text)
            if code is None:
                code = index[text] = len(values)
                values.append(json.loads(text))
            glob[i] = code
        glob[-1] = MISSING
        self.parts.append(glob[local])  # -1 (no key) takes the last entry

    def column(self) -> KeyColumn:
        codes = np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=np.int32)
        return KeyColumn(codes, self.values)


def columns_from_chunks(
    chunks: Iterable[Sequence[Sequence[Any]]], keys: Sequence[str], on_chunk: Callable[[int], None] | None = None
) -> AnnotationColumns:
    """Join chunks of columns (see the module's docstring) into ``AnnotationColumns``;
    ``on_chunk(rows so far)`` is called after each chunk."""
    ints: list[list[np.ndarray]] = [[], [], [], [], [], [], []]
    interners = [Interner() for _ in keys]
    read = 0
    for columns in chunks:
        for i in range(4):
            ints[i].append(np.asarray(columns[1 + i], dtype=np.int64))
        ints[4].append(np.asarray(columns[5], dtype=bool))
        ints[5].append(np.asarray(columns[6], dtype=np.float64) / 1000)
        ints[6].append(np.asarray(columns[7], dtype=bool))
        for interner, texts in zip(interners, columns[KEYS_AT:], strict=True):
            interner.add(texts)
        read += len(columns[0])
        if on_chunk is not None:
            on_chunk(read)

    def joined(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

    return AnnotationColumns(
        item=joined(ints[0], np.int64),
        pool=joined(ints[1], np.int64),
        annotator=joined(ints[2], np.int64),
        version=joined(ints[3], np.int64),
        skipped=joined(ints[4], bool),
        keys={k: interner.column() for k, interner in zip(keys, interners, strict=True)},
        seconds=joined(ints[5], np.float64),
        counted=joined(ints[6], bool),
    )

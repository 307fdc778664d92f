"""Turning stored answers into agreement figures. Pure: no Django, plain data in and out.

The analysis reads annotations as (item id, pool id, protocol version, answers) tuples in chunks.
Each answer is read with the spec of its own version (``protocols.ProtocolSet``). Each analysable
field (the newest definition of its key has a level of measurement) gets a ``FieldCoder`` that
turns an answer into a small integer code (the column of the value in the field's domain, -1 when
absent), so a whole study is held as a few integer arrays, never as one Python object per
annotation. ``field_agreement`` then builds the value-counts matrix with numpy and computes alpha
overall and per pool.

Units: for a top-level field, an item as rated within one pool: annotators are compared with the
other annotators of their own country, and "overall" pools those units across countries. For a
sub-field of a per_document field, an (item, document) pair within one pool.

An item-level skip has no answer to any field: it is left out of every field, and counted.
"""

from __future__ import annotations

import json
import math
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from studies.protocol import SKIP, Field, value_token

from .agreement import alpha
from .protocols import ProtocolSet, fields_by_key
from .scores import DEFAULT_MAPPING, Scorer, scored_fields

MISSING = -1
SCORE_COLUMNS = ["item_id", "document_id", "document_position", "mean", "annotators"]


class FieldCoder:
    """Codes the answers of one field (its newest definition: ``f``) as column indices of its domain."""

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
            # Set-valued (multi), pick_one and any other field: each distinct answer seen is a nominal value.
            self.tokens, self.domain = [], []
        self._index = {token: i for i, token in enumerate(self.tokens)}
        self.codes = array("i")
        self.out_of_domain = 0

    def _token(self, value: Any) -> str:
        if self.field.type == "pick_one" and isinstance(value, Mapping):
            return value_token(value.get("choice"))  # the unit value is the candidate chosen, not the order shown
        if isinstance(value, list):
            order = {c.token: i for i, c in enumerate(self.field.choices)}
            parts = sorted((value_token(v) for v in value), key=lambda t: (order.get(t, len(order)), t))
            return "|".join(parts)
        if isinstance(value, Mapping):
            return json.dumps(value, sort_keys=True)
        return value_token(value)

    def add(self, answered_as: Field | None, value: Any) -> None:
        """Code ``value``, an answer given to ``answered_as`` (the field of its own version)."""
        if answered_as is None or value is None or value == [] or value == "":
            self.codes.append(MISSING)
            return
        if answered_as.type != self.field.type:  # the key meant another kind of question then
            self.out_of_domain += 1
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


class Units:
    """Row → unit index, and the pool of each unit. A unit is a distinct (pool, *keys) tuple."""

    def __init__(self, of_row: np.ndarray, pool: np.ndarray, item: np.ndarray | None = None):
        self.of_row = of_row  # shape (rows,)
        self.pool = pool  # shape (units,)
        self.item = item if item is not None else np.zeros(len(pool), dtype=np.int64)  # first key: the item

    @classmethod
    def from_keys(cls, pool_ids: array, *keys: array) -> Units:
        columns = [np.frombuffer(pool_ids, dtype=np.int64), *(np.frombuffer(k, dtype=np.int64) for k in keys)]
        if len(columns[0]) == 0:
            return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        unique, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
        return cls(inverse.reshape(-1), unique[:, 0], unique[:, 1] if unique.shape[1] > 1 else None)


def attribute_masks(units: Units, values_of_item: Mapping[str, Mapping[int, str]]) -> dict[str, dict[str, np.ndarray]]:
    """For each item attribute (model, category), a units mask per value: the groups alpha is
    also computed for. Attributes with fewer than two values are left out (nothing to compare)."""
    out = {}
    for attribute, of_item in values_of_item.items():
        labels = np.array([of_item.get(int(i), "") for i in units.item], dtype=object)
        values = sorted(v for v in set(labels.tolist()) if v)
        if len(values) >= 2:
            out[attribute] = {v: labels == v for v in values}
    return out


def value_counts(units: Units, codes: np.ndarray, n_values: int) -> np.ndarray:
    """The units × values matrix: how many annotators gave each value to each unit."""
    n_units = len(units.pool)
    present = codes >= 0
    flat = units.of_row[present] * n_values + codes[present]
    return np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values)


def field_agreement(
    coder: FieldCoder,
    units: Units,
    pools: Mapping[int, Mapping[str, Any]],
    attributes: Mapping[str, Mapping[str, np.ndarray]] | None = None,
) -> dict[str, Any]:
    """Alpha for one field, overall, per pool (``pools`` maps a pool id to its labels) and per
    value of each item attribute (``attributes``: see ``attribute_masks``)."""
    f = coder.field
    codes = np.frombuffer(coder.codes, dtype=np.int32).astype(np.int64)
    counts = value_counts(units, codes, len(coder.domain))
    domain = coder.domain if coder.fixed else list(range(len(coder.domain)))
    per_pool = []
    for pool_id, labels in pools.items():
        figures = alpha(counts[units.pool == pool_id], f.level, domain)
        per_pool.append({"pool_id": pool_id, **labels, **figures.as_dict()})
    overall = alpha(counts, f.level, domain)
    by = {
        attribute: [{"value": value, **alpha(counts[mask], f.level, domain).as_dict()} for value, mask in masks.items()]
        for attribute, masks in (attributes or {}).items()
    }
    return {
        "key": f.key,
        "label": f.label,
        "type": f.type,
        "level": f.level,
        "values": list(coder.tokens),
        "out_of_domain": coder.out_of_domain,
        "overall": overall.as_dict(),
        "pools": per_pool,
        "by": by,
    }


class DocumentRatings:
    """The sub-field answers of one per_document field: one row per (annotation, document)."""

    def __init__(self, f: Field, sub_groups: Sequence[Sequence[Field]], mapping: Mapping[str, float]):
        self.field = f
        self.mapping = mapping
        self.scorer = Scorer(mapping)
        self.coders = [FieldCoder(group[0]) for group in sub_groups if group[0].level]
        self.scored = [s.key for s in scored_fields([group[0] for group in sub_groups], mapping)]
        self.item_ids, self.pool_ids, self.doc_ids = array("q"), array("q"), array("q")
        self.scores = array("d")
        self._subs: dict[int, dict[str, Field]] = {}  # version → its sub-fields by key

    def add(self, item_id: int, pool_id: int, version: int, answered_as: Field | None, entries: Any) -> None:
        """Add the entries of one annotation, given to ``answered_as`` (the field of ``version``)."""
        if answered_as is None or answered_as.type != "per_document" or not isinstance(entries, list):
            return
        subs = self._subs.get(version)
        if subs is None:
            subs = self._subs[version] = {s.key: s for s in answered_as.fields}
        for entry in entries:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("document"), int):
                continue
            self.item_ids.append(item_id)
            self.pool_ids.append(pool_id)
            self.doc_ids.append(entry["document"])
            for coder in self.coders:
                coder.add(subs.get(coder.field.key), entry.get(coder.field.key))
            score = self.scorer(entry, answered_as.fields)
            self.scores.append(np.nan if score is None else float(score))

    def score_means(self) -> list[tuple[int, int, float, int]]:
        """(item id, document id, mean combined score over annotators, annotators) per pair scored."""
        scores = np.frombuffer(self.scores, dtype=np.float64)
        scored = ~np.isnan(scores)
        if not scored.any():
            return []
        keys = np.stack([np.frombuffer(self.item_ids, dtype=np.int64), np.frombuffer(self.doc_ids, dtype=np.int64)], axis=1)
        pairs, inverse = np.unique(keys[scored], axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        sums = np.bincount(inverse, weights=scores[scored], minlength=len(pairs))
        counts = np.bincount(inverse, minlength=len(pairs))
        return [(int(i), int(d), float(s / n), int(n)) for (i, d), s, n in zip(pairs, sums, counts, strict=True)]

    def score_summary(self, *, items: Mapping[int, str], positions: Mapping[int, int]) -> dict[str, Any] | None:
        """The mean combined score per (item, document), with a histogram of the rounded means;
        ``items`` and ``positions`` name the items (external id) and place the documents."""
        if not self.scored:
            return None
        means = self.score_means()
        rounded = Counter(math.floor(mean + 0.5) for _, _, mean, _ in means)
        return {
            "fields": self.scored,
            "mapping": [[answer, points] for answer, points in self.mapping.items()],  # a list: jsonb reorders keys
            "pairs": len(means),
            "mean": round(sum(mean for _, _, mean, _ in means) / len(means), 4) if means else None,
            "histogram": [{"score": score, "pairs": n} for score, n in sorted(rounded.items())],
            "columns": SCORE_COLUMNS,
            "rows": [[items.get(i, str(i)), d, positions.get(d), round(mean, 4), n] for i, d, mean, n in means],
        }

    def agreement(self, pools: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
        units = Units.from_keys(self.pool_ids, self.item_ids, self.doc_ids)
        return {
            "key": self.field.key,
            "label": self.field.label,
            "unit": "(item, document) within pool",
            "rows": len(self.doc_ids),
            "units": len(units.pool),
            "fields": [field_agreement(coder, units, pools) for coder in self.coders],
        }


class Ratings:
    """Everything the analysis keeps of a study's annotations: integer columns."""

    def __init__(self, protocols: ProtocolSet, mapping: Mapping[str, float] = DEFAULT_MAPPING):
        self.protocols = protocols
        groups = protocols.groups()
        self.coders = [FieldCoder(g[0]) for g in groups if g[0].level]
        self.documents = [
            DocumentRatings(doc, protocols.sub_groups(doc.key), doc.score or mapping)
            for g in groups
            for doc in [next((f for f in g if f.type == "per_document"), None)]
            if doc is not None
        ]
        self.item_ids, self.pool_ids = array("q"), array("q")
        self.skipped: Counter[int] = Counter()  # pool id → annotations skipped
        self.seen = 0
        self._fields: dict[int, dict[str, Field]] = {}

    def _fields_of(self, version: int) -> dict[str, Field]:
        found = self._fields.get(version)
        if found is None:
            found = self._fields[version] = fields_by_key(self.protocols.for_version(version))
        return found

    def add_rows(self, rows: Iterable[tuple[int, int, int, Any]]) -> int:
        n = 0
        for item_id, pool_id, version, answers in rows:
            n += 1
            if not isinstance(answers, Mapping):
                answers = {}
            if SKIP in answers:
                self.skipped[pool_id] += 1
                continue
            fields = self._fields_of(version)
            self.item_ids.append(item_id)
            self.pool_ids.append(pool_id)
            for coder in self.coders:
                coder.add(fields.get(coder.field.key), answers.get(coder.field.key))
            for docs in self.documents:
                docs.add(item_id, pool_id, version, fields.get(docs.field.key), answers.get(docs.field.key))
        self.seen += n
        return n

    @property
    def n_skipped(self) -> int:
        return sum(self.skipped.values())

    def __len__(self) -> int:
        return self.seen

"""Turning stored answers into agreement figures. Pure: no Django, plain data in and out.

The analysis reads a study's annotations as columns (``columns.AnnotationColumns``: each answer
key an integer code per annotation into its distinct answers). Each answer is read with the spec of
its own version (``protocols.ProtocolSet``). Each analysable field (the newest definition of its
key has a level of measurement) gets a ``FieldCoder`` that turns each distinct answer, once per
version, into a small integer code (the column of the value in the field's domain, -1 when
absent), so a whole study is held as a few integer arrays, never as one Python object per
annotation. ``field_agreement`` then builds the value-counts matrix with numpy and computes alpha
overall and per pool.

Units: for a top-level field, an item as rated within one pool: annotators are compared with the
other annotators of their own country, and "overall" pools those units across countries. For a
sub-field of a per_document field, an (item, document) pair within one pool.

An item-level skip has no answer to any field: it is left out of every field, and counted.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from studies.protocol import Field, answer_token

from .agreement import AC_WEIGHTS, ICC_LEVELS, alpha, gwet, icc_oneway
from .agreement.differences import permutations_for, pool_differences
from .columns import AnnotationColumns, KeyColumn
from .reports import score_table
from .scores import DEFAULT_MAPPING, Scorer, scored_fields
from .versions import ProtocolSet, fields_by_key

MISSING = -1
SCORE_COLUMNS = ["item_id", "document_id", "document_position", "mean", "annotators"]


class FieldCoder:
    """Codes the answers of one field (its newest definition: ``f``) as column indices of its domain."""

    def __init__(self, f: Field):
        self.field = f
        choices = f.kind.domain(f)  # a scale's points by value, a choice's in spec order
        self.fixed = choices is not None
        if choices is not None:
            self.tokens: list[str] = [c.token for c in choices]
            self.domain: list[Any] = [c.value for c in choices]
        else:
            # Set-valued (multi), pick_one and any other field: each distinct answer seen is a nominal value.
            self.tokens, self.domain = [], []
        self._index = {token: i for i, token in enumerate(self.tokens)}
        self.codes = np.zeros(0, dtype=np.int64)
        self.out_of_domain = 0

    def code(self, answered_as: Field | None, value: Any) -> tuple[int, bool]:
        """The code of ``value``, an answer given to ``answered_as`` (the field of its own version),
        and whether it lies outside the field's domain (then the code is MISSING)."""
        if answered_as is None:
            return MISSING, False
        token = answer_token(self.field, value)
        if token is None:
            return MISSING, False
        if answered_as.type != self.field.type:  # the key meant another kind of question then
            return MISSING, True
        code = self._index.get(token)
        if code is None and not self.fixed:
            code = self._index[token] = len(self.tokens)
            self.tokens.append(token)
            self.domain.append(token)
        if code is None:  # e.g. a choice removed by a later protocol version
            return MISSING, True
        return code, False

    def code_column(self, column: KeyColumn, version: np.ndarray, answered_as: Mapping[int, Field | None]) -> None:
        """Code a whole column: each distinct answer once per protocol version (``answered_as``:
        version → this key's field in that version), then every row by table lookup."""
        out = np.full(len(column.codes), MISSING, dtype=np.int64)
        for v, f in answered_as.items():
            rows = np.flatnonzero(version == v)
            raw = column.codes[rows]
            table = np.full(len(column.values) + 1, MISSING, dtype=np.int64)  # raw -1 (absent) → last
            bad = np.zeros(len(column.values) + 1, dtype=bool)
            for c in np.unique(raw[raw >= 0]).tolist():
                table[c], bad[c] = self.code(f, column.values[c])
            out[rows] = table[raw]
            self.out_of_domain += int(bad[raw].sum())
        self.codes = out


class Units:
    """Row → unit index, and the pool of each unit. A unit is a distinct (pool, *keys) tuple."""

    def __init__(self, of_row: np.ndarray, pool: np.ndarray, item: np.ndarray | None = None):
        self.of_row = of_row  # shape (rows,)
        self.pool = pool  # shape (units,)
        self.item = item if item is not None else np.zeros(len(pool), dtype=np.int64)  # first key: the item

    @classmethod
    def from_keys(cls, pool_ids: Sequence[int], *keys: Sequence[int]) -> Units:
        columns = [np.asarray(c).astype(np.int64, copy=False) for c in (pool_ids, *keys)]
        if len(columns[0]) == 0:
            return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        # One int64 per row (mixed radix over each column's sorted distinct values), so the units
        # come from one 1-d sort instead of a sort of rows.
        distinct, codes = zip(*(np.unique(c, return_inverse=True) for c in columns), strict=True)
        combined = np.zeros(len(columns[0]), dtype=np.int64)
        for values, code in zip(distinct, codes, strict=True):
            combined = combined * len(values) + code.reshape(-1)
        unique, inverse = np.unique(combined, return_inverse=True)
        digits = []
        for values in reversed(distinct):
            unique, digit = np.divmod(unique, len(values))
            digits.append(values[digit])
        pool, *rest = reversed(digits)
        return cls(inverse.reshape(-1), pool, rest[0] if rest else None)


def attribute_masks(units: Units, values_of_item: Mapping[str, Mapping[int, str]]) -> dict[str, dict[str, np.ndarray]]:
    """For each item attribute (model, category), a units mask per value: the groups alpha is
    also computed for. Attributes with fewer than two values are left out (nothing to compare)."""
    out = {}
    for attribute, of_item in values_of_item.items():
        labels = pd.Series(of_item, dtype=object).reindex(units.item).fillna("").to_numpy(dtype=object)
        values = sorted(v for v in pd.unique(labels).tolist() if v)
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
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Agreement for one field (``coefficients``: alpha, Gwet's AC, ICC(1) for numbers), overall, per
    pool (``pools`` maps a pool id to its labels) and per value of each item attribute
    (``attributes``: see ``attribute_masks``), each alpha with a bootstrap interval of
    ``n_resamples`` resamples of the units drawn with ``seed``; with two pools or more, the
    differences between them (``differences.pool_differences``; ``permutations_for`` says how many
    permutations)."""
    f = coder.field
    level = f.level
    if level is None:  # coders are made for fields with a level only
        raise ValueError(f"field '{f.key}' has no level of measurement")
    codes = coder.codes
    counts = value_counts(units, codes, len(coder.domain))
    domain = coder.domain if coder.fixed else list(range(len(coder.domain)))

    def figures(rows: np.ndarray | slice) -> dict[str, Any]:
        return coefficients(counts[rows], level, domain, n_resamples=n_resamples, seed=seed)

    per_pool = [{"pool_id": pool_id, **labels, **figures(units.pool == pool_id)} for pool_id, labels in pools.items()]
    overall = figures(slice(None))
    by = {
        attribute: [{"value": value, **figures(mask)} for value, mask in masks.items()]
        for attribute, masks in (attributes or {}).items()
    }
    differences = None
    if len(pools) >= 2:
        differences = pool_differences(counts, units.pool, level, domain, pools=list(pools), n_resamples=n_resamples,
                                       n_permutations=permutations_for(len(pools), n_resamples), seed=seed)
    return {
        "key": f.key,
        "label": f.label,
        "type": f.type,
        "level": f.level,
        "values": list(coder.tokens),
        "out_of_domain": coder.out_of_domain,
        "overall": overall,
        "pools": per_pool,
        "by": by,
        "differences": differences,
    }


def coefficients(
    counts: np.ndarray, level: str, domain: Sequence[Any], *, n_resamples: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """Every agreement coefficient of one group of units (a units × values count matrix): alpha's
    figures at the top level, as before, with Gwet's AC1/AC2 under ``ac`` and, for numbers, the
    one-way intraclass correlation under ``icc`` (the crowd's design: each unit rated by different
    annotators)."""
    out = alpha(counts, level, domain, n_resamples=n_resamples, seed=seed).as_dict()
    out["ac"] = gwet(counts, domain, weights=AC_WEIGHTS[level]).as_dict()
    if level in ICC_LEVELS:
        out["icc"] = icc_oneway(counts, domain).as_dict()
    return out


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
        self._codes = [array("q") for _ in self.coders]  # per sub-field coder, a code per row
        self._subs: dict[int, dict[str, Field]] = {}  # version → its sub-fields by key

    def add(self, item_id: int, pool_id: int, version: int, answered_as: Field | None, entries: Any) -> None:
        """Add the entries of one annotation, given to ``answered_as`` (the field of ``version``)."""
        if answered_as is None or not answered_as.kind.container or not isinstance(entries, list):
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
            for coder, codes in zip(self.coders, self._codes, strict=True):
                code, outside = coder.code(subs.get(coder.field.key), entry.get(coder.field.key))
                codes.append(code)
                coder.out_of_domain += outside
            score = self.scorer(entry, answered_as.fields)
            self.scores.append(np.nan if score is None else float(score))

    def score_summary(
        self, *, items: Mapping[int, str], positions: Mapping[int, int], countries: Mapping[int, Any]
    ) -> dict[str, Any] | None:
        """The mean combined score per (item, document), with a histogram of the rounded means
        (``reports.score_table``, the same aggregation as RAVENEA's report); ``items`` and
        ``positions`` name the items (external id) and place the documents, ``countries`` names
        each pool."""
        if not self.scored:
            return None
        scores = np.frombuffer(self.scores, dtype=np.float64)
        kept = ~np.isnan(scores)
        pools = np.frombuffer(self.pool_ids, dtype=np.int64)[kept]
        table = score_table(pd.DataFrame({
            "item": np.frombuffer(self.item_ids, dtype=np.int64)[kept],
            "country": [countries.get(p) for p in pools.tolist()],
            "document": np.frombuffer(self.doc_ids, dtype=np.int64)[kept],
            "score": scores[kept],
        }))
        pairs = table.pairs
        return {
            "fields": self.scored,
            "mapping": [[answer, points] for answer, points in self.mapping.items()],  # a list: jsonb reorders keys
            "pairs": len(pairs),
            "mean": None if table.mean is None else round(table.mean, 4),
            "histogram": [{"score": score, "pairs": n} for score, n in table.histogram],
            "columns": SCORE_COLUMNS,
            "rows": [
                [items.get(i, str(i)), d, positions.get(d), round(mean, 4), n]
                for i, d, mean, n in zip(pairs["item"].tolist(), pairs["document"].tolist(), pairs["mean"].tolist(),
                                         pairs["size"].tolist(), strict=True)
            ],
        }

    def agreement(
        self, pools: Mapping[int, Mapping[str, Any]], *, n_resamples: int = 1000, seed: int = 0
    ) -> dict[str, Any]:
        units = Units.from_keys(self.pool_ids, self.item_ids, self.doc_ids)
        for coder, codes in zip(self.coders, self._codes, strict=True):
            coder.codes = np.frombuffer(codes, dtype=np.int64)
        return {
            "key": self.field.key,
            "label": self.field.label,
            "unit": "(item, document) within pool",
            "rows": len(self.doc_ids),
            "units": len(units.pool),
            "fields": [
                field_agreement(coder, units, pools, n_resamples=n_resamples, seed=seed) for coder in self.coders
            ],
        }


class Ratings:
    """Everything the analysis keeps of a study's annotations: integer columns, coded from the
    study's ``AnnotationColumns`` (which must hold every key in ``Ratings.keys(protocols)``)."""

    def __init__(self, protocols: ProtocolSet, mapping: Mapping[str, float] = DEFAULT_MAPPING):
        self.protocols = protocols
        groups = protocols.groups()
        self.coders = [FieldCoder(g[0]) for g in groups if g[0].level]
        self.documents = [
            DocumentRatings(doc, protocols.sub_groups(doc.key), doc.score or mapping)
            for g in groups
            for doc in [next((f for f in g if f.kind.container), None)]
            if doc is not None
        ]
        self.item_ids = np.zeros(0, dtype=np.int64)
        self.pool_ids = np.zeros(0, dtype=np.int64)
        self.skipped: Counter[int] = Counter()  # pool id → annotations skipped
        self.seen = 0

    @staticmethod
    def keys(protocols: ProtocolSet) -> list[str]:
        """The answer keys the analysis reads."""
        return [g[0].key for g in protocols.groups() if g[0].level or g[0].kind.container]

    def add_columns(self, columns: AnnotationColumns) -> None:
        """Code every annotation of ``columns`` (all of the study's, read once)."""
        self.seen = len(columns)
        pools, counts = np.unique(columns.pool[columns.skipped], return_counts=True)
        self.skipped = Counter({int(p): int(n) for p, n in zip(pools, counts, strict=True)})
        answered = columns.answered()
        self.item_ids, self.pool_ids = answered.item, answered.pool
        fields = {v: fields_by_key(self.protocols.for_version(v)) for v in answered.versions()}
        for coder in self.coders:
            key = coder.field.key
            coder.code_column(answered.keys[key], answered.version, {v: fs.get(key) for v, fs in fields.items()})
        for docs in self.documents:
            key = docs.field.key
            column = answered.keys[key]
            for item, pool, version, code in zip(
                answered.item.tolist(), answered.pool.tolist(), answered.version.tolist(), column.codes.tolist(),
                strict=True,
            ):
                if code >= 0:
                    docs.add(item, pool, version, fields[version].get(key), column.values[code])

    @property
    def n_skipped(self) -> int:
        return sum(self.skipped.values())

    def __len__(self) -> int:
        return self.seen

"""A study's gold labels from its annotations as columns. Pure: no Django.

The input is what the analysis already reads (``stats.columns``): chunks of columns — annotation
id, item id, pool id, annotator id, protocol version, skipped, then the JSON text of each answer
key in ``gold_keys(protocols)`` (None where the answer lacks the key) — joined by
``columns_from_chunks`` (``analysis.reader.annotation_columns`` makes them from the counted
annotations, 50,000 rows at a time). Beside them: the ``ProtocolSet`` of the versions the answers
were given under, each pool's country (``country_of``: pool id → code), the researcher's item ids
(``item_names``: item id → external id) and the annotators to leave out (``excluded``: flagged by a
checker or excluded by the researcher). A report kind that needs what only the database knows
(item quotas, candidates) takes it from the ``ReportContext`` the caller builds, as for reports.

``study_gold`` returns ``StudyGold``: the per-field tables (``stats.gold.fields``) of every
top-level field with a level of measurement and of every such sub-field of a per_document field
(its unit an (item, document) pair: the row's ``document``; its field ``container.sub``), and
the per-paper tables (``stats.gold.papers``) of every report the current protocol declares.
Skipped annotations are left out; an answer is read under the field of its own version and left
out when that version's field of the key had another type.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from studies.protocol import Field

from ..columns import AnnotationColumns
from ..reports.catalog import REPORTS
from ..reports.kinds import ReportContext
from ..versions import ProtocolSet, fields_by_key
from .fields import ANNOTATOR_COLUMNS, GOLD_COLUMNS, field_gold
from .papers import GOLD, named


@dataclass(frozen=True)
class StudyGold:
    """``by_country`` and ``by_item``: every field's gold rows (``GOLD_COLUMNS``); ``annotators``:
    each annotator's Dawid–Skene competence per categorical field (``ANNOTATOR_COLUMNS``); ``papers``:
    report kind → its gold table (``papers.COLUMNS``); ``errors``: report kind → why its table
    could not be made."""

    by_country: pd.DataFrame
    by_item: pd.DataFrame
    annotators: pd.DataFrame
    papers: dict[str, pd.DataFrame] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


def gold_keys(protocols: ProtocolSet) -> list[str]:
    """The answer keys the gold labels read: every field with a level, and what the reports read."""
    keys = [g[0].key for g in protocols.groups() if g[0].level or g[0].kind.container]
    for spec in protocols.current.reports:
        keys.extend(k for k in REPORTS[spec.kind].keys(spec) if k not in keys)
    return keys


def without(columns: AnnotationColumns, excluded: Collection[Any]) -> AnnotationColumns:
    """The annotations of ``columns`` whose annotator is not in ``excluded``."""
    if not excluded:
        return columns
    return columns.take(~np.isin(columns.annotator, np.fromiter(excluded, dtype=np.int64, count=len(excluded))))


def field_frame(answered: AnnotationColumns, protocols: ProtocolSet, key: str,
                country_of: Mapping[int, Any]) -> pd.DataFrame:
    """item, country, annotator, value of one key; None where the answer was given to a field of
    another type (or the key was not asked)."""
    newest = protocols.groups()
    f = next(g[0] for g in newest if g[0].key == key)
    values = answered.keys[key].mapped(lambda v: v)
    for v in answered.versions():
        then = fields_by_key(protocols.for_version(v)).get(key)
        if then is None or then.type != f.type:  # the key meant another question then
            values[answered.version == v] = None
    return pd.DataFrame({"item": answered.item, "country": answered.countries(country_of),
                         "annotator": answered.annotator, "value": values})


def document_frames(answered: AnnotationColumns, protocols: ProtocolSet, container: Field,
                    country_of: Mapping[int, Any]) -> list[tuple[Field, pd.DataFrame]]:
    """Per sub-field with a level of the per_document field ``container``: its frame of (item,
    document) pairs as items, country, annotator, value; None where the answer was given to a
    sub-field of another type."""
    subs = [g[0] for g in protocols.sub_groups(container.key) if g[0].level]
    then: dict[int, dict[str, Field]] = {}
    for v in answered.versions():
        asked = fields_by_key(protocols.for_version(v)).get(container.key)
        then[v] = {s.key: s for s in asked.fields} if asked is not None and asked.kind.container else {}
    column = answered.keys[container.key]
    countries = answered.countries(country_of).tolist()
    rows: list[tuple[Any, ...]] = []
    for item, country, annotator, version, code in zip(
        answered.item.tolist(), countries, answered.annotator.tolist(), answered.version.tolist(),
        column.codes.tolist(), strict=True,
    ):
        entries = column.values[code] if code >= 0 else None
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, Mapping) and isinstance(entry.get("document"), int):
                rows.append(((item, entry["document"]), country, annotator, version, entry))
    out = []
    for sub in subs:
        values = [
            e.get(sub.key) if (asked := then[v].get(sub.key)) is not None and asked.type == sub.type else None
            for *_, v, e in rows
        ]
        frame = pd.DataFrame({"item": [r[0] for r in rows], "country": [r[1] for r in rows],
                              "annotator": [r[2] for r in rows], "value": values}, dtype=object)
        out.append((sub, frame))
    return out


def _documents(gold: pd.DataFrame, container: Field) -> pd.DataFrame:
    """Gold rows of a sub-field: the (item, document) pair split, the field named under its container."""
    pairs = gold["item"].tolist()
    return gold.assign(item=[p[0] for p in pairs], document=[p[1] for p in pairs],
                       field=[f"{container.key}.{k}" for k in gold["field"]])


def study_gold(
    columns: AnnotationColumns,
    protocols: ProtocolSet,
    *,
    country_of: Mapping[int, Any],
    item_names: Mapping[int, Any] | None = None,
    excluded: Collection[int] = (),
    context: ReportContext | None = None,
    on_step: Callable[[], None] | None = None,
) -> StudyGold:
    """Every gold table of a study (see the module's docstring). ``context`` defaults to one with
    no item quotas (a prompt is decided on its votes) and no candidates. ``on_step()`` is called
    before each field, sub-field and paper table (a caller's heartbeat; it may raise to stop)."""
    step = on_step or (lambda: None)
    answered = without(columns.answered(), excluded)
    names = dict(item_names or {})
    by_country, by_item, annotators = [], [], []
    for group in protocols.groups():
        f = group[0]
        if f.level:
            step()
            gold = field_gold(field_frame(answered, protocols, f.key, country_of), f)
            by_country.append(named(gold.by_country, names))
            by_item.append(named(gold.by_item, names))
            annotators.append(gold.annotators)
        if f.kind.container:
            for sub, frame in document_frames(answered, protocols, f, country_of):
                step()
                gold = field_gold(frame, sub)
                by_country.append(named(_documents(gold.by_country, f), names))
                by_item.append(named(_documents(gold.by_item, f), names))
                annotators.append(gold.annotators.assign(field=[f"{f.key}.{k}" for k in gold.annotators["field"]]))
    context = context or ReportContext(protocols, dict(country_of), wanted=dict, candidates=dict)
    papers, errors = {}, {}
    for spec in protocols.current.reports:
        step()  # outside the try: a stop it raises is no failed table
        try:
            table = GOLD[spec.kind](REPORTS[spec.kind].read(spec, answered, context))
        except Exception as exc:  # noqa: BLE001 - bad data fails this table only
            errors[spec.kind] = f"{type(exc).__name__}: {exc}"
            continue
        papers[spec.kind] = named(named(table, names), names, "image")
    return StudyGold(
        by_country=_joined(by_country, GOLD_COLUMNS),
        by_item=_joined(by_item, GOLD_COLUMNS),
        annotators=_joined(annotators, ANNOTATOR_COLUMNS),
        papers=papers,
        errors=errors,
    )


def _joined(frames: list[pd.DataFrame], columns: tuple[str, ...]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(columns))


__all__ = ["StudyGold", "document_frames", "field_frame", "gold_keys", "study_gold", "without"]

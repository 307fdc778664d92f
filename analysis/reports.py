"""The reports a study's protocol declares (its ``reports`` setting), computed from its annotations.

The analysis's one pass over the annotations (``columns.AnnotationColumns``) holds every key the
reports read; each report keeps what it needs of each distinct answer (a number, a hashable vote or
set of choices, the highlighted texts) and the pure functions of ``stats.reports`` compute the
figures, the heavy ones over a pandas frame. Skipped annotations are left out; an answer is read only when its protocol
version has the report's fields with the same types. A report that fails on bad data records its
error and leaves the others, and the rest of the analysis, alone.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from studies.models import ItemQuota, Study
from studies.protocol import Field, Protocol
from studies.protocol.reports import REPORT_KINDS, ReportSpec

from stats.columns import AnnotationColumns
from stats.versions import ProtocolSet
from stats.reports import (
    CompletePrompts,
    answer_agreement,
    box_agreement,
    caption_win_rates,
    criteria_spearman,
    document_scores,
    error_type_shares,
    human_scores,
    prompt_filter_majority,
    word_frequency,
)
from stats.reports.common import number
from stats.reports.culturalframes import word_texts
from stats.scores import DEFAULT_MAPPING
from .reader import annotation_columns, complete_prompts_of

logger = logging.getLogger(__name__)

CHUNK_SIZE = 2000


# --- what each report keeps of an answer -------------------------------------------------------


def _hashable(value: Any) -> Any:
    """A vote or a set of ticked choices as a key to group by: a list as a tuple; anything that
    still cannot be a key (an answer of the wrong shape) as its JSON text."""
    if isinstance(value, list):
        value = tuple(value)
    try:
        hash(value)
    except TypeError:
        return json.dumps(value, sort_keys=True, default=str)
    return value


def _word_texts(value: Any) -> tuple[str, ...] | None:
    """The highlighted words of a ``highlight`` answer, as the report counts them (kept small: no
    offsets; a tuple, so each distinct answer is grouped by the report without JSON)."""
    return tuple(word_texts(value)) or None


def _image_key(value: Any) -> Any:
    return value.get("sha256") if isinstance(value, Mapping) else None


# --- one declared report ----------------------------------------------------------------------


@dataclass
class _Report:
    """A declared report and the annotations it reads: item, pool, annotator and version columns,
    plus one value column per reader (each reader applied once per distinct answer)."""

    spec: ReportSpec
    readers: list[tuple[str, Callable[[Any], Any], str]]  # (answer key, reader, storage)
    annotations: AnnotationColumns | None = None
    columns: list[np.ndarray] = field(default_factory=list)
    error: str = ""

    def read(self, annotations: AnnotationColumns) -> None:
        """Keep ``annotations`` (answered, of fitting versions) and read their values."""
        self.annotations = annotations
        self.columns = [
            annotations.keys[key].numbers(read) if storage == "number" else annotations.keys[key].mapped(read)
            for key, read, storage in self.readers
        ]

    @property
    def items(self) -> np.ndarray:
        return self.annotations.item

    def countries(self, country_of: Mapping[int, Any]) -> np.ndarray:
        return self.annotations.countries(country_of)

    def rows(self, country_of: Mapping[int, Any]) -> Iterator[tuple]:
        """(item id, country, *values), one per annotation read."""
        countries = self.countries(country_of).tolist()
        return zip(self.items.tolist(), countries, *(c.tolist() for c in self.columns), strict=True)

    def frame(self, country_of: Mapping[int, Any], names: Sequence[str]) -> pd.DataFrame:
        """The same as a frame: columns item, country, then ``names`` (one per reader)."""
        data = {"item": self.items, "country": self.countries(country_of)}
        data.update(zip(names, self.columns, strict=True))
        return pd.DataFrame(data)

    def fail(self, exc: Exception) -> None:
        logger.warning("report %s failed", self.spec.kind, exc_info=exc)
        self.error = f"{type(exc).__name__}: {exc}"


def _same(value: Any) -> Any:
    return value


def _readers(spec: ReportSpec) -> list[tuple[str, Callable[[Any], Any], str]]:
    """What the pass keeps of each answer, per kind: numbers in arrays, few values interned."""
    k = spec.key
    match spec.kind:
        case "human_scores":
            return [(k("value"), number, "number")]
        case "prompt_filter":
            return [(k("vote"), _hashable, "interned")]
        case "error_types":
            return [(k("alignment"), number, "number"), (k("error_types"), _hashable, "interned")]
        case "highlighted_words":
            return [(k("words"), _word_texts, "list")]
        case "criteria_spearman":
            return [(key, number, "number") for key in k("criteria")]
        case "document_scores":
            return [(k("documents"), _same, "list")]
        case "caption_wins":
            return [(k("choice"), _same, "list")]
        case "box_agreement":
            image = [(k("image"), _image_key, "interned")] if k("image") else []
            return [(k("box"), _same, "list"), *image]
        case "answer_agreement":
            return [(k("answer"), _same, "list")]
    raise ValueError(f"no reader for report kind {spec.kind!r}")


def _fits(spec: ReportSpec, protocol: Protocol) -> bool:
    """Whether answers given under ``protocol`` have every field the report names, of a fitting type."""
    types = {f.key: f.type for f in protocol.fields}
    kind = REPORT_KINDS[spec.kind]
    for role in kind.roles:
        keys = spec.key(role.name)
        if keys is None:
            continue
        for key in keys if isinstance(keys, tuple) else (keys,):
            if types.get(key) not in role.types:
                return False
    return True


# --- item information -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    study: Study
    protocols: ProtocolSet
    country_of: Mapping[int, Any]  # pool id → country code
    only_items: frozenset[int] | None


def _wanted(ctx: _Context) -> dict[tuple[int, Any], int]:
    """(item id, country) → the votes wanted, from the item quotas (one query)."""
    rows = ItemQuota.objects.filter(item__study=ctx.study).values_list("item_id", "pool_id", "wanted")
    return {
        (item, ctx.country_of.get(pool)): wanted
        for item, pool, wanted in rows.iterator(chunk_size=CHUNK_SIZE)
        if ctx.only_items is None or item in ctx.only_items
    }


def _candidates(ctx: _Context) -> dict[int, list]:
    """Item id → its candidates (one query)."""
    rows = ctx.study.items.filter(is_example=False).values_list("pk", "candidates")
    return {pk: candidates for pk, candidates in rows.iterator(chunk_size=CHUNK_SIZE) if candidates}


def _per_document_fields(protocol: Protocol, key: str) -> tuple[Field, ...]:
    return next((f.fields for f in protocol.fields if f.key == key and f.type == "per_document"), ())


# --- computing each kind ----------------------------------------------------------------------


def _compute(report: _Report, ctx: _Context) -> Any:
    spec, country_of = report.spec, ctx.country_of
    match spec.kind:
        case "human_scores":
            return human_scores(report.frame(country_of, ["value"]))
        case "prompt_filter":
            return prompt_filter_majority(report.rows(country_of), min_yes=spec.option("min_yes"), wanted=_wanted(ctx))
        case "error_types":
            alignment = ctx.protocols.current.field(spec.key("alignment"))
            types = ctx.protocols.current.field(spec.key("error_types")).choices
            perfect = max((number(c.value) for c in alignment.choices if number(c.value) is not None), default=1)
            explicit, implicit = (str(c.value) for c in types[:2]) if len(types) >= 2 else ("explicit", "implicit")
            frame = report.frame(country_of, ["alignment", "types"])
            return error_type_shares(frame, perfect=perfect, explicit=explicit, implicit=implicit)
        case "highlighted_words":
            return word_frequency(report.frame(country_of, ["words"]))
        case "criteria_spearman":
            criteria = spec.key("criteria")
            return criteria_spearman(report.frame(country_of, criteria), criteria=criteria)
        case "document_scores":
            key = spec.key("documents")
            subs = {v: _per_document_fields(ctx.protocols.for_version(v), key) for v in set(report.annotations.version.tolist())}
            rows = zip(report.rows(country_of), report.annotations.version.tolist(), strict=True)
            with_subs = ((item, country, entries, subs[v]) for (item, country, entries), v in rows)
            current = ctx.protocols.current.field(key)
            return document_scores(with_subs, current.fields, mapping=current.score or DEFAULT_MAPPING)
        case "caption_wins":
            return caption_win_rates(report.rows(country_of), candidates=_candidates(ctx))
        case "box_agreement":
            items = report.items.tolist()
            images = items
            if spec.key("image"):  # the uploaded image; an answer without one counts as its item's
                images = (img if img is not None else item for img, item in zip(report.columns[1].tolist(), items, strict=True))
            return box_agreement(zip(images, report.annotations.annotator.tolist(), report.columns[0].tolist(), strict=True))
        case "answer_agreement":
            return answer_agreement(report.rows(country_of))
    raise ValueError(f"unknown report kind {spec.kind!r}")


# --- the service ------------------------------------------------------------------------------


def report_keys(protocols: ProtocolSet) -> list[str]:
    """The answer keys the declared reports read (to read them in the analysis's one pass)."""
    return [key for spec in protocols.current.reports for key, _, _ in _readers(spec)]


def protocol_reports(
    *,
    study: Study,
    protocols: ProtocolSet,
    pools: Mapping[int, Mapping[str, Any]],
    max_id: int | None = None,
    columns: AnnotationColumns | None = None,
    complete_only: bool = False,
    complete: CompletePrompts | None = None,
) -> list[dict[str, Any]]:
    """Every report the study's current protocol declares, over the annotations in ``columns``
    (the analysis's one read, holding at least the keys of ``report_keys``), or else over the
    annotations up to ``max_id``, read here.

    ``pools``: pool id → {"country": code, …}. With ``complete_only``, every report sees only the
    prompts that have an image from every model, and the list starts with that selection
    (kind ``complete_prompts``; ``complete`` is that selection when the caller has it already). Each entry: {"kind", "title", "fields", "result"} or, for a
    report that failed, {"kind", "title", "fields", "error"}."""
    specs = protocols.current.reports
    if not specs:
        return []
    if columns is None:
        if max_id is None:
            raise TypeError("protocol_reports needs the annotations' columns or a max_id to read them")
        columns = annotation_columns(study=study, max_id=max_id, keys=report_keys(protocols))
    out: list[dict[str, Any]] = []
    only_items: frozenset[int] | None = None
    answered = columns.answered()
    if complete_only or complete is not None:
        selection = complete if complete is not None else complete_prompts_of(study=study)
        only_items = selection.item_ids
        out.append({"kind": "complete_prompts", "title": "Prompts with an image from every model",
                    "fields": {}, "result": selection.as_dict()})
        answered = answered.take(np.isin(answered.item, np.fromiter(only_items, dtype=np.int64, count=len(only_items))))
    ctx = _Context(study, protocols, {pk: p.get("country") for pk, p in pools.items()}, only_items)
    protocol_of = {v: protocols.for_version(v) for v in answered.versions()}
    for spec in specs:
        report = _Report(spec, _readers(spec))
        entry = {"kind": spec.kind, "title": spec.title, "fields": spec.fields}
        try:
            fitting = [v for v, protocol in protocol_of.items() if _fits(spec, protocol)]
            report.read(answered.take(np.isin(answered.version, fitting)))
            entry["result"] = _compute(report, ctx).as_dict()
        except Exception as exc:  # noqa: BLE001 - bad data fails this report only
            report.fail(exc)
            entry["error"] = report.error
        out.append(entry)
    return out


__all__ = ["protocol_reports", "report_keys"]

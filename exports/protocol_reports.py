"""The reports a study's protocol declares (its ``reports`` setting), computed from its annotations.

One chunked pass over the annotations feeds every declared report the columns it reads; the pure
functions of ``exports.reports`` then compute the figures. Numbers are held in arrays, never as
one tuple per rating. Skipped annotations are left out; an answer is read only when its protocol
version has the report's fields with the same types. A report that fails on bad data records its
error and leaves the others, and the rest of the analysis, alone.
"""

from __future__ import annotations

import json
import logging
import math
from array import array
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.models import Annotation
from studies.models import ItemQuota, Study
from studies.protocol import SKIP, Field, Protocol
from studies.protocol.reports import REPORT_KINDS, ReportSpec

from .protocols import ProtocolSet
from .reports import (
    answer_agreement,
    box_agreement,
    caption_win_rates,
    complete_prompts,
    criteria_spearman,
    document_scores,
    error_type_shares,
    human_scores,
    prompt_filter_majority,
    word_frequency,
)
from .reports.common import number

logger = logging.getLogger(__name__)

CHUNK_SIZE = 2000
NAN = math.nan


# --- columns ----------------------------------------------------------------------------------


class _Interned:
    """A column of few distinct values (votes, error-type sets, images): small codes + a table."""

    def __init__(self) -> None:
        self.codes = array("i")
        self.table: list[Any] = []
        self._index: dict[Any, int] = {}

    def append(self, value: Any) -> None:
        key = (type(value), value)  # True and 1 are different answers
        code = self._index.get(key)
        if code is None:
            code = self._index[key] = len(self.table)
            self.table.append(value)
        self.codes.append(code)

    def __iter__(self) -> Iterator[Any]:
        table = self.table
        return (table[c] for c in self.codes)


def _numbers() -> array:
    return array("d")


def _hashable(value: Any) -> Any:
    """A vote or a set of ticked choices as a key to intern: a list as a tuple; anything that
    still cannot be a key (an answer of the wrong shape) as its JSON text."""
    if isinstance(value, list):
        value = tuple(value)
    try:
        hash(value)
    except TypeError:
        return json.dumps(value, sort_keys=True, default=str)
    return value


def _word_texts(value: Any) -> list[str] | None:
    """The highlighted texts of a ``highlight`` answer (kept small: no offsets)."""
    if not isinstance(value, list) or not value:
        return None
    texts = [w.get("text") if isinstance(w, Mapping) else w for w in value]
    return [t for t in texts if isinstance(t, str)] or None


def _image_key(value: Any) -> Any:
    return value.get("sha256") if isinstance(value, Mapping) else None


# --- one declared report ----------------------------------------------------------------------


@dataclass
class _Report:
    """A declared report being fed: item, pool and annotator columns, plus its value columns."""

    spec: ReportSpec
    readers: list[tuple[str, Callable[[Any], Any], str]]  # (answer key, reader, storage)
    items: array = field(default_factory=lambda: array("q"))
    pools: array = field(default_factory=lambda: array("q"))
    annotators: array = field(default_factory=lambda: array("q"))
    versions: array = field(default_factory=lambda: array("q"))
    columns: list[Any] = field(default_factory=list)
    error: str = ""

    def __post_init__(self) -> None:
        self.columns = [_numbers() if s == "number" else _Interned() if s == "interned" else [] for _, _, s in self.readers]

    def add(self, item: int, pool: int, annotator: int, version: int, answers: Mapping[str, Any]) -> None:
        self.items.append(item)
        self.pools.append(pool)
        self.annotators.append(annotator)
        self.versions.append(version)
        for (key, read, storage), column in zip(self.readers, self.columns, strict=True):
            value = read(answers.get(key))
            column.append(NAN if storage == "number" and value is None else value)

    def rows(self, country_of: Mapping[int, Any]) -> Iterator[tuple]:
        """(item id, country, *values), one per annotation fed."""
        countries = (country_of.get(p) for p in self.pools)
        return zip(self.items, countries, *self.columns, strict=True)

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
    spec, rows = report.spec, report.rows(ctx.country_of)
    match spec.kind:
        case "human_scores":
            return human_scores(rows)
        case "prompt_filter":
            return prompt_filter_majority(rows, min_yes=spec.option("min_yes"), wanted=_wanted(ctx))
        case "error_types":
            alignment = ctx.protocols.current.field(spec.key("alignment"))
            types = ctx.protocols.current.field(spec.key("error_types")).choices
            perfect = max((number(c.value) for c in alignment.choices if number(c.value) is not None), default=1)
            explicit, implicit = (str(c.value) for c in types[:2]) if len(types) >= 2 else ("explicit", "implicit")
            return error_type_shares(rows, perfect=perfect, explicit=explicit, implicit=implicit)
        case "highlighted_words":
            return word_frequency(rows)
        case "criteria_spearman":
            return criteria_spearman(rows, criteria=spec.key("criteria"))
        case "document_scores":
            key = spec.key("documents")
            subs = {v: _per_document_fields(ctx.protocols.for_version(v), key) for v in set(report.versions)}
            with_subs = ((item, country, entries, subs[v]) for (item, country, entries), v in zip(rows, report.versions, strict=True))
            return document_scores(with_subs, _per_document_fields(ctx.protocols.current, key))
        case "caption_wins":
            return caption_win_rates(rows, candidates=_candidates(ctx))
        case "box_agreement":
            images = report.items
            if spec.key("image"):  # the uploaded image; an answer without one counts as its item's
                images = (img if img is not None else item for img, item in zip(report.columns[1], report.items, strict=True))
            return box_agreement(zip(images, report.annotators, report.columns[0], strict=True))
        case "answer_agreement":
            return answer_agreement(rows)
    raise ValueError(f"unknown report kind {spec.kind!r}")


def _complete_items(study: Study) -> Any:
    """The prompts with an image from every model (one query): prompt = (item country, prompt)."""
    rows = study.items.filter(is_example=False).values_list("pk", "country", "prompt", "model_name")
    return complete_prompts((pk, (country, prompt), model) for pk, country, prompt, model in rows.iterator(chunk_size=CHUNK_SIZE))


# --- the service ------------------------------------------------------------------------------


def protocol_reports(
    *,
    study: Study,
    protocols: ProtocolSet,
    max_id: int,
    pools: Mapping[int, Mapping[str, Any]],
    complete_only: bool = False,
) -> list[dict[str, Any]]:
    """Every report the study's current protocol declares, over its annotations up to ``max_id``.

    ``pools``: pool id → {"country": code, …}. With ``complete_only``, every report sees only the
    prompts that have an image from every model, and the list starts with that selection
    (kind ``complete_prompts``). Each entry: {"kind", "title", "fields", "result"} or, for a
    report that failed, {"kind", "title", "fields", "error"}."""
    specs = protocols.current.reports
    if not specs:
        return []
    out: list[dict[str, Any]] = []
    only_items: frozenset[int] | None = None
    if complete_only:
        selection = _complete_items(study)
        only_items = selection.item_ids
        out.append({"kind": "complete_prompts", "title": "Prompts with an image from every model",
                    "fields": {}, "result": selection.as_dict()})
    ctx = _Context(study, protocols, {pk: p.get("country") for pk, p in pools.items()}, only_items)
    reports = [_Report(spec, _readers(spec)) for spec in specs]
    fed_by_version: dict[int, list[_Report]] = {}
    rows = (
        Annotation.objects.filter(study=study, id__lte=max_id)
        .order_by("id")
        .values_list("item_id", "pool_id", "annotator_id", "protocol_version", "answers")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for item, pool, annotator, version, answers in rows:
        if not isinstance(answers, Mapping) or SKIP in answers:
            continue
        if only_items is not None and item not in only_items:
            continue
        fed = fed_by_version.get(version)
        if fed is None:
            protocol = protocols.for_version(version)
            fed = fed_by_version[version] = [r for r in reports if _fits(r.spec, protocol)]
        for report in fed:
            if report.error:
                continue
            try:
                report.add(item, pool, annotator, version, answers)
            except Exception as exc:  # noqa: BLE001 - bad data fails this report only
                report.fail(exc)
    for report in reports:
        entry = {"kind": report.spec.kind, "title": report.spec.title, "fields": report.spec.fields}
        if not report.error:
            try:
                entry["result"] = _compute(report, ctx).as_dict()
            except Exception as exc:  # noqa: BLE001 - bad data fails this report only
                report.fail(exc)
        if report.error:
            entry["error"] = report.error
        out.append(entry)
    return out


__all__ = ["protocol_reports"]

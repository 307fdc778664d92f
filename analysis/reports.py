"""The reports a study's protocol declares (its ``reports`` setting), computed from its annotations.

Each kind is one object in ``stats.reports.catalog.REPORTS``: what it keeps of each distinct answer,
how it computes its figures, which fragment shows them. This module is the Django side only: it
reads the annotations (the analysis's one pass, ``columns.AnnotationColumns``, holds every key the
reports read), the item quotas and candidates when a kind asks for them, and the prompts with an
image from every model when the run is restricted to them. Skipped annotations are left out; an
answer is read only when its protocol version has the report's fields with fitting types. A report
that fails on bad data records its error and leaves the others, and the rest of the analysis, alone.

Reports name an item by the researcher's own id (``Item.external_id``), never by its database key:
the annotations' item column is mapped to those names before any kind computes (``stats`` stays
unaware of keys), and the quotas and candidates a kind asks for are keyed by the same names.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np

from stats.columns import AnnotationColumns
from stats.reports import CompletePrompts
from stats.reports.catalog import REPORTS
from stats.reports.kinds import ReportContext
from stats.versions import ProtocolSet
from studies.models import ItemQuota, Study

from .reader import annotation_columns, complete_prompts_of, item_names, items_named

logger = logging.getLogger(__name__)

CHUNK_SIZE = 2000
SELECTION = "complete_prompts"  # the entry saying which prompts a restricted run kept: not a kind
SELECTION_TEMPLATE = "analysis/_report_complete_prompts.html"


# --- what only the database knows -------------------------------------------------------------


def _wanted(
    study: Study, country_of: Mapping[int, Any], only_items: frozenset[int] | None
) -> dict[tuple[str, Any], int]:
    """(item's external id, country) → the votes wanted, from the item quotas (one query)."""
    rows = ItemQuota.objects.filter(item__study=study).values_list("item_id", "item__external_id", "pool_id", "wanted")
    return {
        (name, country_of.get(pool)): wanted
        for item, name, pool, wanted in rows.iterator(chunk_size=CHUNK_SIZE)
        if only_items is None or item in only_items
    }


def _candidates(study: Study) -> dict[str, list]:
    """Item's external id → its candidates (one query)."""
    rows = study.items.ordinary().values_list("external_id", "candidates")
    return {name: candidates for name, candidates in rows.iterator(chunk_size=CHUNK_SIZE) if candidates}


def _context(study: Study, protocols: ProtocolSet, country_of: Mapping[int, Any],
             only_items: frozenset[int] | None) -> ReportContext:
    """The context of every report of a run, items named by their external ids; the quotas and
    candidates are read once, if a kind asks."""
    return ReportContext(
        protocols, country_of,
        wanted=cache(lambda: _wanted(study, country_of, only_items)),
        candidates=cache(lambda: _candidates(study)),
    )


def gold_context(*, study: Study, protocols: ProtocolSet, country_of: Mapping[int, Any]) -> ReportContext:
    """The context ``stats.gold.study_gold`` reads, its items keyed by their database ids as in its
    columns (it names them itself): the item quotas and candidates, read once if a kind asks."""

    def wanted() -> dict[tuple[int, Any], int]:
        rows = ItemQuota.objects.filter(item__study=study).values_list("item_id", "pool_id", "wanted")
        return {(item, country_of.get(pool)): n for item, pool, n in rows.iterator(chunk_size=CHUNK_SIZE)}

    def candidates() -> dict[int, list]:
        rows = study.items.ordinary().values_list("pk", "candidates")
        return {pk: c for pk, c in rows.iterator(chunk_size=CHUNK_SIZE) if c}

    return ReportContext(protocols, country_of, wanted=cache(wanted), candidates=cache(candidates))


# --- the service ------------------------------------------------------------------------------


def report_keys(protocols: ProtocolSet) -> list[str]:
    """The answer keys the declared reports read (to read them in the analysis's one pass)."""
    return [key for spec in protocols.current.reports for key in REPORTS[spec.kind].keys(spec)]


def report_template(kind: str) -> str:
    """The fragment showing a result entry of ``kind``; "" for a kind no longer implemented."""
    if kind == SELECTION:
        return SELECTION_TEMPLATE
    implementation = REPORTS.get(kind)
    return implementation.template if implementation else ""


def protocol_reports(
    *,
    study: Study,
    protocols: ProtocolSet,
    pools: Mapping[int, Mapping[str, Any]],
    max_id: int | None = None,
    columns: AnnotationColumns | None = None,
    complete_only: bool = False,
    complete: CompletePrompts | None = None,
    items: Mapping[int, str] | None = None,
) -> list[dict[str, Any]]:
    """Every report the study's current protocol declares, over the annotations in ``columns``
    (the analysis's one read, holding at least the keys of ``report_keys``), or else over the
    annotations up to ``max_id``, read here.

    ``pools``: pool id → {"country": code, …}. With ``complete_only``, every report sees only the
    prompts that have an image from every model, and the list starts with that selection
    (kind ``complete_prompts``; ``complete`` is that selection when the caller has it already). Each
    entry: {"kind", "title", "fields", "result"} or, for a report that failed, {"kind", "title",
    "fields", "error"}. Items are named by ``items`` (item id → external id; read here when not
    given)."""
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
        out.append({"kind": SELECTION, "title": "Prompts with an image from every model",
                    "fields": {}, "result": selection.as_dict()})
        answered = answered.take(np.isin(answered.item, np.fromiter(only_items, dtype=np.int64, count=len(only_items))))
    names = items if items is not None else item_names(study=study)
    answered = replace(answered, item=items_named(answered.item, names))  # reports name items by external ids
    context = _context(study, protocols, {pk: p.get("country") for pk, p in pools.items()}, only_items)
    for spec in specs:
        entry = {"kind": spec.kind, "title": spec.title, "fields": spec.fields}
        try:
            entry["result"] = REPORTS[spec.kind].run(spec, answered, context)
        except Exception as exc:  # noqa: BLE001 - bad data fails this report only
            logger.warning("report %s failed", spec.kind, exc_info=exc)
            entry["error"] = f"{type(exc).__name__}: {exc}"
        out.append(entry)
    return out


__all__ = ["gold_context", "protocol_reports", "report_keys", "report_template"]

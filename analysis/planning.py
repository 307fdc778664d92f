"""The sample-size planner of a study (``stats.planner``): a pilot's answers to one field read from
the counted annotations, the model of them (or of a stated prior where a pool has no pilot), the
expected width of alpha's interval for each choice of annotators per item and items, and what each
choice costs on Prolific."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from stats.agreement import alpha
from stats.coding import FieldCoder, Units, value_counts
from stats.planner import ITEMS, MIN_PILOT_UNITS, RATERS, Prices, cost, pilot_model, plan, prior_model
from stats.versions import fields_by_key
from studies.models import CountryPool, Study

from .fingerprint import data_fingerprint
from .forms import PlannerForm
from .reader import annotation_columns, protocol_set, stored_versions


def planned_fields(study: Study) -> list[tuple[str, str]]:
    """The study's fields that agreement is computed on: (key, "label (level)")."""
    protocols = protocol_set(study=study, present=stored_versions(study=study))
    return [(g[0].key, f"{g[0].label} ({g[0].level})") for g in protocols.groups() if g[0].level]


@dataclass(frozen=True)
class Pilot:
    counts: np.ndarray  # units × values, the pool's units (or every pool's)
    domain: list[Any]
    level: str
    annotations: int


def pilot(study: Study, key: str, pool: CountryPool | None) -> Pilot:
    """The counted answers to field ``key`` of ``pool`` (every pool's when None), as value counts
    per unit (an item within a pool)."""
    fingerprint = data_fingerprint(study=study)
    columns = annotation_columns(study=study, max_id=fingerprint.max_id, keys=[key])
    protocols = protocol_set(study=study, present=columns.versions() or stored_versions(study=study))
    newest = next((g[0] for g in protocols.groups() if g[0].key == key and g[0].level), None)
    if newest is None or newest.level is None:
        raise ValueError(f"the study has no field {key!r} with a level of measurement")
    coder = FieldCoder(newest)
    answered = columns.answered()
    if pool is not None:
        answered = answered.take(answered.pool == pool.pk)
    versions = {v: fields_by_key(protocols.for_version(v)).get(key) for v in answered.versions()}
    coder.code_column(answered.keys[key], answered.version, versions)
    units = Units.from_keys(answered.pool, answered.item)
    counts = value_counts(units, coder.codes, len(coder.domain))
    domain = coder.domain if coder.fixed else list(range(len(coder.domain)))
    return Pilot(counts, domain, newest.level, int((coder.codes >= 0).sum()))


def planner_result(study: Study, *, key: str, pool: CountryPool | None, prior_alpha: float, prices: Prices,
                   seed: int = 0) -> dict[str, Any]:
    """The planner's grid for field ``key`` of ``pool`` (every pool together when None): from the
    pilot where it has ``MIN_PILOT_UNITS`` units rated twice or more, else from ``prior_alpha``."""
    data = pilot(study, key, pool)
    paired = int((data.counts.sum(axis=1) >= 2).sum())
    pilot_alpha = alpha(data.counts, data.level, data.domain, n_resamples=0) if paired >= 2 else None
    if pilot_alpha is not None and pilot_alpha.alpha is not None and paired >= MIN_PILOT_UNITS:
        model = pilot_model(data.counts, data.level, data.domain, pilot_alpha.alpha, seed=seed)
    else:
        marginals = data.counts.sum(axis=0)
        shares = marginals / marginals.sum() if marginals.sum() and (marginals > 0).sum() >= 2 else None
        model = prior_model(data.level, data.domain, prior_alpha, shares, seed=seed)
    grid = plan(model, data.level, data.domain, seed=seed)
    for row in grid:
        row["cost"] = cost(row["items"], row["raters"], study.items_per_session, prices)
    return {
        "key": key, "level": data.level, "source": model.source, "paired_units": paired,
        "annotations": data.annotations, "target_alpha": model.target_alpha, "fitted_alpha": model.fitted_alpha,
        "raters": list(RATERS), "items": list(ITEMS), "grid": grid, "min_pilot_units": MIN_PILOT_UNITS,
    }


def planner_form(study: Study, data: Any = None) -> tuple[PlannerForm, list[CountryPool]]:
    """The planner's form over the study's fields and pools (``data``: what was sent, None for none),
    and the pools it offers; the page's and the API's."""
    pools = list(study.pools.order_by("country").only("pk", "country", "country_name"))
    form = PlannerForm(data, fields=planned_fields(study), pools=[(str(p.pk), p.country_name) for p in pools])
    return form, pools


def planner_for_form(study: Study, cleaned: dict[str, Any], pools: list[CountryPool]) -> dict[str, Any]:
    """The planner's result for the planner form's ``cleaned`` data (the page's and the API's): the
    grid, each choice marked when its expected width meets the width aimed at, and the cheapest
    choice that does (None when none does)."""
    pool = next((p for p in pools if str(p.pk) == cleaned["pool"]), None)
    prices = Prices(reward=int(cleaned["reward"] * 100), fee_rate=float(cleaned["fee"] / 100),
                    vat_rate=float(cleaned["vat"] / 100), returns=cleaned["returns"] / 100,
                    exclusions=cleaned["exclusions"] / 100)
    result = planner_result(study, key=cleaned["field"], pool=pool, prior_alpha=float(cleaned["prior_alpha"]),
                            prices=prices)
    target = float(cleaned["target"])
    for cell in result["grid"]:
        cell["meets"] = cell["width"] is not None and cell["width"] <= target
    meeting = [c for c in result["grid"] if c["meets"]]
    result |= {
        "pool_id": None if pool is None else pool.pk, "pool_name": None if pool is None else pool.country_name,
        "target": target, "currency": cleaned["currency"], "items_per_session": study.items_per_session,
        "cheapest": min(meeting, key=lambda c: (c["cost"]["total"], c["width"]), default=None),
    }
    return result

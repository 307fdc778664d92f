"""The differences between countries as a country × country matrix (``stats.agreement.differences``
stored per field): each cell the row's country minus the column's, with its interval and Holm-adjusted
permutation p-value, and a last column for the country against all the others."""

from collections.abc import Mapping
from typing import Any

from django import template

from stats.agreement.differences import SIGNIFICANT, holds

register = template.Library()

TITLES = {"alpha": "Differences in Krippendorff's alpha", "mean": "Differences in the mean rating"}


def _cell(row: Mapping[str, Any] | None, flipped: bool = False) -> dict[str, Any] | None:
    """One comparison as a cell, from the row's country's side (``flipped``: stored the other way round)."""
    if row is None:
        return None
    if row.get("difference") is None:
        return {"value": None, "reason": row.get("reason") or "", "thin": row.get("thin") or ""}
    sign = -1 if flipped else 1
    value = sign * row["difference"]
    low, high = row.get("ci_low"), row.get("ci_high")
    if flipped and low is not None and high is not None:
        low, high = -high, -low
    p = row.get("p_holm")
    return {
        "value": value, "text": f"{value:+.3f}", "low": low, "high": high, "p": p, "thin": row.get("thin") or "",
        "direction": ("up" if value > 0 else "down") if holds(row) else "",
    }


@register.inclusion_tag("analysis/_country_matrix.html")
def country_matrix(f: Mapping[str, Any], statistic: str = "alpha") -> dict[str, Any]:
    """The matrix of ``statistic`` ("alpha" or "mean") for the field result ``f``."""
    differences = f.get("differences") or {}
    names = {p["pool_id"]: p.get("country_name") or p.get("country") for p in f.get("pools") or ()}
    pairs = {(r["a"], r["b"]): r for r in differences.get("pairs") or () if r.get("statistic") == statistic}
    rest = {r["a"]: r for r in differences.get("vs_rest") or () if r.get("statistic") == statistic}
    rows = [
        {
            "label": names[a],
            "cells": [
                None if a == b else _cell(pairs.get((a, b)) or pairs.get((b, a)), flipped=(a, b) not in pairs)
                for b in names
            ],
            "rest": _cell(rest.get(a)),
        }
        for a in names
    ]
    return {
        "shown": bool(pairs), "statistic": statistic, "title": TITLES.get(statistic, statistic), "key": f.get("key"),
        "columns": list(names.values()), "rows": rows, "has_rest": bool(rest), "significant": SIGNIFICANT,
    }

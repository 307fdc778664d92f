"""Researcher page: the sample-size planner (``analysis.planning``): for one question and pool, the
expected width of alpha's interval against annotators per item and items, with Prolific's cost."""

from decimal import Decimal

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from analysis import planning
from analysis.forms import PlannerForm
from recruitment.rules import money
from stats.planner import Prices
from studies.selectors import study_for_user


@login_required
@require_GET
def planner(request, pk: int):
    study = study_for_user(request.user, pk)
    pools = list(study.pools.order_by("country").only("pk", "country", "country_name"))
    fields = planning.planned_fields(study)
    form = PlannerForm(request.GET or None, fields=fields, pools=[(str(p.pk), p.country_name) for p in pools])
    result = None
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        pool = next((p for p in pools if str(p.pk) == data["pool"]), None)
        prices = Prices(reward=int(data["reward"] * 100), fee_rate=float(data["fee"] / 100),
                        vat_rate=float(data["vat"] / 100), returns=data["returns"] / 100,
                        exclusions=data["exclusions"] / 100)
        result = planning.planner_result(study, key=data["field"], pool=pool, prior_alpha=float(data["prior_alpha"]),
                                         prices=prices)
        result["table"] = _table(result, data["target"], data["currency"])
        result["pool"] = pool
    status = 400 if form.is_bound and not form.is_valid() else 200
    return render(request, "analysis/planner.html",
                  {"study": study, "form": form, "result": result, "has_fields": bool(fields)}, status=status)


def _table(result: dict, target: Decimal, currency: str) -> dict:
    """The grid as rows (annotators per item) of cells (items), each marked when its expected width
    meets ``target``, and the cheapest choice that does."""
    cells = {(c["raters"], c["items"]): c for c in result["grid"]}
    meets = [c for c in result["grid"] if c["width"] is not None and c["width"] <= target]
    cheapest = min(meets, key=lambda c: (c["cost"]["total"], c["width"]), default=None)
    for c in result["grid"]:
        c["meets"] = c in meets
        c["cheapest"] = c is cheapest
        c["total_text"] = money(c["cost"]["total"], currency)
    return {
        "rows": [{"raters": r, "cells": [cells[(r, n)] for n in result["items"]]} for r in result["raters"]],
        "cheapest": cheapest, "target": target, "currency": currency,
        "cheapest_parts": cheapest and {k: money(cheapest["cost"][k], currency) for k in ("rewards", "fees", "vat")},
    }

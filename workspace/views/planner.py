"""Researcher page: the sample-size planner (``analysis.planning``): for one question and pool, the
expected width of alpha's interval against annotators per item and items, with Prolific's cost."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from analysis import planning
from recruitment.rules import money
from studies.selectors import study_for_user


@login_required
@require_GET
def planner(request, pk: int):
    study = study_for_user(request.user, pk)
    form, pools = planning.planner_form(study, request.GET or None)
    result = None
    if form.is_bound and form.is_valid():
        result = planning.planner_for_form(study, form.cleaned_data, pools)
        result["table"] = _table(result)
    status = 400 if form.is_bound and not form.is_valid() else 200
    context = {"study": study, "form": form, "result": result, "has_fields": bool(form.fields["field"].choices)}
    return render(request, "analysis/planner.html", context, status=status)


def _table(result: dict) -> dict:
    """The grid as rows (annotators per item) of cells (items), with each cost as money."""
    currency = result["currency"]
    cells = {(c["raters"], c["items"]): c for c in result["grid"]}
    for c in result["grid"]:
        c["cheapest"] = c is result["cheapest"]
        c["total_text"] = money(c["cost"]["total"], currency)
    cheapest = result["cheapest"]
    return {
        "rows": [{"raters": r, "cells": [cells[(r, n)] for n in result["items"]]} for r in result["raters"]],
        "cheapest": cheapest, "target": result["target"],
        "cheapest_parts": cheapest and {k: money(cheapest["cost"][k], currency) for k in ("rewards", "fees", "vat")},
    }

"""Reads of analysis runs for the pages: the latest, one of a study's, its summary and its JSON text."""

from __future__ import annotations

from django.db.models import TextField
from django.db.models.functions import Cast
from django.shortcuts import get_object_or_404

from studies.models import Study

from .models import AnalysisRun


def analysis_latest(*, study: Study) -> AnalysisRun | None:
    """The study's newest run, without its whole result (megabytes of JSON for a large study):
    pages read its summary (``run_summary``)."""
    return study.analysis_runs.order_by("-created_at", "-id").defer("result").first()


def analysis_latest_done(*, study: Study) -> AnalysisRun | None:
    """The newest finished run, without its result: what export gating compares with the data."""
    runs = study.analysis_runs.filter(status=AnalysisRun.Status.DONE).order_by("-finished_at", "-id")
    return runs.defer("result", "summary").first()


def run_summary(run: AnalysisRun | None) -> dict | None:
    """What the page shows of a finished run: its summary (long tables cut to their first rows)."""
    if run is None or run.status != AnalysisRun.Status.DONE:
        return None
    return run.summary


def analysis_result_text(*, run: AnalysisRun) -> str:
    """A run's result as the database stores it, JSON text never decoded in Python (the page's
    "download as JSON"; one query)."""
    as_text = Cast("result", output_field=TextField())
    text = AnalysisRun.objects.filter(pk=run.pk).values_list(as_text, flat=True).first()
    return text or "null"


def analysis_for_study(*, study: Study, pk: int) -> AnalysisRun:
    """One run of the study, or 404; without its whole result, like ``analysis_latest``."""
    return get_object_or_404(study.analysis_runs.defer("result"), pk=pk)

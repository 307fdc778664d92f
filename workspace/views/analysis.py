"""Researcher pages: the study dashboard (its live progress), the analysis and its metric upload (a
pool's annotators are ``workspace/views/annotators.py``). Every lookup is scoped."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from analysis import dashboard, metrics, selectors, services
from analysis.fingerprint import data_fingerprint, staleness
from analysis.forms import AnalysisForm, MetricUploadForm
from annotation import seeding
from studies.selectors import study_for_user
from studies.translations import translation_warnings
from studies.uploads import upload_limit


@login_required
@require_GET
def study_dashboard(request, pk: int):
    study = study_for_user(request.user, pk)
    pools = dashboard.dashboard_pools(study=study)
    context = {
        "study": study,
        "pools": pools,
        **translation_warnings(study, [row.pool for row in pools]),
        "latest_run": selectors.analysis_latest(study=study),
        "feeds": seeding.study_feeds(study.spec),
    }
    return render(request, "analysis/dashboard.html", context)


@login_required
@require_GET
def study_progress(request, pk: int):
    """The dashboard's live part, polled by the page every 10 seconds."""
    study = study_for_user(request.user, pk)
    return render(request, "analysis/_dashboard_progress.html", {
        "study": study, "pools": dashboard.dashboard_pools(study=study)})


@login_required
@require_http_methods(["GET", "POST"])
def analysis(request, pk: int):
    study = study_for_user(request.user, pk, write=request.method == "POST")
    if request.method == "POST":
        form = AnalysisForm(request.POST)
        if form.is_valid():
            try:
                services.analysis_start(study=study, user=request.user, **form.cleaned_data)
            except services.AnalysisRefused as exc:
                form.add_error(None, str(exc))
            else:
                return redirect("analysis:analysis", pk=study.pk)
        return render(request, "analysis/analysis.html", _page_context(study, analysis_form=form), status=400)
    return render(request, "analysis/analysis.html", _page_context(study))


def _page_context(study, **extra) -> dict:
    """What the analysis page shows: the latest run, the form to run again (with the latest run's
    options); the export section draws itself (``exports`` template tag) from the same fingerprint."""
    fingerprint = data_fingerprint(study=study)
    run = selectors.analysis_latest(study=study)
    initial = {"complete_only": run.complete_only, "resamples": run.resamples, "seed": run.seed} if run else None
    return {"study": study, "run": run, "fingerprint": fingerprint, "analysis_form": AnalysisForm(initial=initial),
            **_run_context(run, fingerprint), **extra}


@login_required
@require_GET
def analysis_status(request, pk: int, run_pk: int):
    study = study_for_user(request.user, pk)
    run = selectors.analysis_for_study(study=study, pk=run_pk)
    fingerprint = None if run.is_active else data_fingerprint(study=study)
    # Once the run has ended, the reports, metric and export sections are swapped in out of band.
    context = {
        "study": study, "run": run, "fingerprint": fingerprint, "refresh_sections": not run.is_active,
        **_run_context(run, fingerprint),
    }
    return render(request, "analysis/_analysis_status.html", context)


@login_required
@require_GET
def analysis_result(request, pk: int, run_pk: int):
    """The whole result of a finished run as one JSON document (a download)."""
    study = study_for_user(request.user, pk)
    run = selectors.analysis_for_study(study=study, pk=run_pk)
    if run.status != run.Status.DONE:
        return JsonResponse(
            {"error": f"analysis {run.pk} is {run.get_status_display().lower()}: it has no result"}, status=409
        )
    response = HttpResponse(selectors.analysis_result_text(run=run), content_type="application/json")
    filename = f"{slugify(study.name) or 'study'}-{study.pk}-analysis-{run.pk}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _run_context(run, fingerprint) -> dict:
    """The shown run's result as the page reads it (its summary), and how it compares with the
    current data."""
    result = selectors.run_summary(run)
    if run is None or fingerprint is None or run.status != run.Status.DONE:
        return {"result": result, "run_staleness": None}
    return {"result": result, "run_staleness": staleness(run.data_fingerprint, fingerprint)}


@upload_limit(metrics.upload_limit)  # a larger body is refused before anything reads it
@login_required
@require_POST
def metrics_upload(request, pk: int):
    """Store a metric file that parses against the study, or show the page with its line errors."""
    study = study_for_user(request.user, pk, write=True)
    form = MetricUploadForm(request.POST, request.FILES)
    if form.is_valid():
        file = form.cleaned_data["file"]
        try:
            metrics.metric_upload_create(study=study, user=request.user, name=file.name, data=file.read())
        except metrics.MetricCSVError as exc:
            errors, total = exc.errors, exc.total
        else:
            messages.success(request, "Metric scores stored: run the analysis again to correlate them.")
            return redirect("analysis:analysis", pk=study.pk)
    else:
        errors = form.errors.get("file", [])
        total = len(errors)
    context = _page_context(study, metric_errors=errors, metric_errors_more=total - len(errors))
    return render(request, "analysis/analysis.html", context, status=400)

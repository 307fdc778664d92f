"""Researcher pages of item imports: upload a rows file and an images zip, follow the job, read
every problem with its line. Every lookup is scoped; a
viewer sees the page, an editor or the owner imports."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from studies import importing
from studies.forms import ImportForm
from studies.importing import job as imports
from studies.selectors import study_for_user
from studies.uploads import upload_limit


@upload_limit(imports.upload_limit)  # a larger body is refused before anything reads it
@login_required
@require_http_methods(["GET", "POST"])
def import_items(request, pk: int):
    study = study_for_user(request.user, pk, write=request.method == "POST")
    form, status = ImportForm(), 200
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                imports.import_start(
                    study=study, user=request.user, rows=form.cleaned_data["rows"], images=form.cleaned_data["images"]
                )
            except imports.ImportRefused as exc:
                form.add_error(exc.field, str(exc))
            else:
                return redirect("analysis:import-items", pk=study.pk)
        status = 400
    context = {
        "study": study,
        "form": form,
        "job": study.import_jobs.order_by("-created_at", "-id").first(),
        "rows_limit": settings.IMPORT_ROWS_MAX_BYTES,
        "zip_limit": settings.IMPORT_ZIP_MAX_BYTES,
        "columns": importing.columns_for(study.spec),
    }
    return render(request, "analysis/import.html", context, status=status)


@login_required
@require_GET
def import_sample(request, pk: int):
    """A sample item file for the study's protocol and pools, to fill in (its members only)."""
    study = study_for_user(request.user, pk)
    text = importing.sample_csv(study.spec, list(study.pools.order_by("country").values_list("country", flat=True)))
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="items-sample-study-{study.pk}.csv"'
    return response


@login_required
@require_GET
def import_status(request, pk: int, job_pk: int):
    study = study_for_user(request.user, pk)
    job = get_object_or_404(study.import_jobs, pk=job_pk)
    return render(request, "analysis/_import_status.html", {"study": study, "job": job})

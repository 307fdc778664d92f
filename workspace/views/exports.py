"""Researcher pages of exports: start one, follow it, download its file and its manifest. Every
lookup is scoped."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from exports import selectors, services
from exports.downloads import export_file_response
from studies.selectors import study_for_user


@login_required
@require_POST
def export_start(request, pk: int):
    study = study_for_user(request.user, pk, write=True)
    try:
        services.export_start(
            study=study, user=request.user, format=request.POST.get("format", "csv"),
            options={"license": request.POST.get("license"), "images": request.POST.get("images") == "on"},
        )
    except services.ExportRefused as exc:
        messages.error(request, str(exc))
    return redirect("analysis:analysis", pk=study.pk)


@login_required
@require_GET
def export_status(request, pk: int, job_pk: int):
    study = study_for_user(request.user, pk)
    job = selectors.export_for_study(study=study, pk=job_pk)
    return render(request, "exports/_export_status.html", {"study": study, "job": job})


@login_required
@require_POST
def export_cancel(request, pk: int, job_pk: int):
    study = study_for_user(request.user, pk, write=True)
    job = selectors.export_for_study(study=study, pk=job_pk)
    if services.export_cancel(job=job, user=request.user):
        messages.success(request, "The export was cancelled; no file of it is kept.")
    else:
        messages.info(request, "That export had already ended.")
    return redirect("analysis:analysis", pk=study.pk)


@login_required
@require_GET
def export_download(request, pk: int, job_pk: int):
    study = study_for_user(request.user, pk)
    job = selectors.export_file_for_study(study=study, pk=job_pk)
    return export_file_response(study, job)


@login_required
@require_GET
def export_manifest(request, pk: int, job_pk: int):
    study = study_for_user(request.user, pk)
    job = selectors.export_file_for_study(study=study, pk=job_pk)
    response = JsonResponse(job.manifest or {}, json_dumps_params={"indent": 2})
    name = selectors.export_file_name(study, job, "manifest.json")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


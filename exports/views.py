"""Researcher pages of exports: start one, follow it, download its file and its manifest. Every
lookup is scoped."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponseRedirect, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from studies.selectors import study_for_user

from . import selectors, services
from .formats import FORMATS


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
    return _file_response(study, job)


@login_required
@require_GET
def export_manifest(request, pk: int, job_pk: int):
    study = study_for_user(request.user, pk)
    job = selectors.export_file_for_study(study=study, pk=job_pk)
    response = JsonResponse(job.manifest or {}, json_dumps_params={"indent": 2})
    name = selectors.export_file_name(study, job, "manifest.json")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _file_response(study, job) -> HttpResponseBase:
    """The export's file, streamed from the local disk, or by a short-lived signed URL of a remote
    storage (S3) that names the download the same way (access checked by the caller)."""
    fmt = FORMATS.get(job.format)
    zipped = job.is_zip or fmt is None
    suffix, content_type = ("zip", "application/zip") if zipped else (fmt.extension, fmt.content_type)
    filename = selectors.export_file_name(study, job, suffix)
    storage = job.file.storage
    try:
        storage.path(job.file.name)
    except NotImplementedError:
        disposition = f'attachment; filename="{filename}"'
        return HttpResponseRedirect(storage.url(job.file.name, parameters={"ResponseContentDisposition": disposition}))
    try:
        handle = storage.open(job.file.name, "rb")
    except FileNotFoundError as missing:
        raise Http404("This export's file is gone.") from missing
    return FileResponse(handle, as_attachment=True, filename=filename, content_type=content_type)

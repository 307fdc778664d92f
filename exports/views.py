"""Researcher pages of exports: start one, follow it, download its file. Every lookup is scoped."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from studies.selectors import study_for_user

from . import selectors, services


@login_required
@require_POST
def export_start(request, pk: int):
    study = study_for_user(request.user, pk, write=True)
    try:
        services.export_start(study=study, user=request.user)
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
@require_GET
def export_download(request, pk: int, job_pk: int):
    study = study_for_user(request.user, pk)
    job = selectors.export_file_for_study(study=study, pk=job_pk)
    kind, content_type = ("zip", "application/zip") if job.is_zip else ("csv", "text/csv")
    filename = f"{slugify(study.name) or 'study'}-{study.pk}-export-{job.pk}.{kind}"
    return FileResponse(job.file.open("rb"), as_attachment=True, filename=filename, content_type=content_type)

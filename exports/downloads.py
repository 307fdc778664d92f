"""An export's file as a response: the page's download and the API's read it the same way (access
checked by the caller)."""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpResponseRedirect
from django.http.response import HttpResponseBase

from studies.models import Study

from .formats import FORMATS
from .models import ExportJob
from .selectors import export_file_name


def export_media_type(job: ExportJob) -> tuple[str, str]:
    """The file's extension and media type: a ZIP, or the format's one file."""
    fmt = FORMATS.get(job.format)
    if job.is_zip or fmt is None:
        return "zip", "application/zip"
    return fmt.extension, fmt.content_type


def export_file_response(study: Study, job: ExportJob) -> HttpResponseBase:
    """The export's file, streamed from the local disk, or by a short-lived signed URL of a remote
    storage (S3) that names the download the same way."""
    suffix, content_type = export_media_type(job)
    filename = export_file_name(study, job, suffix)
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

from django.http import FileResponse, HttpResponseRedirect


def image_response(field_file):
    """Serve a stored image after the caller has checked access: from disk, or by a signed URL."""
    storage = field_file.storage
    try:
        storage.path(field_file.name)
    except NotImplementedError:  # remote storage (S3): hand out a short-lived signed URL
        return HttpResponseRedirect(field_file.url)
    response = FileResponse(field_file.open("rb"))
    response["Cache-Control"] = "private, max-age=3600"
    return response

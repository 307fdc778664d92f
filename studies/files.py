from collections.abc import Iterator

from django.http import FileResponse, Http404, HttpResponseRedirect

CHUNK = 1 << 20  # bytes of a stored file read at a time


def stored_chunks(field_file) -> Iterator[bytes]:
    """A stored file's bytes in chunks of ``CHUNK``, read through its storage (disk or S3), never whole."""
    with field_file.storage.open(field_file.name, "rb") as fh:
        while block := fh.read(CHUNK):
            yield block


def image_response(field_file):
    """Serve a stored image after the caller has checked access: from disk, or by a signed URL."""
    return stored_image_response(field_file.storage, field_file.name)


def stored_image_response(storage, name: str):
    """Serve the image ``name`` of ``storage`` (access checked by the caller): from disk, or by a
    short-lived signed URL of a remote storage (S3)."""
    try:
        storage.path(name)
    except NotImplementedError:
        return HttpResponseRedirect(storage.url(name))
    try:
        response = FileResponse(storage.open(name, "rb"))
    except FileNotFoundError as missing:
        raise Http404("No such image.") from missing
    response["Cache-Control"] = "private, max-age=3600"
    return response

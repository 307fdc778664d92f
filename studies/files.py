from collections.abc import Iterator

from django.http import FileResponse, Http404, HttpResponseRedirect

from .derivatives import WIDTHS, derivative_name

CHUNK = 1 << 20  # bytes of a stored file read at a time


def stored_chunks(field_file) -> Iterator[bytes]:
    """A stored file's bytes in chunks of ``CHUNK``, read through its storage (disk or S3), never whole."""
    with field_file.storage.open(field_file.name, "rb") as fh:
        while block := fh.read(CHUNK):
            yield block


def image_response(field_file, *, width: str = ""):
    """Serve a stored image after the caller has checked access: from disk, or by a signed URL;
    ``width``: its lighter copy of that width when there is one (``stored_image_response``)."""
    return stored_image_response(field_file.storage, field_file.name, width=width)


def _derived(name: str, width: str) -> str:
    """The stored name of ``name``'s derivative ``width`` px wide, or "" for no derivative."""
    if not width.isdecimal() or int(width) not in WIDTHS:
        return ""
    return derivative_name(name, int(width))


def stored_image_response(storage, name: str, *, width: str = ""):
    """Serve the image ``name`` of ``storage`` (access checked by the caller): from disk, or by a
    short-lived signed URL of a remote storage (S3). ``width`` (a query parameter, as given) asks
    for its lighter copy of that width (``studies.derivatives``): a width not made, or a copy
    missing from the disk, is answered with the original (a remote storage's copy is trusted to
    exist: a page names only the widths its row records)."""
    derived = _derived(name, width)
    try:
        storage.path(name)
    except NotImplementedError:
        return HttpResponseRedirect(storage.url(derived or name))
    try:
        response = FileResponse(storage.open(derived, "rb")) if derived else None
    except FileNotFoundError:
        response = None
    try:
        response = response or FileResponse(storage.open(name, "rb"))
    except FileNotFoundError as missing:
        raise Http404("No such image.") from missing
    response["Cache-Control"] = "private, max-age=3600"
    return response

"""Uploads: an image the annotator supplies for an upload field, checked and stored before the submit."""

from __future__ import annotations

import io

from django.conf import settings
from django.core.files.base import ContentFile
from django.utils.translation import gettext
from PIL import Image, ImageOps

from studies.importing import RowProblem, inspect_image
from studies.protocol import Protocol
from studies.protocol.types.upload import image_size_problem

from ..models import Assignment, Upload


class UploadRefused(Exception):
    """An upload that is not a usable image; the message says why."""


def upload_receive(*, assignment: Assignment, name: str, data: bytes, field: str = "") -> Upload:
    """Verify an annotator's image with Pillow (real image, size and pixel limits, the smallest size
    of the upload field named ``field``, else of the least demanding one) and store it.

    Stored before the submit, so a refused form never asks for the image again.
    """
    if assignment.status == Assignment.Status.SUBMITTED:
        raise UploadRefused(gettext("This item is already submitted."))
    if len(data) > settings.IMAGE_MAX_BYTES:
        raise UploadRefused(
            gettext("The image is {size} MB; the limit is {limit} MB.").format(
                size=f"{len(data) / 1e6:.1f}", limit=f"{settings.IMAGE_MAX_BYTES / 1e6:.0f}")
        )
    try:
        inspect_image(name, data, max_pixels=settings.IMAGE_MAX_PIXELS)
        data = _upright(data)
        sha256, width, height, suffix = inspect_image(name, data, max_pixels=settings.IMAGE_MAX_PIXELS)
    except RowProblem as problem:
        raise UploadRefused(str(problem)) from None
    too_small = image_size_problem(least_image_size(assignment.item.study.spec, field), width, height)
    if too_small:
        raise UploadRefused(too_small)
    upload = Upload(
        study_id=assignment.pool.study_id, assignment=assignment, suffix=suffix, original_name=name[:255],
        width=width, height=height, sha256=sha256,
    )
    upload.file.save(f"{sha256}{suffix}", ContentFile(data), save=False)
    upload.save()
    return upload


def least_image_size(protocol: Protocol, field: str) -> tuple[int, int] | None:
    """The smallest image the upload field named ``field`` accepts; for an unknown name, the least
    demanding upload field's (the submit checks the field it is given to); None with no upload field."""
    sizes = {g.key: size for f in protocol.fields for g in (f, *f.fields)
             if (size := g.kind.min_image_size(g)) is not None}
    if field in sizes:
        return sizes[field]
    if not sizes:
        return None
    return min(w for w, _ in sizes.values()), min(h for _, h in sizes.values())


def _upright(data: bytes) -> bytes:
    """Apply a photo's EXIF rotation to its pixels, so the stored size is the size browsers show
    and boxes drawn on it are checked against the right dimensions. Other images are kept as sent."""
    with Image.open(io.BytesIO(data)) as im:
        if im.getexif().get(0x0112, 1) == 1:  # Orientation: already upright
            return data
        kind = im.format
        upright = ImageOps.exif_transpose(im)
        out = io.BytesIO()
        upright.save(out, format=kind, **({"quality": 95} if kind == "JPEG" else {}))
    return out.getvalue()

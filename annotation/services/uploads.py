"""Uploads: an image the annotator supplies for an upload field, checked and stored before the submit."""

from __future__ import annotations

import io

from django.conf import settings
from django.core.files.base import ContentFile
from PIL import Image, ImageOps

from studies.importing import RowProblem, inspect_image

from ..models import Assignment, Upload


class UploadRefused(Exception):
    """An upload that is not a usable image; the message says why."""


def upload_receive(*, assignment: Assignment, name: str, data: bytes) -> Upload:
    """Verify an annotator's image with Pillow (real image, size and pixel limits) and store it.

    Stored before the submit, so a refused form never asks for the image again.
    """
    if assignment.status == Assignment.Status.SUBMITTED:
        raise UploadRefused("This item is already submitted.")
    if len(data) > settings.IMAGE_MAX_BYTES:
        raise UploadRefused(
            f"The image is {len(data) / 1e6:.1f} MB; the limit is {settings.IMAGE_MAX_BYTES / 1e6:.0f} MB."
        )
    try:
        inspect_image(name, data, max_pixels=settings.IMAGE_MAX_PIXELS)
        data = _upright(data)
        sha256, width, height, suffix = inspect_image(name, data, max_pixels=settings.IMAGE_MAX_PIXELS)
    except RowProblem as problem:
        raise UploadRefused(str(problem)) from None
    upload = Upload(
        study_id=assignment.pool.study_id, assignment=assignment, suffix=suffix, original_name=name[:255],
        width=width, height=height, sha256=sha256,
    )
    upload.file.save(f"{sha256}{suffix}", ContentFile(data), save=False)
    upload.save()
    return upload


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

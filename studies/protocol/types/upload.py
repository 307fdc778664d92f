"""``upload``: an image the annotator supplies."""

from __future__ import annotations

from collections.abc import Mapping

from ..item import UploadRef
from .base import FieldType, ShownAnswer, cell_text

PARTS = ("sha256", "width", "height", "name")  # what the export keeps of an upload
MIN_SIDE = 64  # the default smallest width and height of an upload, in pixels
MAX_MIN_SIDE = 10_000


class UploadType(FieldType):
    """An image uploaded beforehand, posted as its upload token; stored as
    ``{"upload", "width", "height", "sha256", "name"}``. Exported as ``<key>_sha256``,
    ``<key>_width``, ``<key>_height`` and ``<key>_name`` (the file name given)."""

    name = "upload"
    plain_export = False
    required_text = "Upload an image."
    supplies_image = True
    script = "annotation/upload.js"

    def gold_problem(self, f):
        return "an upload field cannot have a gold answer: each annotator supplies their own image"

    def gold_matches(self, f, given, expected, tolerance):
        return False  # never compared (``gold_problem``)

    def item_parts(self, f):
        return frozenset({"uploads"})

    def spec_errors(self, f, earlier):
        return [f"'{side}' must be at most {MAX_MIN_SIDE:,} pixels" for side in ("min_width", "min_height")
                if isinstance(getattr(f, side), int) and getattr(f, side) > MAX_MIN_SIDE]

    def min_image_size(self, f):
        return (MIN_SIDE if f.min_width is None else f.min_width, MIN_SIDE if f.min_height is None else f.min_height)

    def parse(self, f, raw, ctx, answers):
        upload = ctx.uploads.get(raw[-1])
        if upload is None:
            raise ValueError("Upload the image again: the upload was not found.")
        problem = image_size_problem(self.min_image_size(f), upload.width, upload.height)
        if problem:
            raise ValueError(problem)
        return {"upload": upload.token, "width": upload.width, "height": upload.height,
                "sha256": upload.sha256, "name": upload.name}

    def supplied_image(self, f, value):
        """The stored upload; None for an answer not shaped as one (no sha256, no integer size)."""
        if not isinstance(value, Mapping):
            return None
        sha256, width, height = value.get("sha256"), value.get("width"), value.get("height")
        if not (isinstance(sha256, str) and sha256 and isinstance(width, int) and isinstance(height, int)):
            return None
        return UploadRef(str(value.get("upload") or ""), width, height, sha256, str(value.get("name") or ""))

    def export_columns(self, f):
        return [f"{f.key}_{part}" for part in PARTS]

    def export_cells(self, f, value):
        if value is None:
            return {}
        upload = value if isinstance(value, Mapping) else {}
        return {f"{f.key}_{part}": cell_text(upload.get(part)) for part in PARTS}

    def export_values(self, f, value):
        if value is None:
            return {}
        upload = value if isinstance(value, Mapping) else {}
        return {f"{f.key}_{part}": upload.get(part) for part in PARTS}

    def export_arrow(self, f):
        import pyarrow as pa

        kinds = {"sha256": pa.string(), "width": pa.int64(), "height": pa.int64(), "name": pa.string()}
        return {f"{f.key}_{part}": kinds[part] for part in PARTS}

    def show_answer(self, f, value, *, candidates=()):
        if not isinstance(value, dict):
            return super().show_answer(f, value)
        text = f"{value.get('name', 'image')} ({value.get('width')}×{value.get('height')} px)"
        return ShownAnswer(text=text, upload=value.get("upload") or "")


def image_size_problem(least: tuple[int, int] | None, width: int, height: int) -> str | None:
    """Why an image of ``width`` × ``height`` pixels is too small for ``least`` (width, height), or None."""
    if least is None or (width >= least[0] and height >= least[1]):
        return None
    return (f"The image is {width}×{height} pixels; this question needs one at least "
            f"{least[0]}×{least[1]} pixels. Upload a larger image.")

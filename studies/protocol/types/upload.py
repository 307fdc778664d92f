"""``upload``: an image the annotator supplies."""

from __future__ import annotations

from collections.abc import Mapping

from .base import FieldType, ShownAnswer, cell_text

PARTS = ("sha256", "width", "height", "name")  # what the export keeps of an upload


class UploadType(FieldType):
    """An image uploaded beforehand, posted as its upload token; stored as
    ``{"upload", "width", "height", "sha256", "name"}``. Exported as ``<key>_sha256``,
    ``<key>_width``, ``<key>_height`` and ``<key>_name`` (the file name given)."""

    name = "upload"
    plain_export = False
    required_text = "Upload an image."
    script = "annotation/upload.js"

    def item_parts(self, f):
        return frozenset({"uploads"})

    def parse(self, f, raw, ctx, answers):
        upload = ctx.uploads.get(raw[-1])
        if upload is None:
            raise ValueError("Upload the image again: the upload was not found.")
        return {"upload": upload.token, "width": upload.width, "height": upload.height,
                "sha256": upload.sha256, "name": upload.name}

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

"""The export formats, one line each: a new format is one module of this package and one line here."""

from __future__ import annotations

from stats.versions import ProtocolSet

from . import coco, csvfile, gold, hf, jsonl, parquet
from .base import ExportFormat

FORMATS: dict[str, ExportFormat] = {
    f.name: f
    for f in (
        csvfile.FORMAT,
        jsonl.FORMAT,
        parquet.FORMAT,
        gold.FORMAT,
        coco.FORMAT,
        hf.FORMAT,
        hf.CROISSANT_FORMAT,
    )
}


def formats_for(protocols: ProtocolSet) -> list[ExportFormat]:
    """The formats that fit a study's protocol versions, in catalog order."""
    return [f for f in FORMATS.values() if f.fits(protocols)]

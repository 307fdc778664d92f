"""An export's manifest and its packing. Pure: no Django.

Every export carries ``manifest.json``: the study, the format, the analysis run it was gated on,
when it was made, and each file with its rows, size and sha256; then what the format notes (a
study-level format: the paper tables it could not make, ``not_computed``, table → why). An export
of one file (a protocol with no per-document questions) is that file itself, the way researchers
load it (``pandas.read_parquet(path)``), and its manifest is kept in the job row and offered as its
own download; an export of several files is one ZIP of the files and ``manifest.json``, so the
tables always travel with the record of where they came from.

A format whose ZIP is a folder to unpack (the Hugging Face folder, ``ExportFormat.top_folder``) packs
every file, ``manifest.json`` included, under one top folder named for the export (``folder_name``:
``tessera-study-<id>-<slug>-<YYYYMMDD>-<fingerprint8>``), which the manifest names (``folder``) and
the download takes as its name: two exports unpacked side by side never merge, and ``datasets``,
which caches a local dataset under its folder's name, never hands one study's rows for another's.
The manifest's file names stay relative to that folder.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .formats.base import BLOCK, WrittenFile, name_slug, quiet, sha256_of, utc_text

MANIFEST = "manifest.json"


def folder_name(*, study_id: int, study_name: str, created: datetime, identity: str) -> str:
    """An export's top folder: ``tessera-study-<id>-<slug>-<YYYYMMDD>-<fingerprint8>``, the day in UTC
    and the fingerprint the first 8 hex digits of the sha256 of ``identity`` (what makes the export:
    the study, its data, the analysis run, the options), so the same export is the same folder and
    any other export another."""
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:8]
    return f"tessera-study-{study_id}-{name_slug(study_name)}-{created.astimezone(UTC):%Y%m%d}-{digest}"


def manifest_for(
    *, study_id: int, study_name: str, format_name: str, analysis_id: int, data_fingerprint: str,
    files: Sequence[WrittenFile], created: datetime, notes: Mapping[str, Any] | None = None,
    on_block: Callable[[], None] = quiet,
) -> dict[str, Any]:
    """The manifest of the files written (hashed here, ``on_block()`` called per block read: a
    heartbeat that may raise to stop), then the format's ``notes``."""
    return {
        "study": {"id": study_id, "name": study_name},
        "format": format_name,
        "analysis_run": analysis_id,
        "data_fingerprint": data_fingerprint,
        "created": utc_text(created),
        "files": [
            {"name": f.name, "rows": f.rows, "bytes": f.path.stat().st_size,
             "sha256": f.sha256 or sha256_of(f.path, on_block)}
            for f in files
        ],
        **(notes or {}),
    }


def manifest_text(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Package:
    """What is stored: the one file, or the ZIP of every file with the manifest."""

    path: Path
    extension: str
    is_zip: bool


def package(files: Sequence[WrittenFile], manifest: dict[str, Any], folder: Path, extension: str,
            on_block: Callable[[], None] = quiet, top: str = "") -> Package:
    """The one file as itself, or the ZIP of them all with ``manifest.json`` (``on_block()`` called
    per block packed); with a ``top`` folder, always a ZIP, every entry under ``<top>/``."""
    if len(files) == 1 and not top:
        return Package(files[0].path, extension, is_zip=False)
    prefix = f"{top}/" if top else ""
    bundle = folder / "export.zip"
    with zipfile.ZipFile(bundle, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for f in files:
            with f.path.open("rb") as src, zf.open(prefix + f.name, "w", force_zip64=True) as out:
                on_block()
                while block := src.read(BLOCK):
                    on_block()
                    out.write(block)
        zf.writestr(prefix + MANIFEST, manifest_text(manifest))
    return Package(bundle, "zip", is_zip=True)

"""What an export format is: a name, a label, the extension of its files, whether it fits a
protocol, and a writer that takes chunks of annotations and writes them as they come. Pure: no
Django (the service reads the rows and stores the files).

A format writes its tables into a local folder: ``annotations.<ext>``, and ``documents.<ext>`` when
the protocol asks questions per document. ``close`` ends the files and says what was written;
the service hashes them, adds the manifest and moves them to the storage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol as Interface

from stats.versions import ProtocolSet

from ..csvformat import DocumentInfo
from .table import AnnotationRow, Tables

ANNOTATIONS = "annotations"
DOCUMENTS = "documents"


@dataclass(frozen=True)
class WrittenFile:
    """One file of an export: its name in the export, where it was written, its data rows."""

    name: str
    path: Path
    rows: int


class TableWriter(Interface):
    """A format's writer over one export, opened on a folder."""

    def write(self, rows: Sequence[AnnotationRow], documents: Mapping[int, DocumentInfo]) -> None:
        """Write a chunk of annotations (``documents``: their items' documents, by id)."""

    def close(self) -> list[WrittenFile]:
        """End every file; the annotations' file first."""


def fits_any(protocols: ProtocolSet) -> bool:
    """Raw annotations fit every protocol."""
    return True


@dataclass(frozen=True)
class ExportFormat:
    name: str  # what a form posts and ``manage.py export --format`` takes
    label: str  # what the study page shows
    extension: str  # of each table's file
    description: str
    content_type: str
    opener: Callable[[Path, Tables, ProtocolSet], TableWriter]
    fits: Callable[[ProtocolSet], bool] = fits_any

    def open(self, folder: Path, tables: Tables, protocols: ProtocolSet) -> TableWriter:
        return self.opener(folder, tables, protocols)

    def file_name(self, table: str) -> str:
        return f"{table}.{self.extension}"

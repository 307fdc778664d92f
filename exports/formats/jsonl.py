"""``jsonl``: raw annotations as JSON Lines, one object per annotation, typed: numbers are
numbers, lists stay lists, a box is an object of numbers, timestamps ISO 8601 in UTC."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from stats.versions import ProtocolSet

from ..csvformat import iso_utc
from .base import ANNOTATIONS, DOCUMENTS, ExportFormat, WrittenFile
from .table import Tables, document_values, row_values

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _times(schema) -> list[int]:
    """The positions of a table's timestamps, written as ISO 8601 text in UTC."""
    return [i for i, kind in enumerate(schema.types) if pa.types.is_timestamp(kind)]


class JsonlWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet):
        self.tables, self.protocols = tables, protocols
        self.names = {ANNOTATIONS: tables.schema.names}
        if tables.document_schema is not None:
            self.names[DOCUMENTS] = tables.document_schema.names
        self.paths = {name: folder / FORMAT.file_name(name) for name in self.names}
        self.files = {name: path.open("w", encoding="utf-8") for name, path in self.paths.items()}
        self.rows = dict.fromkeys(self.paths, 0)
        self.times = _times(tables.schema)

    def write(self, rows, documents):
        tables, names, times = self.tables, self.names[ANNOTATIONS], self.times
        lines, document_lines = [], []
        for row in rows:
            protocol = self.protocols.for_version(row.protocol_version)
            values = row_values(tables, protocol, row)
            for i in times:
                values[i] = iso_utc(values[i])
            lines.append(_encode(dict(zip(names, values, strict=True))))
            if tables.document_schema is not None:
                document_lines += [
                    _encode(dict(zip(self.names[DOCUMENTS], values, strict=True)))
                    for values in document_values(tables, protocol, row, documents)
                ]
        self._lines(ANNOTATIONS, lines)
        if document_lines:
            self._lines(DOCUMENTS, document_lines)

    def _lines(self, name: str, lines: list[str]) -> None:
        self.files[name].write("\n".join(lines) + "\n" if lines else "")
        self.rows[name] += len(lines)

    def close(self):
        for fh in self.files.values():
            fh.close()
        return [WrittenFile(FORMAT.file_name(name), path, self.rows[name]) for name, path in self.paths.items()]


FORMAT = ExportFormat(
    name="jsonl",
    label="JSON Lines",
    extension="jsonl",
    description="One JSON object per line and annotation, typed (lists stay lists); pandas.read_json(lines=True).",
    content_type="application/jsonl",
    opener=JsonlWriter,
)

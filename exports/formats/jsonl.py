"""``jsonl``: raw annotations as JSON Lines, one object per annotation, typed: numbers are
numbers, lists stay lists, a box is an object of numbers, timestamps ISO 8601 in UTC."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import orjson
import pyarrow as pa

from stats.versions import ProtocolSet

from ..csv_layout import iso_utc_column
from .base import ANNOTATIONS, DOCUMENTS, ExportFormat, Origin, WrittenFile
from .table import Tables, chunk_document_values, typed_columns

LINES_PER_WRITE = 500
_slow = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _line(values: dict) -> bytes:
    """One line, newline included, by orjson (compact, UTF-8, a third of the json module's time); a
    whole number beyond 64 bits, which orjson refuses, by the json module."""
    try:
        return orjson.dumps(values, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        return _slow(values).encode() + b"\n"


def _times(schema) -> list[int]:
    """The positions of a table's timestamps, written as ISO 8601 text in UTC."""
    return [i for i, kind in enumerate(schema.types) if pa.types.is_timestamp(kind)]


class JsonlWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None):
        self.tables, self.protocols = tables, protocols
        self.names = {ANNOTATIONS: tables.schema.names}
        if tables.document_schema is not None:
            self.names[DOCUMENTS] = tables.document_schema.names
        self.paths = {name: folder / FORMAT.file_name(name) for name in self.names}
        self.files = {name: path.open("wb") for name, path in self.paths.items()}
        self.rows = dict.fromkeys(self.paths, 0)
        self.times = _times(tables.schema)

    def write(self, rows, documents):
        tables = self.tables
        columns = typed_columns(tables, self.protocols, rows)
        for i in self.times:
            columns[i] = iso_utc_column(columns[i])
        self._lines(ANNOTATIONS, self.names[ANNOTATIONS], zip(*columns))
        if tables.document_schema is not None:
            document_rows = chunk_document_values(tables, self.protocols, rows, documents)
            self._lines(DOCUMENTS, self.names[DOCUMENTS], document_rows)

    def _lines(self, name: str, names: list[str], rows: Iterable[Sequence]) -> None:
        """Written as they are encoded, ``LINES_PER_WRITE`` lines at a time: a chunk's encoded lines
        are never all held (orjson's output buffers would take some 7 KiB each), and a write per
        line would cost more than its encoding."""
        write, count, lines = self.files[name].write, 0, []
        for values in rows:
            lines.append(_line(dict(zip(names, values, strict=True))))
            if len(lines) == LINES_PER_WRITE:
                write(b"".join(lines))
                count += len(lines)
                lines = []
        write(b"".join(lines))
        self.rows[name] += count + len(lines)

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

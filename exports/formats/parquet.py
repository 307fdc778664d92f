"""``parquet``: raw annotations as Parquet, written a row group per chunk by pyarrow's
``ParquetWriter`` with the schema fixed from the protocol versions before the first row (typed:
integers, floats, lists, structs, UTC timestamps). Each file's key-value metadata names where it
comes from (``Origin.metadata``: ``tessera.analysis_run``, ``tessera.data_fingerprint``, …), so a
Parquet file read alone still says which analysis run it was gated on."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from stats.versions import ProtocolSet

from .base import ANNOTATIONS, DOCUMENTS, ExportFormat, Origin, WrittenFile
from .table import Tables, chunk_document_values, typed_columns

COMPRESSION = "zstd"


def _batch(schema: pa.Schema, columns: list[list]) -> pa.Table:
    return pa.Table.from_arrays(
        [pa.array(col, type=kind) for col, kind in zip(columns, schema.types, strict=True)], schema=schema
    )


class ParquetFileWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None):
        self.tables, self.protocols, self.origin = tables, protocols, origin or Origin()
        self.schemas = {ANNOTATIONS: tables.schema}
        if tables.document_schema is not None:
            self.schemas[DOCUMENTS] = tables.document_schema
        self.paths = {name: folder / FORMAT.file_name(name) for name in self.schemas}
        self.writers = {
            name: pq.ParquetWriter(self.paths[name], schema, compression=COMPRESSION)
            for name, schema in self.schemas.items()
        }
        self.rows = dict.fromkeys(self.paths, 0)

    def write(self, rows, documents):
        tables = self.tables
        if rows:
            self._write(ANNOTATIONS, typed_columns(tables, self.protocols, rows), len(rows))
        if tables.document_schema is not None:
            document_rows = chunk_document_values(tables, self.protocols, rows, documents)
            if document_rows:
                self._write(DOCUMENTS, [list(col) for col in zip(*document_rows, strict=True)], len(document_rows))

    def _write(self, name: str, columns: list[list], count: int) -> None:
        self.writers[name].write_table(_batch(self.schemas[name], columns))
        self.rows[name] += count

    def close(self):
        for writer in self.writers.values():
            if writer.is_open:
                writer.add_key_value_metadata(self.origin.metadata())
            writer.close()
        return [WrittenFile(FORMAT.file_name(name), path, self.rows[name]) for name, path in self.paths.items()]


FORMAT = ExportFormat(
    name="parquet",
    label="Parquet",
    extension="parquet",
    description="Typed columns (integers, floats, lists, boxes as structs, UTC timestamps); "
    "pandas.read_parquet, pyarrow, Hugging Face datasets.",
    content_type="application/vnd.apache.parquet",
    opener=ParquetFileWriter,
)

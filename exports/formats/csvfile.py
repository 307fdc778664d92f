"""``csv``: raw annotations as CSV (UTF-8, a header row), every cell a field type's text
(``export_cells``); a cell that starts like a formula is neutralised (``csvformat.safe_cell``)."""

from __future__ import annotations

import csv
from pathlib import Path

from stats.versions import ProtocolSet

from .. import csvformat
from .base import ANNOTATIONS, DOCUMENTS, ExportFormat, WrittenFile
from .table import Tables

_row = csvformat.safe_cells


class CsvWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet):
        self.layout, self.protocols = tables.layout, protocols
        self.paths = {ANNOTATIONS: folder / FORMAT.file_name(ANNOTATIONS)}
        if self.layout.has_documents:
            self.paths[DOCUMENTS] = folder / FORMAT.file_name(DOCUMENTS)
        self.files = {name: path.open("w", encoding="utf-8", newline="") for name, path in self.paths.items()}
        self.writers = {name: csv.writer(fh) for name, fh in self.files.items()}
        self.rows = dict.fromkeys(self.paths, 0)
        self.writers[ANNOTATIONS].writerow(csvformat.header(self.layout))
        if self.layout.has_documents:
            self.writers[DOCUMENTS].writerow(csvformat.document_header(self.layout))

    def write(self, rows, documents):
        layout, out = self.layout, self.writers[ANNOTATIONS]
        for row in rows:
            protocol = self.protocols.for_version(row.protocol_version)
            out.writerow(_row(
                [row.item_id, row.prompt, row.model, row.category, row.item_country, row.pool_country, row.annotator]
                + csvformat.answer_cells(layout, protocol, row.answers)
                + csvformat.trailing_cells(
                    surplus=row.surplus, protocol_version=row.protocol_version, time_spent_ms=row.time_spent_ms,
                    started_at=row.started_at, submitted_at=row.submitted_at, review=row.review,
                )
            ))
            if layout.has_documents:
                for cells in csvformat.document_rows(layout, protocol, row.answers, documents):
                    self.writers[DOCUMENTS].writerow(
                        _row([row.item_id, row.pool_country, row.annotator, *cells, str(row.protocol_version)])
                    )
                    self.rows[DOCUMENTS] += 1
        self.rows[ANNOTATIONS] += len(rows)

    def close(self):
        for fh in self.files.values():
            fh.close()
        return [WrittenFile(FORMAT.file_name(name), path, self.rows[name]) for name, path in self.paths.items()]


FORMAT = ExportFormat(
    name="csv",
    label="CSV",
    extension="csv",
    description="One row per annotation, every answer as text (lists joined by |, boxes as JSON); opens in "
    "a spreadsheet or pandas.read_csv.",
    content_type="text/csv",
    opener=CsvWriter,
)

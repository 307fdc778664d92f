"""``csv``: raw annotations as CSV (UTF-8, a header row), every cell a field type's text
(``export_cells``); a cell that starts like a formula is neutralised (``studies.protocol.safetext.safe_cell``).
A chunk is made column by column (``csv_layout.answer_cell_columns``) and written at once."""

from __future__ import annotations

import csv
from pathlib import Path

from stats.versions import ProtocolSet
from studies.protocol.safetext import safe_cells

from .. import csv_layout
from .base import ANNOTATIONS, DOCUMENTS, ExportFormat, Origin, WrittenFile
from .table import Tables, by_version, columns_of

_safe = safe_cells


class CsvWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None):
        self.layout, self.protocols = tables.layout, protocols
        self.paths = {ANNOTATIONS: folder / FORMAT.file_name(ANNOTATIONS)}
        if self.layout.has_documents:
            self.paths[DOCUMENTS] = folder / FORMAT.file_name(DOCUMENTS)
        self.files = {name: path.open("w", encoding="utf-8", newline="") for name, path in self.paths.items()}
        self.writers = {name: csv.writer(fh) for name, fh in self.files.items()}
        self.rows = dict.fromkeys(self.paths, 0)
        self.writers[ANNOTATIONS].writerow(csv_layout.header(self.layout))
        if self.layout.has_documents:
            self.writers[DOCUMENTS].writerow(csv_layout.document_header(self.layout))

    def write(self, rows, documents):
        layout, protocols = self.layout, self.protocols
        if rows:
            (_, item_id, prompt, model, category, item_country, pool_country, annotator, answers,
             surplus, version, spent, started, submitted, review, panel, effort) = columns_of(rows)
            def answer_cells(protocol, part):
                return csv_layout.answer_cell_columns(layout, protocol, part)

            text = [item_id, prompt, model, category, item_country, pool_country, panel, annotator]
            text += by_version(protocols, version, answers, answer_cells)
            columns = [_safe(column) for column in text] + csv_layout.trailing_cell_columns(
                surplus=surplus, protocol_version=version, time_spent_ms=spent, started_at=started,
                submitted_at=submitted, review=review, effort=effort,
            )
            self.writers[ANNOTATIONS].writerows(zip(*columns, strict=True))
        if layout.has_documents:
            for row in rows:
                protocol = protocols.for_version(row.protocol_version)
                for cells in csv_layout.document_rows(layout, protocol, row.answers, documents):
                    self.writers[DOCUMENTS].writerow(
                        _safe([row.item_id, row.pool_country, row.annotator, *cells, str(row.protocol_version)])
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

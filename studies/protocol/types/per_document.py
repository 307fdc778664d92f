"""``per_document``: sub-fields asked about each document of the item."""

from __future__ import annotations

from .base import FieldType


class PerDocumentType(FieldType):
    """Sub-fields repeated for each document of the item (walked by the submission module);
    stored as ``[{"document": id, sub key: answer, …}, …]``. Exported as ``<key>_documents``, the
    number of documents answered (the answers are in the export's documents table)."""

    name = "per_document"
    plain_export = False
    container = True

    def spec_errors(self, f, earlier):
        errors = [] if f.fields else ["a per_document field needs 'fields'"]
        if any(sub.key == "document" for sub in f.fields):
            errors.append("'document' is reserved for the document's id; name the sub-field otherwise")
        if f.score is not None and not (
            isinstance(f.score, dict) and f.score
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in f.score.values())
        ):
            errors.append("'score' maps answer values to numbers, e.g. {\"yes\": 1, \"no\": -1}")
        return errors

    def item_parts(self, f):
        return frozenset({"documents"})

    def raw_from(self, data, name):
        return []  # its sub-fields are posted, each under its own name

    def export_columns(self, f):
        return [f"{f.key}_documents"]

    def export_cells(self, f, value):
        if value is None:
            return {}
        return {f"{f.key}_documents": str(len(value)) if isinstance(value, list) else ""}

    def export_values(self, f, value):
        if value is None:
            return {}
        return {f"{f.key}_documents": len(value) if isinstance(value, list) else None}

    def export_arrow(self, f):
        import pyarrow as pa

        return {f"{f.key}_documents": pa.int64()}

"""``per_document``: sub-fields asked about each document of the item."""

from __future__ import annotations

from ..gold import at_least, gold_match, share_problem
from ..values import value_token
from .base import FieldType, mappings


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

    def gold_problem(self, f):
        if not any(sub.kind.gold_problem(sub) is None for sub in f.fields):
            return "none of its sub-fields can have a gold answer"
        return None

    def gold_tolerance_problem(self, f, tolerance):
        return share_problem(tolerance, "the least share of the gold's documents answered as the gold")

    def gold_matches(self, f, given, expected, tolerance):
        """Document by document (by id): a document matches when every sub-field its gold answer
        names, and that can have gold, matches (each by its type's default); the share of the
        gold's documents that match must be at least the tolerance (all of them by default)."""
        answered = {value_token(d.get("document")): d for d in mappings(given)}
        documents = mappings(expected)
        if not documents:
            return False
        subs = [sub for sub in f.fields if sub.kind.gold_problem(sub) is None]
        matched = sum(
            1 for gold in documents
            if (mine := answered.get(value_token(gold.get("document")))) is not None
            and all(gold_match(sub, mine.get(sub.key), gold[sub.key]) for sub in subs if sub.key in gold)
        )
        return at_least(matched / len(documents), 1.0 if tolerance is None else tolerance)

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

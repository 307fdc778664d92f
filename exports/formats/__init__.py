"""The export formats: the catalog, what a format is, and the typed tables they write."""

from .base import ExportFormat, TableWriter, WrittenFile
from .catalog import FORMATS, formats_for
from .table import AnnotationRow, Tables, tables_for

__all__ = [
    "FORMATS", "AnnotationRow", "ExportFormat", "TableWriter", "Tables", "WrittenFile", "formats_for", "tables_for",
]

"""Import items into a study: rows from a CSV or JSONL file, images from a folder or a .zip, or
already on the site's storage in the study's import folder.

Every row and every image is checked first and every problem is reported with its line; only a
clean file is written, in one transaction, so a refused file leaves nothing behind (neither rows
nor stored images). Images are read one row at a time, never the whole set at once.

``rows`` reads and types the rows, ``images`` reads and checks the images and ``stored`` finds those
named on the site's storage (none of them touches Django); ``service`` checks them against the
study and writes them.
"""

from .columns import Column, columns_for, sample_csv
from .images import FORMAT_NAMES, FORMATS, FolderImages, ZipImages, images_source, inspect_image, safe_name
from .rows import KNOWN, ItemImportError, ItemNeeds, Row, RowProblem, item_needs, parse_row, read_rows
from .service import ImportReport, items_import, stored_images
from .stored import StoredImages

__all__ = [
    "FORMATS", "FORMAT_NAMES", "KNOWN", "Column", "columns_for", "sample_csv",
    "FolderImages", "ImportReport", "ItemImportError", "ItemNeeds", "Row", "RowProblem", "StoredImages", "ZipImages",
    "images_source", "inspect_image", "item_needs", "items_import", "parse_row", "read_rows", "safe_name",
    "stored_images",
]

"""The old name of ``exports/csv_layout.py``, kept only while ``exports/rows.py`` imports it from here.

rows.py is being changed on another branch (issue 25), so its import moves there; then delete this module.
"""

from .csv_layout import Moments

__all__ = ["Moments"]

"""Gold labels: what a study's annotators agreed on, as rows ready to export. Pure: no Django.

- ``fields``: per field, by its level of measurement, one row per (item, country) and per item
  (``field_gold``).
- ``dawid_skene``: a competence-weighted label per unit and each annotator's competence.
"""

from .dawid_skene import DawidSkene, dawid_skene
from .fields import ANNOTATOR_COLUMNS, GOLD_COLUMNS, FieldGold, field_gold, pair_agreement, plain_rows, t_interval

__all__ = ["ANNOTATOR_COLUMNS", "DawidSkene", "FieldGold", "GOLD_COLUMNS", "dawid_skene", "field_gold",
           "pair_agreement", "plain_rows", "t_interval"]

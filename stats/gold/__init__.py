"""Gold labels: what a study's annotators agreed on, as rows ready to export. Pure: no Django.

- ``fields``: per field, by its level of measurement, one row per (item, country) and per item
  (``field_gold``), a Dawid–Skene label only where there is data enough for it (``DS_MIN_ITEMS``).
- ``dawid_skene``: a competence-weighted label per unit and each annotator's competence.
- ``mace``: MACE (Hovy et al. 2013): each annotator's chance of not spamming, and a label per unit.
- ``papers``: each paper's published gold, one function per report kind (``GOLD``).
- ``study``: all of a study's gold tables from its annotations as columns (``study_gold``; the
  input's shape is in its docstring).
"""

from .dawid_skene import DawidSkene, dawid_skene
from .fields import (
    ANNOTATOR_COLUMNS,
    DS_MIN_ITEMS,
    DS_MIN_RATINGS,
    GOLD_COLUMNS,
    GOLD_FLOATS,
    FieldGold,
    ds_withheld,
    field_gold,
    pair_agreement,
    plain_rows,
    t_interval,
)
from .mace import Mace, mace
from .papers import COLUMNS, GOLD, fused_box
from .study import StudyGold, gold_keys, study_gold

__all__ = ["ANNOTATOR_COLUMNS", "COLUMNS", "DS_MIN_ITEMS", "DS_MIN_RATINGS", "DawidSkene", "FieldGold", "GOLD",
           "GOLD_COLUMNS", "GOLD_FLOATS", "Mace", "StudyGold", "dawid_skene", "ds_withheld", "field_gold", "fused_box",
           "gold_keys", "mace", "pair_agreement", "plain_rows", "study_gold", "t_interval"]

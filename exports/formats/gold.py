"""``gold``: the study's gold labels, in CSV and in Parquet, one ZIP with the manifest
(``stats.gold.study_gold``, read by ``exports.sources``):

- ``gold_by_country`` and ``gold_by_item``: per field, one row per (item, country) and per item
  (majority with ties, median, mean with sd and interval, n, agreement, the Dawid–Skene label where
  there is data enough for it, else ``ds_note`` saying why); their numbers typed as floats in
  Parquet (``gold_types``), None allowed, whatever the rows hold (an ordinal field has no ``sd``);
- ``annotators``: each annotator's Dawid–Skene competence per nominal or ordinal field, by pseudonym;
- ``model_rankings``: for a study with comparison questions, each model's rank, score (centred
  log-strength) and 95% interval per field and country ("all" over every pool), as the analysis
  run the export was checked against computed them (``exports.sources.model_rankings``);
- ``item_images`` and ``preferences``: for a study whose items have several images, each image
  with its model, and per country the majority's preference between each pair of an item's images
  (prompt, chosen, rejected: ``formats.compared``), and ``image_rankings``: the images ranked within
  each set of three or more that the answers link;
- ``paper_<kind>``: each table a report the protocol declares publishes (CAIRE's human scores,
  CulturalFrames' kept prompts, error types and highlighted words, RAVENEA's document scores and
  caption wins, GlobalRG's fused boxes, CulturalVQA's answers); a paper table that could not be
  made is named in ``manifest.json`` under ``not_computed`` with the reason (``gold_missing``), and
  each field with units left without a Dawid–Skene label under ``dawid_skene_withheld``, with how
  many and why (``gold_notes``).

Items carry the researcher's ids. Lists stay lists in Parquet and are JSON text in CSV. The raw
annotations streamed to the writer are not part of it (the ``csv``/``parquet`` formats ship them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from stats.gold import GOLD_FLOATS, ds_withheld, gold_keys
from stats.versions import ProtocolSet

from .base import ExportFormat, Origin, StudySource, WrittenFile
from .compared import (
    IMAGE_RANKINGS,
    ITEM_IMAGES,
    PREFERENCES,
    image_rankings_frame,
    item_images_frame,
    preferences_frame,
    undecided,
)
from .compared import TYPES as COMPARED_TYPES
from .frames import write_csv, write_parquet
from .table import Tables


def gold_tables(source: StudySource, *, comparisons: bool = True) -> dict[str, pd.DataFrame]:
    """Every table of a study's gold, by its name in an export; with ``comparisons``, the items'
    several images and the preferences between them (``formats.compared``), which the hf format
    writes itself."""
    gold = source.gold
    tables = {"gold_by_country": gold.by_country, "gold_by_item": gold.by_item, "annotators": gold.annotators}
    tables.update({f"paper_{kind}": frame for kind, frame in gold.papers.items()})
    if source.rankings is not None and len(source.rankings):
        tables[RANKINGS] = source.rankings
    if comparisons:
        for name, frame in ((ITEM_IMAGES, item_images_frame(source)), (PREFERENCES, preferences_frame(source)),
                            (IMAGE_RANKINGS, image_rankings_frame(source))):
            if len(frame):
                tables[name] = frame
    return tables


GOLD_FIELDS = ("gold_by_country", "gold_by_item")
FLOAT_TYPES = {column: pa.float64() for column in GOLD_FLOATS}
RANKINGS = "model_rankings"
RANKING_COLUMNS = ("field", "design", "country", "model", "rank", "score", "ci_low", "ci_high", "answers", "wins",
                   "losses", "ties", "shown", "best", "worst", "count_score")
RANKING_TYPES = {
    **{c: pa.string() for c in ("field", "design", "country", "model")},
    **{c: pa.int64() for c in ("rank", "answers", "wins", "losses", "ties", "shown", "best", "worst")},
    **{c: pa.float64() for c in ("score", "ci_low", "ci_high", "count_score")},
}


def gold_types(name: str) -> dict[str, pa.DataType]:
    """The declared Arrow types of the columns of gold table ``name`` (the rest typed from their values)."""
    if name == RANKINGS:
        return RANKING_TYPES
    if name in COMPARED_TYPES:
        return COMPARED_TYPES[name]
    return FLOAT_TYPES if name in GOLD_FIELDS else {}


def gold_notes(source: StudySource) -> dict[str, Any]:
    """What ``manifest.json`` says of a study's gold beside its files: the paper tables not computed,
    and each field whose units have no Dawid–Skene label with how many and why (``ds_withheld``);
    for a comparison study, per question, the (country, item, pair) whose votes were level, which
    are no preference row (``preferences_undecided``)."""
    notes = {"not_computed": gold_missing(source), "dawid_skene_withheld": ds_withheld(source.gold.by_country)}
    if source.preferences:
        notes["preferences_undecided"] = undecided(source)
    return notes


def gold_missing(source: StudySource) -> dict[str, str]:
    """Each paper table the protocol declares that could not be made, by its name in an export:
    why (``StudyGold.errors``)."""
    return {f"paper_{kind}": reason for kind, reason in source.gold.errors.items()}


def fits_gold(protocols: ProtocolSet) -> bool:
    """Gold labels fit a protocol with something to aggregate: a field with a level of measurement,
    a per_document field, or a declared report (a protocol of free text only has none)."""
    return bool(gold_keys(protocols))


class GoldWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None):
        self.folder = folder
        self.files: list[WrittenFile] = []
        self.noted: dict[str, Any] = {}

    def write(self, rows, documents):
        """The raw annotations are not part of the gold export."""

    def study(self, source: StudySource) -> None:
        self.noted = gold_notes(source)
        for name, frame in gold_tables(source).items():
            source.pulse()
            csv_path, parquet_path = self.folder / f"{name}.csv", self.folder / f"{name}.parquet"
            self.files.append(WrittenFile(csv_path.name, csv_path, write_csv(frame, csv_path)))
            self.files.append(WrittenFile(parquet_path.name, parquet_path,
                                          write_parquet(frame, parquet_path, gold_types(name))))

    def notes(self):
        return self.noted

    def close(self):
        return self.files


FORMAT = ExportFormat(
    name="gold",
    label="Gold labels",
    extension="zip",
    description="Aggregated labels per (item, country) and per item, each annotator's competence and each "
    "paper's table, in CSV and Parquet (one ZIP with its manifest).",
    content_type="application/zip",
    opener=GoldWriter,
    fits=fits_gold,
    study_level=True,
    streams_rows=False,
    holds="gold tables in CSV and Parquet, and manifest.json",
)

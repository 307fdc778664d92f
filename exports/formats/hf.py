"""``hf``: a folder in the Hugging Face dataset layout, in one ZIP with the manifest, that
``datasets.load_dataset(folder, config)`` loads. Every file is under the ZIP's one top folder,
``tessera-study-<id>-<slug>-<YYYYMMDD>-<fingerprint8>/`` (``manifest.folder_name``), which the
download is named for; the paths below are inside it:

- ``data/raw/<country>.parquet``: the raw annotations (the ``parquet`` format's typed columns),
  one file per pool country, written a row group per chunk as they stream; config ``raw`` (the
  default), one split per country (its code in lower case); ``data/raw_documents/<country>.parquet``
  and config ``raw_documents`` when the protocol asks questions per document;
- ``data/gold/<table>.parquet``: the gold tables of the ``gold`` format, a config each (split
  ``train``), ``gold_by_country`` with one split per country as well, typed as the ``gold`` format
  types them (a table without rows is left out: ``datasets`` cannot load a Parquet file of zero
  rows; a paper table that could not be made is named in the card, "not computed" with the reason,
  and in ``manifest.json``, as are the fields whose units have no Dawid–Skene label, and why);
- ``data/items.parquet``: each annotated item's id, prompt, country, model, image file, size
  (config ``items``), and when the images are shipped its image in an ``image`` column the card
  declares a ``datasets.Image`` (the file's bytes and its path in the folder: ``load_dataset``
  gives a PIL image, which a path alone would not, read relative to wherever Python runs);
- ``images/<file>``: the items' images, when the researcher asks for them (read through the
  storage in chunks; one file per stored image, however many items show it; also in the ``items``
  Parquet, so the ZIP holds each twice: as a file for any tool, and in the table for ``datasets``), and
  ``images/uploads/<sha256>.<ext>`` the images annotators uploaded (an upload field's answers),
  listed in ``data/uploads.parquet`` (config ``uploads``: sha256, file name, size);
- ``data/item_images.parquet`` (config ``item_images``) and ``data/preferences/<country>.parquet``
  (config ``preferences``, one split per country): a comparison study's images with their models,
  and the majority's preferences between them (``formats.compared``: prompt, chosen, rejected), their
  image columns ``datasets.Image`` cells when the images are shipped, else the files' paths; the
  compared images are shipped under ``images/`` as the items' are; ``data/image_rankings.parquet``
  (config ``image_rankings``): the images ranked within each set the answers link;
- ``README.md``: the dataset card (``card``): the YAML header with the configs, their features
  (from the Arrow schemas), the size category, the researcher's license, languages, task categories
  and tags (what the Hub reads), then the datasheet;
- ``croissant.json``: the folder in Croissant with its responsible-AI fields (``croissant``), every
  file listed with its sha256 (taken once, and handed to the manifest).

The ``croissant`` format writes this folder aside and ships its ``croissant.json`` alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from stats.versions import ProtocolSet
from studies.protocol import SKIP, Field, UploadRef

from .base import DOCUMENTS, ExportFormat, Origin, StudySource, WrittenFile, sha256_of
from .card import IMAGE, Config, card_text, citation_text
from .compared import (
    IMAGE_RANKINGS,
    ITEM_IMAGES,
    PREFERENCES,
    image_rankings_frame,
    item_images_frame,
    preferences_frame,
)
from .compared import TYPES as COMPARED_TYPES
from .croissant import CROISSANT, croissant
from .frames import arrow_table
from .gold import gold_notes, gold_tables, gold_types
from .parquet import COMPRESSION, _batch
from .table import Tables, chunk_document_values, typed_columns

CARD = "README.md"
RAW = "raw"
ITEMS = pa.schema([("item_id", pa.string()), ("prompt", pa.string()), ("country", pa.string()),
                   ("model", pa.string()), ("file_name", pa.string()), ("width", pa.int64()),
                   ("height", pa.int64()), ("sha256", pa.string())])
ITEMS_WITH_IMAGES = ITEMS.append(pa.field("image", IMAGE))
ITEMS_PER_GROUP = 64  # items (and their images) per row group of data/items.parquet (and of a table embedding images)
ITEM_IMAGES_NOTE = ("each item's several images (a comparison's): its place in the item, which the raw answers "
                    "name, the model that made it and its parameters")
PREFERENCES_NOTE = ("per comparison question, country, item and pair of its images, the majority's preference: "
                    "`prompt`, `chosen`, `rejected`, as reward models train on them, with the votes each way "
                    "(ties and level votes are no preference)")
IMAGE_RANKINGS_NOTE = ("per comparison question and country, the images ranked (Bradley–Terry) within each set of "
                       "three or more that the answers link: a prompt's images paired up, or one item's")


def split_name(country: str) -> str:
    """A split's name for a country code (the Hub allows letters, digits and underscores)."""
    return re.sub(r"\W", "_", (country or "unknown").lower()) or "unknown"


class HfWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None):
        self.folder, self.tables, self.protocols = folder, tables, protocols
        self.origin = origin or Origin()
        self.schemas = {RAW: tables.schema}
        if tables.document_schema is not None:
            self.schemas[f"{RAW}_{DOCUMENTS}"] = tables.document_schema
        self.writers: dict[tuple[str, str], pq.ParquetWriter] = {}
        self.rows: dict[tuple[str, str], int] = {}
        self.item_pks: set[int] = set()
        self.uploads: dict[str, UploadRef] = {}  # sha256 → the first answer that supplied it
        self.supplying: dict[int, list[Field]] = {}  # protocol version → its fields whose answers supply an image
        self.any_uploads = any(f.kind.supplies_image for group in protocols.groups() for f in group)
        self.extra: list[WrittenFile] = []
        self.noted: dict[str, Any] = {}
        self.hashes: dict[str, str] = {}  # sha256 by file name, taken for croissant.json

    def _path(self, table: str, split: str) -> Path:
        return self.folder / "data" / table / f"{split}.parquet"

    def _write(self, table: str, split: str, columns: list[list], count: int) -> None:
        key = (table, split)
        if key not in self.writers:
            path = self._path(table, split)
            path.parent.mkdir(parents=True, exist_ok=True)
            self.writers[key] = pq.ParquetWriter(path, self.schemas[table], compression=COMPRESSION)
            self.rows[key] = 0
        self.writers[key].write_table(_batch(self.schemas[table], columns))
        self.rows[key] += count

    def write(self, rows, documents):
        by_split: dict[str, list] = {}
        for row in rows:
            by_split.setdefault(split_name(row.pool_country), []).append(row)
            self.item_pks.add(row.item_pk)
            if self.any_uploads:
                self._uploads_of(row)
        tables, protocols = self.tables, self.protocols
        for split, part in by_split.items():
            self._write(RAW, split, typed_columns(tables, protocols, part), len(part))
            if tables.document_schema is None:
                continue
            values = chunk_document_values(tables, protocols, part, documents)
            if values:
                self._write(f"{RAW}_{DOCUMENTS}", split, [list(c) for c in zip(*values, strict=True)], len(values))

    def _uploads_of(self, row) -> None:
        answers = row.answers
        if not isinstance(answers, Mapping) or SKIP in answers:
            return
        fields = self.supplying.get(row.protocol_version)
        if fields is None:
            protocol = self.protocols.for_version(row.protocol_version)
            fields = self.supplying[row.protocol_version] = [f for f in protocol.fields if f.kind.supplies_image]
        for f in fields:
            upload = f.kind.supplied_image(f, answers.get(f.key))
            if upload is not None:
                self.uploads.setdefault(upload.sha256, upload)

    def _table(self, relative: str, table: pa.Table) -> tuple[str, pa.Schema]:
        path = self.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path, compression=COMPRESSION)
        self.extra.append(WrittenFile(relative, path, table.num_rows))
        return relative, table.schema

    def study(self, source: StudySource) -> None:
        for writer in self.writers.values():
            writer.close()
        configs = []
        for table, schema in self.schemas.items():
            splits = {split: f"data/{table}/{split}.parquet" for (t, split) in sorted(self.rows) if t == table}
            if splits:
                configs.append(Config(table, splits, schema, default=table == RAW))
        for name, frame in gold_tables(source, comparisons=False).items():
            source.pulse()
            if not len(frame):  # ``datasets`` reads no Parquet file of zero rows: an empty table is left out
                continue
            whole = arrow_table(frame, gold_types(name))
            relative, schema = self._table(f"data/gold/{name}.parquet", whole)
            splits = {"train": relative}
            if name == "gold_by_country":  # a split per country: rows of the whole table, typed as it is
                for country, rows in frame.reset_index(drop=True).groupby(frame["country"].astype(str).to_numpy(),
                                                                           sort=True).indices.items():
                    splits[split_name(country)] = self._table(
                        f"data/gold/{name}/{split_name(country)}.parquet", whole.take(pa.array(rows)))[0]
            configs.append(Config(name, splits, schema))
        if source.options.images:  # first: the items' table embeds the files copied
            self._images(source)
        if any(pk in source.items for pk in self.item_pks):
            relative = self._items(source)
            images = ("image",) if source.options.images else ()
            configs.append(Config("items", {"train": relative}, ITEMS_WITH_IMAGES if images else ITEMS,
                                  images=images))
        configs += self._compared(source)
        if self.uploads:
            relative, schema = self._table("data/uploads.parquet", arrow_table(self._uploads(source)))
            configs.append(Config("uploads", {"train": relative}, schema))
        raw_rows = sum(n for (t, _), n in self.rows.items() if t == RAW)
        self.noted = gold_notes(source)
        card = self.folder / CARD
        card.write_text(card_text(sheet=source.datasheet, configs=configs, license=source.options.license,
                                  rows=raw_rows, missing=self.noted["not_computed"], folder=self.origin.folder,
                                  withheld=self.noted["dawid_skene_withheld"], release=self.origin.release),
                        encoding="utf-8")
        self.extra.insert(0, WrittenFile(CARD, card, 0))  # the card first after the raw files
        self._croissant(source, configs)

    def _croissant(self, source: StudySource, configs: list[Config]) -> None:
        """``croissant.json``: the folder's every file described with its hash (taken here, kept for the
        manifest), its configs as record sets, and the responsible-AI facts of the datasheet."""
        listed = []
        for f in self._files():
            source.pulse()
            self.hashes.setdefault(f.name, sha256_of(f.path, source.pulse))
            listed.append({"name": f.name, "bytes": f.path.stat().st_size, "sha256": self.hashes[f.name]})
        release = self.origin.release
        name = str(source.datasheet.get("study") or "Tessera study")
        doc = croissant(sheet=source.datasheet, configs=configs, files=listed, license=source.options.license,
                        release=release, citation=citation_text(name, release) if release else "",
                        folder=self.origin.folder)
        path = self.folder / CROISSANT
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        self.extra.append(WrittenFile(CROISSANT, path, 0))

    def _files(self) -> list[WrittenFile]:
        raw = [WrittenFile(str(self._path(t, s).relative_to(self.folder)), self._path(t, s), n)
               for (t, s), n in sorted(self.rows.items())]
        return [*raw, *self.extra]  # the raw annotations first: the export's rows

    def _items(self, source: StudySource) -> str:
        """``data/items.parquet``: each annotated item, a row group per ``ITEMS_PER_GROUP`` items; with
        the images shipped, each item's image file (copied already) in its ``image`` column."""
        relative = "data/items.parquet"
        path = self.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        embed = source.options.images
        schema = ITEMS_WITH_IMAGES if embed else ITEMS
        items = [item for pk in sorted(self.item_pks) if (item := source.items.get(pk)) is not None]
        with pq.ParquetWriter(path, schema, compression=COMPRESSION) as out:
            for start in range(0, len(items), ITEMS_PER_GROUP):
                source.pulse()
                group = items[start:start + ITEMS_PER_GROUP]
                names = [f"images/{Path(item.name).name}" if item.name else None for item in group]
                columns: dict[str, list[Any]] = {
                    "item_id": [item.item_id for item in group], "prompt": [item.prompt or None for item in group],
                    "country": [item.country or None for item in group],
                    "model": [item.model or None for item in group], "file_name": names,
                    "width": [item.width for item in group], "height": [item.height for item in group],
                    "sha256": [item.sha256 or None for item in group],
                }
                if embed:
                    columns["image"] = [self._image_cell(name) for name in names]
                out.write_table(pa.table(columns, schema=schema))
        self.extra.append(WrittenFile(relative, path, len(items)))
        return relative

    def _compared(self, source: StudySource) -> list[Config]:
        """The ``item_images`` and ``preferences`` configs of a comparison study (``formats.compared``):
        with the images shipped, each image embedded (``datasets.Image``) as in ``items``; the
        preferences split per country."""
        embed = source.options.images
        configs = []
        frame = item_images_frame(source, self.item_pks)
        if len(frame):
            whole = arrow_table(frame, COMPARED_TYPES[ITEM_IMAGES])
            if embed:
                whole = whole.append_column("image", whole.column("file_name"))
            images = ("image",) if embed else ()
            relative, schema = self._embedded(f"data/{ITEM_IMAGES}.parquet", whole, images, source)
            configs.append(Config(ITEM_IMAGES, {"train": relative}, schema, images=images, note=ITEM_IMAGES_NOTE))
        frame = preferences_frame(source)
        if len(frame):
            whole = arrow_table(frame, COMPARED_TYPES[PREFERENCES])
            images = ("chosen", "rejected") if embed else ()
            splits, schema = {}, whole.schema
            for country, rows in frame.groupby(frame["country"].astype(str).to_numpy(), sort=True).indices.items():
                splits[split_name(country)], schema = self._embedded(
                    f"data/{PREFERENCES}/{split_name(country)}.parquet", whole.take(pa.array(rows)), images, source)
            configs.append(Config(PREFERENCES, splits, schema, images=images, note=PREFERENCES_NOTE))
        frame = image_rankings_frame(source)
        if len(frame):
            relative, schema = self._table(f"data/{IMAGE_RANKINGS}.parquet",
                                           arrow_table(frame, COMPARED_TYPES[IMAGE_RANKINGS]))
            configs.append(Config(IMAGE_RANKINGS, {"train": relative}, schema, note=IMAGE_RANKINGS_NOTE))
        return configs

    def _embedded(self, relative: str, table: pa.Table, images: tuple[str, ...], source: StudySource
                  ) -> tuple[str, pa.Schema]:
        """``table`` written to ``relative``, each column of ``images`` (a file's path in the folder)
        as an ``Image`` cell of the copied file, a row group per ``ITEMS_PER_GROUP`` rows."""
        if not images:
            return self._table(relative, table)
        schema = table.schema
        for name in images:
            schema = schema.set(schema.get_field_index(name), pa.field(name, IMAGE))
        path = self.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        with pq.ParquetWriter(path, schema, compression=COMPRESSION) as out:
            for start in range(0, table.num_rows, ITEMS_PER_GROUP):
                source.pulse()
                part = table.slice(start, ITEMS_PER_GROUP)
                for name in images:
                    cells = [self._image_cell(p) for p in part.column(name).to_pylist()]
                    part = part.set_column(part.schema.get_field_index(name), pa.field(name, IMAGE),
                                           pa.array(cells, IMAGE))
                out.write_table(part)
        self.extra.append(WrittenFile(relative, path, table.num_rows))
        return relative, schema

    def _image_cell(self, name: str | None) -> dict[str, Any] | None:
        """An ``Image`` cell: the copied file's bytes and its path in the folder (None: no file)."""
        if name is None or not (self.folder / name).is_file():
            return None
        return {"bytes": (self.folder / name).read_bytes(), "path": name}

    def _uploads(self, source: StudySource) -> pd.DataFrame:
        rows = [(sha, f"images/{source.upload_file(u)}", u.width, u.height) for sha, u in sorted(self.uploads.items())]
        return pd.DataFrame(rows, columns=["sha256", "file_name", "width", "height"], dtype=object)

    def _images(self, source: StudySource) -> None:
        shipped: set[str] = set()
        for pk in sorted(self.item_pks):
            item = source.items.get(pk)
            if item is None or not item.name or item.name in shipped:  # items may share one stored image
                continue
            shipped.add(item.name)
            source.pulse()
            self._copy(f"images/{Path(item.name).name}", source.read_image(pk))
        for pk in sorted(self.item_pks):
            for image in source.item_images.get(pk, ()):
                if image.name and image.name not in shipped:  # one file per stored image, shared or not
                    shipped.add(image.name)
                    source.pulse()
                    self._copy(image.file_name, source.read_file(image.name))
        for sha, upload in sorted(self.uploads.items()):
            source.pulse()
            self._copy(f"images/{source.upload_file(upload)}", source.read_upload(sha))

    def _copy(self, relative: str, blocks: Iterator[bytes]) -> None:
        """An image's bytes to ``relative``; nothing when none were read (no file stored)."""
        path = self.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        size = 0
        with path.open("wb") as out:
            for block in blocks:
                size += out.write(block)
        if not size:
            path.unlink()
            return
        self.extra.append(WrittenFile(relative, path, 0))

    def notes(self):
        return self.noted

    def close(self):
        for writer in self.writers.values():
            writer.close()  # closing twice is harmless
        return [replace(f, sha256=self.hashes.get(f.name, "")) for f in self._files()]


FORMAT = ExportFormat(
    name="hf",
    label="Hugging Face dataset",
    extension="zip",
    description="A folder for datasets.load_dataset: Parquet per config (raw and gold, split per country), "
    "images if you ask, and a README.md dataset card with its datasheet (one ZIP with its manifest).",
    content_type="application/zip",
    opener=HfWriter,
    study_level=True,
    holds="a Hugging Face dataset folder with its card, and manifest.json",
    options=("license", "images"),
    top_folder=True,
)


class CroissantWriter(HfWriter):
    """``croissant``: the hf folder written aside (under ``hf/``) to describe it, and only its
    ``croissant.json`` shipped: the metadata a datasets track asks for beside the data, whose paths
    are the folder's (the same release with the same options is the same files, hashes and all)."""

    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None):
        super().__init__(folder / "hf", tables, protocols, origin)

    def close(self):
        super().close()
        return [WrittenFile(CROISSANT, self.folder / CROISSANT, 0)]


CROISSANT_FORMAT = ExportFormat(
    name="croissant",
    label="Croissant metadata",
    extension="json",
    description="croissant.json alone: the Hugging Face folder's files, fields and types, license, citation and "
    "responsible-AI facts (who annotated, how they were screened, agreement, limitations), for a datasets track.",
    content_type="application/ld+json",
    opener=CroissantWriter,
    study_level=True,
    options=("license", "images"),
    folder_of="hf",
)

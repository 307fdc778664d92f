"""What an export format is: a name, a label, the extension of its files, whether it fits a
protocol, and a writer that takes chunks of annotations and writes them as they come. Pure: no
Django (the service reads the rows and stores the files).

A format writes its tables into a local folder: ``annotations.<ext>``, and ``documents.<ext>`` when
the protocol asks questions per document. ``close`` ends the files and says what was written;
the service hashes them, adds the manifest and moves them to the storage. A study-level format
(gold labels, COCO, a Hugging Face folder) also gets the whole study's ``StudySource`` before it
closes. A writer is opened with the export's ``Origin`` (study, analysis run, data fingerprint),
which a format of one file that can hold it writes inside (Parquet, COCO). A format whose ZIP is a
folder to unpack (``top_folder``: the Hugging Face folder) has every file packed under one folder
named for the export (``manifest.folder_name``), which its ``Origin`` names too.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from typing import Protocol as Interface

from stats.versions import ProtocolSet
from studies.protocol import UploadRef

from ..csv_layout import DocumentInfo
from .table import AnnotationRow, Tables

BLOCK = 1 << 20  # bytes read at a time to hash or pack a file
SLUG_LENGTH = 40  # of the study's name in a folder's name (and a citation's key)
ANNOTATIONS = "annotations"
DOCUMENTS = "documents"


@dataclass(frozen=True)
class ReleaseInfo:
    """The numbered release an export is of (``exports.releases``): the study's gold data as one
    analysis run checked it. The same data checked by the same run is the same release, whatever
    the format or options; the card and ``croissant.json`` cite it."""

    number: int
    created: str  # when the release was first made (UTC, ISO 8601)
    data_fingerprint: str
    analysis_run: int
    previous: int | None = None  # the number of the release before it, None for the first
    changes: tuple[str, ...] = ()  # what changed since ``previous``, a sentence each

    @property
    def version(self) -> str:
        """As a version the Hub and Croissant read: ``<number>.0.0``."""
        return f"{self.number}.0.0"


@dataclass(frozen=True)
class Origin:
    """Where an export comes from, as its manifest says: the study, the analysis run it was gated
    on, the data that run saw, when it was made (UTC, ISO 8601). A format of one file carries it
    inside too (Parquet's key-value metadata, COCO's ``info``), so the file names its run alone."""

    study: int = 0
    analysis_run: int = 0
    data_fingerprint: str = ""
    created: str = ""
    folder: str = ""  # the ZIP's top folder, for a format that has one (``ExportFormat.top_folder``)
    release: ReleaseInfo | None = None  # the release it is of (none: an export outside the service)

    def metadata(self) -> dict[str, str]:
        """As key-value metadata (Parquet's), every key under ``tessera.`` (the release's number when
        there is one)."""
        release = {"tessera.release": str(self.release.number)} if self.release else {}
        return {"tessera.study": str(self.study), "tessera.analysis_run": str(self.analysis_run),
                "tessera.data_fingerprint": self.data_fingerprint, "tessera.created": self.created, **release}


def quiet() -> None:
    """No heartbeat (an export written outside a job)."""


def sha256_of(path: Path, on_block: Callable[[], None] = quiet) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(BLOCK):
            on_block()
            digest.update(block)
    return digest.hexdigest()


def name_slug(name: str) -> str:
    """``name`` as ASCII letters, digits and hyphens (accents dropped, at most ``SLUG_LENGTH``), or "study"."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug[:SLUG_LENGTH].rstrip("-") or "study"


def utc_text(moment: datetime) -> str:
    """``moment`` in UTC, ISO 8601 to the second, with a ``Z``."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class WrittenFile:
    """One file of an export: its name in the export, where it was written, its data rows."""

    name: str
    path: Path
    rows: int
    sha256: str = ""  # its hash when the format took it already (``croissant.json`` lists it), else the manifest's


class TableWriter(Interface):
    """A format's writer over one export, opened on a folder."""

    def write(self, rows: Sequence[AnnotationRow], documents: Mapping[int, DocumentInfo]) -> None:
        """Write a chunk of annotations (``documents``: their items' documents, by id)."""

    def close(self) -> list[WrittenFile]:
        """End every file; the annotations' file first."""


LICENSES = ("cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "other")  # what a dataset card may declare


@dataclass(frozen=True)
class ExportOptions:
    """What the researcher chose beside the format: the dataset card's license, images shipped or not."""

    license: str = LICENSES[0]
    images: bool = False

    def __post_init__(self) -> None:
        if self.license not in LICENSES:
            raise ValueError(f"license must be one of {', '.join(LICENSES)}")

    @classmethod
    def read(cls, data: Mapping[str, Any] | None) -> ExportOptions:
        data = data or {}
        return cls(license=str(data.get("license") or LICENSES[0]), images=bool(data.get("images")))

    def as_dict(self) -> dict[str, Any]:
        return {"license": self.license, "images": self.images}


@dataclass(frozen=True)
class ItemImage:
    """An item as an export names it: the researcher's id, its image's file and size (None: no
    image), and what the item says of itself: its prompt, country and the model that made it
    (empty when the import gave none)."""

    item_id: str
    name: str
    width: int | None
    height: int | None
    sha256: str = ""
    prompt: str = ""
    country: str = ""
    model: str = ""


@dataclass(frozen=True)
class ComparedImage:
    """One of an item's several images (a comparison's), as an export names it: its place in the
    item (what answers name: "1"…"8"), its stored file (``images/<file>`` in the hf folder, one
    file per stored image however many items show it), size, hash, and the model that made it
    with its seed and parameters as the researcher gave them."""

    position: int
    name: str
    width: int
    height: int
    sha256: str
    model: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return f"images/{Path(self.name).name}"


def upload_file(sha256: str, suffix: str) -> str:
    """An annotator's uploaded image as an export names it: ``uploads/<sha256><suffix>`` (COCO's
    ``file_name``; under ``images/`` in the hf folder), so two photos given the same file name
    never collide, and one photo uploaded twice is one file."""
    return f"uploads/{sha256}{suffix}"


@dataclass(frozen=True)
class StudySource:
    """What a study-level format reads beside the streamed annotations, made by the service
    (``exports.sources``) only for such formats: the gold tables (``stats.gold.StudyGold``), the
    items' images by item id (and a comparison's several images, ``item_images``, with the majority's
    ``preferences`` between them), the datasheet's facts (plain JSON-able data), the options, a reader
    of an image's bytes in chunks (``read_image(item_pk)``; empty when it has none), the stored
    suffix of each upload of the study by sha256 (``uploads``) and a reader of its bytes
    (``read_upload(sha256)``; empty when none is stored), and the job's heartbeat (``pulse()``:
    a writer calls it per table and per image; it renews the lease and raises when the job was
    cancelled)."""

    gold: Any
    items: Mapping[int, ItemImage]
    datasheet: Mapping[str, Any]
    options: ExportOptions = field(default_factory=ExportOptions)
    read_image: Callable[[int], Iterator[bytes]] = lambda pk: iter(())
    uploads: Mapping[str, str] = field(default_factory=dict)
    read_upload: Callable[[str], Iterator[bytes]] = lambda sha256: iter(())
    pulse: Callable[[], None] = lambda: None  # the job's heartbeat: called per table and image; raises to stop
    rankings: Any = None  # the models ranked per country (``exports.sources.model_rankings``), a frame, or None
    item_images: Mapping[int, tuple[ComparedImage, ...]] = field(default_factory=dict)  # by item pk
    # per comparison field's key, the majority's preferences between images (``exports.comparisons``)
    preferences: Mapping[str, Any] = field(default_factory=dict)
    image_rankings: Mapping[str, Any] = field(default_factory=dict)  # per such field, ``SetScore``s
    read_file: Callable[[str], Iterator[bytes]] = lambda name: iter(())  # a compared image's bytes by stored name

    def upload_file(self, upload: UploadRef) -> str:
        """``upload_file`` of an answer's upload: its stored suffix (the format Pillow found), else
        the suffix of the file name the annotator gave."""
        return upload_file(upload.sha256, self.uploads.get(upload.sha256) or Path(upload.name).suffix.lower())


class StudyWriter(TableWriter, Interface):
    """A study-level format's writer: given the study's ``StudySource`` once every chunk is written,
    before ``close``."""

    def study(self, source: StudySource) -> None:
        """Write what needs the whole study (gold tables, a card, images)."""

    def notes(self) -> dict[str, Any]:
        """What ``manifest.json`` says beside the files (e.g. the paper tables not computed, and why)."""


def fits_any(protocols: ProtocolSet) -> bool:
    """Raw annotations fit every protocol."""
    return True


@dataclass(frozen=True)
class ExportFormat:
    name: str  # what a form posts and ``manage.py export --format`` takes
    label: str  # what the study page shows
    extension: str  # of each table's file
    description: str
    content_type: str
    opener: Callable[[Path, Tables, ProtocolSet, Origin], TableWriter]
    fits: Callable[[ProtocolSet], bool] = fits_any
    study_level: bool = False  # its writer is a ``StudyWriter``: the service makes a ``StudySource``
    holds: str = "annotations, documents and manifest.json"  # what its ZIP holds, when it is one (the page says)
    options: tuple[str, ...] = ()  # the ``ExportOptions`` it reads ("license", "images"), for the page
    top_folder: bool = False  # its ZIP holds one folder named for the export (``manifest.folder_name``)
    folder_of: str = ""  # the folder format it describes, whose folder its origin names (croissant: hf's)
    streams_rows: bool = True  # its writer takes the annotations' chunks (gold: no, they are only counted)

    def open(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None) -> TableWriter:
        return self.opener(folder, tables, protocols, origin or Origin())

    def file_name(self, table: str) -> str:
        return f"{table}.{self.extension}"

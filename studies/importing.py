"""Import items into a study: rows from a CSV or JSONL file, images from a folder or a .zip.

Every row and every image is checked first and every problem is reported with its line; only a
clean file is written, in one transaction, so a refused file leaves nothing behind (neither rows
nor stored images). Images are read one row at a time, never the whole set at once.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import warnings
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from PIL import Image, UnidentifiedImageError

from .models import Item, Study
from .services import quotas_for_items

REQUIRED = ("id", "image", "country")
KNOWN = ("id", "prompt", "image", "country", "model", "category", "is_example", "metadata")
FORMATS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp", "GIF": ".gif"}
FORMAT_NAMES = "JPEG, PNG, WebP, GIF"
MAX_CHARS = {"id": 200, "model": 200, "category": 200}
FLAGS = {"": False, "0": False, "false": False, "no": False, "1": True, "true": True, "yes": True}
BATCH = 500


class ItemImportError(Exception):
    """A file that was not imported; ``errors`` lists every problem, each naming its line."""

    def __init__(self, errors: list[str]):
        super().__init__(f"nothing imported, {len(errors)} problem(s): " + "; ".join(errors[:5]))
        self.errors = errors


@dataclass(frozen=True)
class ImportReport:
    per_country: dict[str, int]
    examples: int = 0

    @property
    def created(self) -> int:
        return sum(self.per_country.values())

    def summary(self) -> str:
        counts = ", ".join(f"{c}: {n}" for c, n in sorted(self.per_country.items()))
        extra = f", {self.examples} of them mock-test examples" if self.examples else ""
        return f"Imported {self.created} items ({counts}){extra}"


@dataclass
class Row:
    line: int
    external_id: str
    image: str
    country: str
    prompt: str = ""
    model_name: str = ""
    category: str = ""
    is_example: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    sha256: str = ""
    width: int = 0
    height: int = 0
    suffix: str = ""


class RowProblem(Exception):
    """One reason a row cannot be imported."""


# --- reading rows (no Django) ------------------------------------------------------------------


def read_rows(path: Path) -> Iterator[tuple[int, dict | str]]:
    """Yield (line, raw row) or (line, problem) for every row of a .csv or .jsonl file."""
    readers = {".csv": _csv_rows, ".jsonl": _jsonl_rows, ".ndjson": _jsonl_rows}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        yield 0, f"{path.name}: use a .csv or .jsonl file"
        return
    if not path.is_file():
        yield 0, f"{path}: no such file"
        return
    try:
        yield from reader(path)
    except UnicodeDecodeError:
        yield 0, f"{path.name} is not UTF-8 text"
    except csv.Error as exc:
        yield 0, f"{path.name} is not a readable CSV file ({exc})"


def _csv_rows(path: Path) -> Iterator[tuple[int, dict | str]]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = [name.strip() for name in reader.fieldnames or []]
        missing = [name for name in REQUIRED if name not in header]
        if missing:
            yield 1, f"missing required column(s): {', '.join(missing)}"
            return
        reader.fieldnames = header
        for raw in reader:
            if None in raw:
                yield reader.line_num, "more values than there are columns"
                continue
            yield reader.line_num, {key: value or "" for key, value in raw.items() if key}


def _jsonl_rows(path: Path) -> Iterator[tuple[int, dict | str]]:
    with path.open(encoding="utf-8-sig") as fh:
        for line, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                raw = json.loads(text)
            except json.JSONDecodeError as exc:
                yield line, f"not valid JSON ({exc.msg}, column {exc.colno})"
                continue
            yield (line, raw) if isinstance(raw, dict) else (line, "not a JSON object")


def parse_row(line: int, raw: dict) -> tuple[Row, list[str]]:
    """The typed row and the problems of its fields (a row with problems is never imported)."""
    problems: list[str] = []
    values = {key: _text(raw, key, problems) for key in ("id", "image", "country", "prompt", "model", "category")}
    for key in REQUIRED:
        if not values[key]:
            problems.append(f"'{key}' is missing or empty")
    for key, limit in MAX_CHARS.items():
        if len(values[key]) > limit:
            problems.append(f"'{key}' is longer than {limit} characters")
    country = values["country"].upper()
    if country and not (len(country) == 2 and country.isascii() and country.isalpha()):
        problems.append(f"country {values['country']!r} is not a two-letter ISO code")
    row = Row(
        line=line,
        external_id=values["id"],
        image=values["image"],
        country=country,
        prompt=values["prompt"],
        model_name=values["model"],
        category=values["category"],
        is_example=_flag(raw.get("is_example"), problems),
        metadata=_metadata(raw, problems),
    )
    return row, problems


def _text(raw: dict, key: str, problems: list[str]) -> str:
    value = raw.get(key)
    if value is None:
        return ""
    if isinstance(value, (dict, list, bool)):
        problems.append(f"'{key}' must be text")
        return ""
    return str(value).strip()


def _flag(value: Any, problems: list[str]) -> bool:
    if isinstance(value, bool):
        return value
    token = "" if value is None else str(value).strip().lower()
    if token not in FLAGS:
        problems.append(f"'is_example' must be true or false, not {value!r}")
        return False
    return FLAGS[token]


def _metadata(raw: dict, problems: list[str]) -> dict[str, Any]:
    extra = {key: value for key, value in raw.items() if key not in KNOWN}
    given = raw.get("metadata")
    if isinstance(given, str) and given.strip():
        try:
            given = json.loads(given)
        except json.JSONDecodeError:
            given = None
    if given in (None, ""):
        return extra
    if not isinstance(given, dict):
        problems.append("'metadata' must be a JSON object")
        return extra
    return {**extra, **given}


# --- reading images (no Django) ----------------------------------------------------------------


def safe_name(name: str) -> str:
    """The image's path inside the images folder; refuses absolute paths and '..'."""
    if "\\" in name or "\0" in name or name.startswith("/") or name[1:2] == ":":
        raise RowProblem(f"image path {name!r} must be relative, with forward slashes")
    path = PurePosixPath(name)
    if ".." in path.parts:
        raise RowProblem(f"image path {name!r} must not leave the images folder")
    return str(path)


def _too_big(name: str, size: int | None, limit: int) -> RowProblem:
    size_text = f"{size:,} bytes" if size is not None else "larger"
    return RowProblem(f"image {name!r} is {size_text}, more than the limit of {limit:,} bytes")


class FolderImages:
    def __init__(self, root: Path):
        self.root = root.resolve()

    def read(self, name: str, max_bytes: int) -> bytes:
        path = (self.root / safe_name(name)).resolve()
        if not path.is_relative_to(self.root):
            raise RowProblem(f"image path {name!r} must not leave the images folder")
        if not path.is_file():
            raise RowProblem(f"image file {name!r} not found")
        if path.stat().st_size > max_bytes:
            raise _too_big(name, path.stat().st_size, max_bytes)
        with path.open("rb") as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise _too_big(name, None, max_bytes)
        return data


class ZipImages:
    def __init__(self, archive: zipfile.ZipFile):
        self.archive = archive

    def read(self, name: str, max_bytes: int) -> bytes:
        try:
            info = self.archive.getinfo(safe_name(name))
        except KeyError:
            raise RowProblem(f"image file {name!r} not found in the zip") from None
        if info.is_dir():
            raise RowProblem(f"image file {name!r} not found in the zip")
        if info.file_size > max_bytes:
            raise _too_big(name, info.file_size, max_bytes)
        try:
            with self.archive.open(info) as fh:  # read at most the limit: headers may lie
                data = fh.read(max_bytes + 1)
        except (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, OSError) as exc:
            raise RowProblem(f"image {name!r} could not be read from the zip ({exc})") from None
        if len(data) > max_bytes:
            raise _too_big(name, None, max_bytes)
        return data


ImageSource = FolderImages | ZipImages


@contextmanager
def images_source(path: Path) -> Iterator[ImageSource]:
    if path.is_dir():
        yield FolderImages(path)
    elif path.is_file() and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            yield ZipImages(archive)
    else:
        raise ItemImportError([f"images: {path} is neither a folder nor a .zip file"])


def inspect_image(name: str, data: bytes, *, max_pixels: int) -> tuple[str, int, int, str]:
    """(sha256, width, height, file suffix) of a real image in an allowed format, else RowProblem."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=list(FORMATS)) as im:
                kind, (width, height) = im.format, im.size
                if width * height > max_pixels:
                    raise RowProblem(
                        f"image {name!r} is {width}x{height} = {width * height:,} pixels, "
                        f"more than the limit of {max_pixels:,}"
                    )
                im.verify()
            with Image.open(io.BytesIO(data), formats=list(FORMATS)) as im:
                im.load()  # decodes the pixels: catches truncated files that verify() lets through
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise RowProblem(f"image {name!r} has too many pixels (decompression bomb?)") from None
    except UnidentifiedImageError:
        raise RowProblem(f"{name!r} is not an image in an allowed format ({FORMAT_NAMES})") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise RowProblem(f"image {name!r} is damaged or truncated ({exc})") from None
    return hashlib.sha256(data).hexdigest(), width, height, FORMATS[kind]


# --- the service -------------------------------------------------------------------------------


def items_import(*, study: Study, rows_file: Path, images: Path) -> ImportReport:
    """Import every row of ``rows_file`` or none; raise ItemImportError listing all problems."""
    rows_file, images = Path(rows_file), Path(images)
    with images_source(images) as source:
        rows, problems = _checked_rows(study=study, rows_file=rows_file, source=source)
        if not problems and not rows:
            problems = [(0, f"{rows_file.name} has no rows")]
        if problems:
            raise ItemImportError([_message(line, text) for line, text in sorted(problems, key=lambda p: p[0])])
        _write(study=study, rows=rows, source=source)
    per_country = Counter(row.country for row in rows)
    return ImportReport(per_country=dict(per_country), examples=sum(row.is_example for row in rows))


def _message(line: int, text: str) -> str:
    return f"line {line}: {text}" if line else text


def _checked_rows(*, study: Study, rows_file: Path, source: ImageSource) -> tuple[list[Row], list[tuple[int, str]]]:
    pools = sorted(study.pools.values_list("country", flat=True))
    rows: list[Row] = []
    problems: list[tuple[int, str]] = []
    ids: dict[str, int] = {}
    shas: dict[str, int] = {}
    for line, raw in read_rows(rows_file):
        if isinstance(raw, str):
            problems.append((line, raw))
            continue
        row, row_problems = parse_row(line, raw)
        row_problems += _row_in_file_problems(row, pools=pools, ids=ids)
        row_problems += _image_problems(row, source=source, shas=shas)
        problems += [(line, text) for text in row_problems]
        rows.append(row)
    problems += _already_in_study(study=study, rows=rows)
    return rows, problems


def _row_in_file_problems(row: Row, *, pools: list[str], ids: dict[str, int]) -> list[str]:
    problems = []
    if row.country and row.country not in pools:
        problems.append(f"country {row.country!r} has no pool in this study (pools: {', '.join(pools) or 'none'})")
    if row.external_id in ids:
        problems.append(f"duplicate id {row.external_id!r} (already on line {ids[row.external_id]})")
    elif row.external_id:
        ids[row.external_id] = row.line
    return problems


def _image_problems(row: Row, *, source: ImageSource, shas: dict[str, int]) -> list[str]:
    if not row.image:
        return []
    try:
        data = source.read(row.image, settings.IMAGE_MAX_BYTES)
        row.sha256, row.width, row.height, row.suffix = inspect_image(
            row.image, data, max_pixels=settings.IMAGE_MAX_PIXELS
        )
    except RowProblem as exc:
        return [str(exc)]
    if row.sha256 in shas:
        return [f"image {row.image!r} is the same image as on line {shas[row.sha256]}"]
    shas[row.sha256] = row.line
    return []


def _already_in_study(*, study: Study, rows: Sequence[Row]) -> list[tuple[int, str]]:
    problems = []
    for batch in _batches(rows):
        by_id = {row.external_id: row for row in batch if row.external_id}
        for ext in Item.objects.filter(study=study, external_id__in=by_id).values_list("external_id", flat=True):
            problems.append((by_id[ext].line, f"id {ext!r} is already in this study"))
        by_sha = {row.sha256: row for row in batch if row.sha256}
        for sha, ext in Item.objects.filter(study=study, sha256__in=by_sha).values_list("sha256", "external_id"):
            row = by_sha[sha]
            problems.append((row.line, f"image {row.image!r} is already in this study (item {ext!r})"))
    return problems


def _batches(rows: Sequence[Row]) -> Iterator[Sequence[Row]]:
    for start in range(0, len(rows), BATCH):
        yield rows[start : start + BATCH]


def _write(*, study: Study, rows: list[Row], source: ImageSource) -> None:
    """Store the images and create the items and their quotas; on failure, delete stored files."""
    image_field = Item._meta.get_field("image")
    stored: list[str] = []
    try:
        with transaction.atomic():
            for batch in _batches(rows):
                items = [_item_with_image(study, row, source, image_field, stored) for row in batch]
                Item.objects.bulk_create(items)
                quotas_for_items(items=items)
    except BaseException as exc:
        for name in stored:
            with suppress(Exception):  # cleanup must not hide the error that caused it
                image_field.storage.delete(name)
        if isinstance(exc, IntegrityError):  # a concurrent import added the same id or image
            raise ItemImportError([f"an item of this file was added to the study meanwhile ({exc})"]) from exc
        raise


def _item_with_image(study: Study, row: Row, source: ImageSource, image_field, stored: list[str]) -> Item:
    data = source.read(row.image, settings.IMAGE_MAX_BYTES)
    if hashlib.sha256(data).hexdigest() != row.sha256:
        raise ItemImportError([_message(row.line, f"image {row.image!r} changed during the import")])
    item = Item(
        study=study,
        external_id=row.external_id,
        country=row.country,
        prompt=row.prompt,
        model_name=row.model_name,
        category=row.category,
        metadata=row.metadata,
        is_example=row.is_example,
        width=row.width,
        height=row.height,
        sha256=row.sha256,
    )
    # Saved through the field's storage and upload_to; assigning the name directly (rather than
    # FieldFile.save) spares a re-read of the stored file to measure dimensions we already know.
    name = image_field.generate_filename(item, f"{row.sha256}{row.suffix}")
    item.image.name = image_field.storage.save(name, ContentFile(data), max_length=image_field.max_length)
    stored.append(item.image.name)
    return item

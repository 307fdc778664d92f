"""items_import: check every row against the study, then write all of them or none."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, default_storage
from django.db import IntegrityError, transaction

from ..derivatives import derivatives_queue
from ..models import Document, Item, ItemImage, Study, study_files_prefix
from ..services import quotas_for_items
from .images import images_source, inspect_image
from .rows import ItemImportError, ItemNeeds, Row, RowProblem, item_needs, parse_row, read_rows
from .stored import StoredImages, WithStored

BATCH = 500
PROGRESS_EVERY = 200

Progress = Callable[[int], None]


def _no_progress(percent: int) -> None:
    pass


@dataclass(frozen=True)
class ImportReport:
    per_country: dict[str, int]
    examples: int = 0
    documents: int = 0

    @property
    def created(self) -> int:
        return sum(self.per_country.values())

    def summary(self) -> str:
        counts = ", ".join(f"{c}: {n}" for c, n in sorted(self.per_country.items()))
        extra = f", {self.examples} of them practice-test examples" if self.examples else ""
        docs = f", with {self.documents} documents" if self.documents else ""
        return f"Imported {self.created} items ({counts}){extra}{docs}"


def items_import(
    *, study: Study, rows_file: Path, images: Path | None = None, progress: Progress = _no_progress
) -> ImportReport:
    """Import every row of ``rows_file`` or none; raise ItemImportError listing all problems.

    ``images`` (a folder or a .zip) may be left out when no row names an image, which the study's
    protocol allows when it neither shows the item's image nor has a box drawn on it, or when the
    rows name images already on the site's storage, in the study's import folder (a path such as
    ``imports/<study id>/a.png``, a URL under the storage's public base, or ``s3://bucket/key``;
    see ``stored_images``). ``progress`` is told the percent done: checking the rows is the first
    half, writing them the second. The command line and the browser's import job both come here,
    so a file is judged the same way.
    """
    rows_file, images = Path(rows_file), Path(images) if images is not None else None
    with images_source(images) as members:
        source = WithStored(members, stored_images(study=study))
        rows, problems = _checked_rows(study=study, rows_file=rows_file, source=source, progress=progress)
        if not problems and not rows:
            problems = [(0, f"{rows_file.name} has no rows")]
        if problems:
            raise ItemImportError([_message(line, text) for line, text in sorted(problems, key=lambda p: p[0])])
        _write(study=study, rows=rows, source=source, progress=progress)
    if any(row.image or row.images for row in rows):
        derivatives_queue(study_id=study.pk)
    return ImportReport(
        per_country=dict(Counter(row.country for row in rows)),
        examples=sum(row.is_example for row in rows),
        documents=sum(len(row.documents) for row in rows),
    )


def stored_images(*, study: Study, storage: Storage | None = None) -> StoredImages:
    """The site's storage as the study's import reads it: only its import folder, named by a key,
    by a URL under the storage's public base (``MEDIA_URL`` on this site for files on disk; the
    bucket's address for S3) or by ``s3://<the bucket>/key``. No URL is ever fetched."""
    storage = storage or default_storage
    bases = []
    try:
        probe = "tessera-probe"
        url = storage.url(probe).split("?", 1)[0]
        if url.endswith(probe):
            bases.append(url[: -len(probe)])
    except Exception:  # noqa: BLE001 - a storage that cannot spell a URL is read by key only
        pass
    bucket = getattr(storage, "bucket_name", None) or None
    if bucket:
        bases.append(f"https://{bucket}.s3.amazonaws.com/")
    site = urlsplit(settings.SITE_URL).hostname
    return StoredImages(
        storage=storage,
        folder=study_files_prefix(study.pk, "imports"),
        bases=bases,
        hosts=[site.lower()] if site else [],
        bucket=bucket,
    )


def _message(line: int, text: str) -> str:
    return f"line {line}: {text}" if line else text


def _line_count(path: Path) -> int:
    """Lines of the file, counted in 1 MiB blocks (the file is never held whole)."""
    if not path.is_file():
        return 0
    with path.open("rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b"")) or 1


def _checked_rows(
    *, study: Study, rows_file: Path, source: WithStored, progress: Progress
) -> tuple[list[Row], list[tuple[int, str]]]:
    needs: ItemNeeds = item_needs(study.spec)
    pools = sorted(study.pools.values_list("country", flat=True)) if study.by_country else None
    rows: list[Row] = []
    problems: list[tuple[int, str]] = []
    ids: dict[str, int] = {}
    shas: dict[str, int] = {}
    lines = _line_count(rows_file)
    for count, (line, raw) in enumerate(read_rows(rows_file, required=needs.required_columns), start=1):
        if count % PROGRESS_EVERY == 0:
            progress(min(50, 50 * line // lines))
        if isinstance(raw, str):
            problems.append((line, raw))
            continue
        row, row_problems = parse_row(line, raw, needs=needs)
        row_problems += _row_in_file_problems(row, pools=pools, ids=ids)
        row_problems += _image_problems(row, source=source, shas=shas)
        problems += [(line, text) for text in row_problems]
        rows.append(row)
    problems += _already_in_study(study=study, rows=rows)
    return rows, problems


def _row_in_file_problems(row: Row, *, pools: list[str] | None, ids: dict[str, int]) -> list[str]:
    """``pools`` is None when items go to every pool: the country is then where the item comes from."""
    problems = []
    if pools is not None and row.country and row.country not in pools:
        problems.append(f"country {row.country!r} has no pool in this study (pools: {', '.join(pools) or 'none'})")
    if row.external_id in ids:
        problems.append(f"duplicate id {row.external_id!r} (already on line {ids[row.external_id]})")
    elif row.external_id:
        ids[row.external_id] = row.line
    return problems


def _image_problems(row: Row, *, source: WithStored, shas: dict[str, int]) -> list[str]:
    several = _images_problems(row, source=source) if row.images else []
    if not row.image:
        return several
    try:
        data = source.read(row.image, settings.IMAGE_MAX_BYTES)
        row.sha256, row.width, row.height, row.suffix = inspect_image(
            row.image, data, max_pixels=settings.IMAGE_MAX_PIXELS
        )
    except RowProblem as exc:
        return [str(exc), *several]
    if row.sha256 in shas:
        return [f"image {row.image!r} is the same image as on line {shas[row.sha256]}", *several]
    shas[row.sha256] = row.line
    return several


def _images_problems(row: Row, *, source: WithStored) -> list[str]:
    """Each of a comparison's images read and checked; one image twice in an item is refused (the
    same image in several items is a design's pairs, and allowed)."""
    problems, seen = [], {}
    for n, image in enumerate(row.images, start=1):
        try:
            data = source.read(image.path, settings.IMAGE_MAX_BYTES)
            image.sha256, image.width, image.height, image.suffix = inspect_image(
                image.path, data, max_pixels=settings.IMAGE_MAX_PIXELS
            )
        except RowProblem as exc:
            problems.append(f"image {n}: {exc}")
            continue
        if image.sha256 in seen:
            problems.append(f"image {n} is the same image as image {seen[image.sha256]}")
        seen.setdefault(image.sha256, n)
    return problems


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


def _write(*, study: Study, rows: list[Row], source: WithStored, progress: Progress) -> None:
    """Store the images and create the items, their documents and quotas; on failure, delete
    the stored files."""
    image_field = Item._meta.get_field("image")
    stored: list[str] = []
    names: dict[str, str] = {}  # a comparison's image in several items is stored once
    try:
        with transaction.atomic():
            for done, batch in enumerate(_batches(rows)):
                progress(50 + 50 * done * BATCH // len(rows))
                items = [_item(study, row, source, image_field, stored) for row in batch]
                Item.objects.bulk_create(items)
                Document.objects.bulk_create(
                    [
                        Document(item=item, position=position, **document)
                        for item, row in zip(items, batch)
                        for position, document in enumerate(row.documents, start=1)
                    ],
                    batch_size=1000,
                )
                ItemImage.objects.bulk_create(
                    [
                        _item_image(item, position, image, source, stored, names)
                        for item, row in zip(items, batch)
                        for position, image in enumerate(row.images, start=1)
                    ],
                    batch_size=1000,
                )
                quotas_for_items(items=items)
    except BaseException as exc:
        for name in stored:
            with suppress(Exception):  # cleanup must not hide the error that caused it
                image_field.storage.delete(name)
        if isinstance(exc, IntegrityError):  # a concurrent import added the same id or image
            raise ItemImportError([f"an item of this file was added to the study meanwhile ({exc})"]) from exc
        raise


def _item_image(item: Item, position: int, image, source: WithStored, stored: list[str],
                names: dict[str, str]) -> ItemImage:
    row_image = ItemImage(item=item, position=position, width=image.width, height=image.height,
                          sha256=image.sha256, model_name=image.model, params=image.params)
    if image.sha256 not in names:
        data = source.read(image.path, settings.IMAGE_MAX_BYTES)
        if hashlib.sha256(data).hexdigest() != image.sha256:
            raise ItemImportError([f"image {image.path!r} changed during the import"])
        field = ItemImage._meta.get_field("image")
        name = field.generate_filename(row_image, f"{image.sha256}{image.suffix}")
        names[image.sha256] = field.storage.save(name, ContentFile(data), max_length=field.max_length)
        stored.append(names[image.sha256])
    row_image.image.name = names[image.sha256]
    return row_image


def _item(study: Study, row: Row, source: WithStored, image_field, stored: list[str]) -> Item:
    item = Item(
        study=study,
        external_id=row.external_id,
        country=row.country,
        prompt=row.prompt,
        caption=row.caption,
        texts=row.texts,
        candidates=row.candidates,
        author_pid=row.author_pid,
        model_name=row.model_name,
        category=row.category,
        metadata=row.metadata,
        is_example=row.is_example,
        width=row.width,
        height=row.height,
        sha256=row.sha256,
    )
    if row.image:
        data = source.read(row.image, settings.IMAGE_MAX_BYTES)
        if hashlib.sha256(data).hexdigest() != row.sha256:
            raise ItemImportError([_message(row.line, f"image {row.image!r} changed during the import")])
        # Saved through the field's storage and upload_to; assigning the name directly (rather than
        # FieldFile.save) spares a re-read of the stored file to measure dimensions we already know.
        name = image_field.generate_filename(item, f"{row.sha256}{row.suffix}")
        item.image.name = image_field.storage.save(name, ContentFile(data), max_length=image_field.max_length)
        stored.append(item.image.name)
    return item

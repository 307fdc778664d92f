"""Lighter copies of item images for small screens: WebP at a few widths narrower than the original
(never wider), made once per stored image file after an import commits, in the background, and
recorded on the rows that show it (``Item.derived_widths``, ``ItemImage.derived_widths``: the widths
made; None while not made yet). The original stays as it is, for zoom, the box tool's coordinates,
exports and the checker; a page offers a derivative only when its row records it, and a missing
file is answered with the original (``annotation.views.items``)."""

from __future__ import annotations

import io
import logging
import threading
from collections import defaultdict
from collections.abc import Iterable

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import close_old_connections, connection, transaction
from PIL import Image, ImageOps

from .models import Item, ItemImage

WIDTHS = (640, 1280, 2048)
QUALITY = 80

log = logging.getLogger(__name__)


def derivative_widths(width: int | None) -> list[int]:
    """The derivative widths an image ``width`` pixels wide gets: only narrower ones."""
    return [w for w in WIDTHS if width and w < width]


def derivative_name(name: str, width: int) -> str:
    """A derivative's stored name: the original's (its folder, sha256 and random part) with the
    width, so an image stored once for several items is derived once, and its name is no easier to
    guess than the original's."""
    folder, _, base = name.rpartition("/")
    stem = base.rsplit(".", 1)[0] if "." in base else base
    return f"{folder}/{stem}.w{width}.webp" if folder else f"{stem}.w{width}.webp"


def webp_copies(data: bytes, widths: Iterable[int]) -> dict[int, bytes]:
    """The image ``data`` as WebP at each of ``widths`` (EXIF orientation applied), pure Pillow."""
    copies = {}
    with Image.open(io.BytesIO(data)) as opened:
        im = ImageOps.exif_transpose(opened)
        im = im.convert("RGBA" if im.mode in ("RGBA", "LA", "P") and _has_alpha(im) else "RGB")
        for width in widths:
            if width >= im.width:
                continue
            height = max(1, round(im.height * width / im.width))
            out = io.BytesIO()
            im.resize((width, height), Image.Resampling.LANCZOS).save(out, "WEBP", quality=QUALITY, method=4)
            copies[width] = out.getvalue()
    return copies


def _has_alpha(im: Image.Image) -> bool:
    return im.mode in ("RGBA", "LA") or (im.mode == "P" and "transparency" in im.info)


def image_derive(name: str, width: int | None) -> list[int]:
    """Make the missing derivatives of the stored image ``name`` and return the widths that exist
    ([] when the original is too narrow, or cannot be read: the page then shows the original)."""
    storage = Item._meta.get_field("image").storage
    wanted = derivative_widths(width)
    missing = [w for w in wanted if not storage.exists(derivative_name(name, w))]
    if missing:
        try:
            with storage.open(name, "rb") as fh:
                copies = webp_copies(fh.read(), missing)
        except Exception as exc:  # noqa: BLE001 - a file gone or damaged since its import: the original is served
            log.warning("no derivatives of %s: %s", name, exc)
            return []
        for w, data in copies.items():
            storage.save(derivative_name(name, w), ContentFile(data))
        return sorted({*wanted} - {*missing} | {*copies})
    return wanted


def derivatives_make(*, study_id: int | None = None) -> int:
    """Make the derivatives every image of the study (every study: None) still lacks, and record
    them; returns how many image files were derived. Idempotent: a row once recorded is not read
    again, and a file already stored is not made again. The records are written by the hundred (one
    UPDATE per list of widths), so a study of small images costs a few statements."""
    done = 0
    for model in (Item, ItemImage):
        rows = model.objects.filter(derived_widths__isnull=True).exclude(image="")
        if study_id is not None:
            rows = rows.filter(**({"study_id": study_id} if model is Item else {"item__study_id": study_id}))
        made: dict[tuple[int, ...], list[str]] = defaultdict(list)
        # read before any is written (SQLite gives a cursor no isolation from the connection's own writes)
        for name, width in list(rows.values_list("image", "width").distinct()):
            made[tuple(image_derive(name, width))].append(name)
            done += 1
            if done % RECORD_EVERY == 0:
                _record(model, made)
        _record(model, made)
    return done


RECORD_EVERY = 200


def _record(model, made: dict[tuple[int, ...], list[str]]) -> None:
    for widths, names in made.items():
        model.objects.filter(image__in=names, derived_widths__isnull=True).update(derived_widths=list(widths))
    made.clear()


def derivatives_queue(*, study_id: int) -> None:
    """Make a study's derivatives after its import commits, out of the import's way: a Celery task
    with a broker; without one, a thread of this process (``IMAGE_DERIVATIVES_BACKGROUND`` off, as in
    the tests: at once)."""
    if not settings.IMAGE_DERIVATIVES_BACKGROUND:
        transaction.on_commit(lambda: derivatives_make(study_id=study_id))
    elif settings.CELERY_TASK_ALWAYS_EAGER:
        transaction.on_commit(lambda: threading.Thread(target=_in_thread, args=(study_id,), daemon=False).start())
    else:
        from .tasks import derivatives_task

        transaction.on_commit(lambda: derivatives_task.delay(study_id))


def _in_thread(study_id: int) -> None:
    close_old_connections()
    try:
        derivatives_make(study_id=study_id)
    except Exception:  # a thread's error is logged; the command makes what is missing
        log.exception("derivatives of study %s", study_id)
    finally:
        connection.close()

"""Reading the images of an import: from a folder or a .zip, checked by Pillow. No Django.
(Images named on the site's own storage are read by ``stored``, and checked here alike.)"""

from __future__ import annotations

import hashlib
import io
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from PIL import Image, UnidentifiedImageError

from .rows import ItemImportError, RowProblem

FORMATS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp", "GIF": ".gif"}
FORMAT_NAMES = "JPEG, PNG, WebP, GIF"


def safe_name(name: str) -> str:
    """The image's path inside the images folder; refuses absolute paths and '..'."""
    if "\\" in name or "\0" in name or name.startswith("/") or name[1:2] == ":":
        raise RowProblem(f"image path {name!r} must be relative, with forward slashes")
    path = PurePosixPath(name)
    if ".." in path.parts:
        raise RowProblem(f"image path {name!r} must not leave the images folder")
    return str(path)


def too_big(name: str, size: int | None, limit: int) -> RowProblem:
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
            raise too_big(name, path.stat().st_size, max_bytes)
        with path.open("rb") as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise too_big(name, None, max_bytes)
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
            raise too_big(name, info.file_size, max_bytes)
        try:
            with self.archive.open(info) as fh:  # read at most the limit: headers may lie
                data = fh.read(max_bytes + 1)
        except (zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError, OSError) as exc:
            raise RowProblem(f"image {name!r} could not be read from the zip ({exc})") from None
        if len(data) > max_bytes:
            raise too_big(name, None, max_bytes)
        return data


class NoImages:
    """The images of a file whose rows name none (a protocol that shows no image)."""

    def read(self, name: str, max_bytes: int) -> bytes:
        raise RowProblem(
            f"image {name!r} is named, but no images folder or .zip was given (--images), "
            "and it is not a file on the site's storage"
        )


ImageSource = FolderImages | ZipImages | NoImages


@contextmanager
def images_source(path: Path | None) -> Iterator[ImageSource]:
    if path is None:
        yield NoImages()
    elif path.is_dir():
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

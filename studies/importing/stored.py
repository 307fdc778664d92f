"""Images an import names on the site's own storage instead of in its zip: a storage path, a URL
under the storage's public base, or ``s3://bucket/key``. No Django: the storage (anything with
``exists``, ``size`` and ``open``, e.g. ``default_storage``) and its public bases are passed in.

Only files in the study's own import folder (``imports/<study id>/``) are read, and only from this
site's storage: a URL of another host or a key of another bucket is refused, and nothing is ever
fetched from the internet (no request is made for a URL; it only names a key of the storage). The
bytes read are checked by the same ``inspect_image`` as a zip's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import SplitResult, unquote, urlsplit

from .images import ImageSource, safe_name, too_big
from .rows import RowProblem

WEB_SCHEMES = ("http", "https")


class Storage(Protocol):
    def exists(self, name: str) -> bool: ...
    def size(self, name: str) -> int: ...
    def open(self, name: str, mode: str = "rb") -> Any: ...


@dataclass(frozen=True)
class StoredImages:
    """The site's storage as an import reads it.

    ``folder``: the study's import folder (a key prefix, e.g. ``imports/3``), the only place read;
    ``bases``: the storage's public bases, absolute (``https://bucket.s3.amazonaws.com/``) or a path
    on the site (``/media/``); ``hosts``: the site's own hosts, for a path base; ``bucket``: the S3
    bucket, when the storage is one."""

    storage: Storage
    folder: str
    bases: Sequence[str] = ()
    hosts: Sequence[str] = ()
    bucket: str | None = None

    def key(self, name: str) -> str | None:
        """The storage key an image name points to, or None for a member of the zip or folder.
        Raises RowProblem for a URL or key this site may not read."""
        if name.lower().startswith("s3://"):
            bucket, _, key = name[5:].partition("/")
            if self.bucket is None or bucket != self.bucket:
                raise RowProblem(
                    f"image {name!r} is in the bucket {bucket!r}, not on this site's storage: images are read only "
                    "from the zip or from the site's own storage"
                )
            return self._in_folder(name, key)
        parts = urlsplit(name)
        if len(parts.scheme) > 1 or parts.netloc:  # a one-letter "scheme" is a Windows drive: a bad path
            return self._in_folder(name, self._url_key(name, parts))
        if name.startswith("/"):  # a path on this site: under the public base, else a bad member path
            found = self._under_base(parts)
            return None if found is None else self._in_folder(name, found)
        root = self.folder.split("/", 1)[0] + "/"
        if name.startswith(root):  # a storage path: never a zip member
            return self._in_folder(name, name)
        return None

    def _under_base(self, parts: SplitResult) -> str | None:
        """The key a URL names under one of the storage's public bases; None when under none."""
        host = (parts.hostname or "").lower()
        for base in self.bases:
            b = urlsplit(base)
            same_host = (b.hostname or "").lower() == host if b.netloc else (not host or host in self.hosts)
            if same_host and parts.path.startswith(b.path):
                return unquote(parts.path[len(b.path):])
        return None

    def _url_key(self, name: str, parts: SplitResult) -> str:
        if parts.scheme and parts.scheme.lower() not in WEB_SCHEMES:
            raise RowProblem(f"image {name!r}: a web address must start with https:// (or s3:// for the bucket)")
        found = self._under_base(parts)
        if found is not None:
            return found
        host = (parts.hostname or "").lower()
        where = f"on {host}" if host else "outside the storage's public address"
        raise RowProblem(
            f"image {name!r} is {where}, not on this site's storage: images are never fetched from other addresses"
        )

    def _in_folder(self, name: str, key: str) -> str:
        key = safe_name(key) if key else key
        if not key.startswith(self.folder + "/"):
            raise RowProblem(
                f"image {name!r} is not in this study's import folder on the site's storage ({self.folder}/)"
            )
        return key

    def read(self, key: str, name: str, max_bytes: int) -> bytes:
        """The stored file's bytes, refused when missing, too large or unreadable."""
        try:
            if not self.storage.exists(key):
                raise RowProblem(f"image {name!r} not found on the site's storage")
            size = self.storage.size(key)
            if size > max_bytes:
                raise too_big(name, size, max_bytes)
            with self.storage.open(key, "rb") as fh:  # read at most the limit
                data = fh.read(max_bytes + 1)
        except RowProblem:
            raise
        except Exception as exc:  # noqa: BLE001 - a storage's errors (OSError, botocore's) refuse the row
            raise RowProblem(f"image {name!r} could not be read from the site's storage ({exc})") from None
        if len(data) > max_bytes:
            raise too_big(name, None, max_bytes)
        return data


class WithStored:
    """An import's images: each row's from the site's storage when its name points there, else
    from the zip or folder (``members``)."""

    def __init__(self, members: ImageSource, stored: StoredImages):
        self.members, self.stored = members, stored

    def read(self, name: str, max_bytes: int) -> bytes:
        key = self.stored.key(name)
        if key is None:
            return self.members.read(name, max_bytes)
        return self.stored.read(key, name, max_bytes)

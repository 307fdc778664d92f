"""Static files in production: whitenoise's storage (hashed names, gzip copies beside them, served
with far-future caching by its middleware), with our own scripts and styles minified on the way in."""

from collections.abc import Callable
from pathlib import PurePosixPath

from django.core.files.base import ContentFile
from rcssmin import cssmin
from rjsmin import jsmin
from whitenoise.storage import CompressedManifestStaticFilesStorage

MINIFIERS: dict[str, Callable[[str], str]] = {".js": jsmin, ".css": cssmin}


def minifier_for(name: str) -> Callable[[str], str] | None:
    """How the static file ``name`` is minified; None for one stored as it is (neither a script nor
    a style, or one shipped minified: ``*.min.js``)."""
    path = PurePosixPath(name)
    return None if path.stem.endswith(".min") else MINIFIERS.get(path.suffix)


class MinifiedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Every copy collectstatic stores (the file, then the copy under its hashed name) is minified
    first, so the hash names the bytes served and whitenoise compresses those."""

    def _save(self, name, content):
        minifier = minifier_for(name)
        if minifier is not None:
            text = b"".join(content.chunks()).decode("utf-8")  # chunks(): from the start, read before or not
            content = ContentFile(minifier(text).encode("utf-8"))
        return super()._save(name, content)

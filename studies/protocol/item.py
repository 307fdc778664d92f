"""What of an item a submission may refer to: its texts, image (or images, for a comparison),
documents, candidates and the annotator's uploads. Built by the caller, so the engine stays pure."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .words import gettext_noop

# Every text an item may carry, by name (a field's ``over``, the display's ``show``, an import
# column), with the label the page gives it. Every item has a prompt and a caption; the others are
# its further named texts.
ITEM_TEXT_LABELS = {
    "prompt": gettext_noop("Prompt"), "caption": gettext_noop("Caption"), "question": gettext_noop("Question"),
    "background": gettext_noop("Background"), "reference": gettext_noop("Reference answers"),
    "answer": gettext_noop("Answer"),
}
ITEM_TEXTS = tuple(ITEM_TEXT_LABELS)
ITEM_FURTHER_TEXTS = tuple(name for name in ITEM_TEXTS if name not in ("prompt", "caption"))
WORD_RE = re.compile(r"\w+(?:['’\-]\w+)*", re.UNICODE)


@dataclass(frozen=True)
class Token:
    index: int
    start: int
    end: int
    text: str


def tokenize(text: str) -> list[Token]:
    """Words of an item text, as the highlight field offers them."""
    return [Token(i, m.start(), m.end(), m.group()) for i, m in enumerate(WORD_RE.finditer(text or ""))]


@dataclass(frozen=True)
class DocumentRef:
    id: int
    title: str


@dataclass(frozen=True)
class CandidateRef:
    id: str
    text: str


@dataclass(frozen=True)
class ImageRef:
    """One of an item's several images (a comparison's): ``id`` names it in answers (its position
    in the item, "1"…"8", whatever order it is shown in), ``model`` is the model that made it."""

    id: str
    model: str = ""
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class UploadRef:
    token: str
    width: int
    height: int
    sha256: str
    name: str


@dataclass(frozen=True)
class ItemContext:
    """What of an item a submission may refer to; built by the caller, so the engine stays pure."""

    texts: Mapping[str, str] = field(default_factory=dict)
    image: tuple[int, int] | None = None
    documents: Sequence[DocumentRef] = ()
    candidates: Sequence[CandidateRef] = ()  # in the order shown to this annotator
    uploads: Mapping[str, UploadRef] = field(default_factory=dict)
    images: Sequence[ImageRef] = ()  # an item's several images, in the order shown to this annotator

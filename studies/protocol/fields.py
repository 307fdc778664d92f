"""One registry of field types: how each is checked in a spec, read from a form, and parsed."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .spec import Field
from .web import web_address

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


class FieldType:
    levels: tuple[str, ...] = ()
    needs_choices = False

    def spec_errors(self, f: Field, earlier: Sequence[Field]) -> list[str]:
        return []

    def raw_from(self, data: Mapping[str, Sequence[Any]], name: str) -> list[Any]:
        """The non-blank raw values posted for the field named ``name``."""
        return [str(v) for v in data.get(name, []) if str(v).strip() != ""]

    def parse(self, f: Field, raw: list[Any], ctx: ItemContext, answers: Mapping[str, Any]) -> Any:
        """The clean value, or ValueError with the message for the annotator."""
        raise NotImplementedError


class ChoiceType(FieldType):
    levels = ("nominal", "ordinal")
    needs_choices = True

    def parse(self, f, raw, ctx, answers):
        if len(raw) != 1 or f.choice_for(raw[0]) is None:
            raise ValueError("Choose one of the options.")
        return f.choice_for(raw[0]).value


class ScaleType(ChoiceType):
    levels = ("ordinal", "interval", "ratio")

    def spec_errors(self, f, earlier):
        if not all(isinstance(c.value, (int, float)) and not isinstance(c.value, bool) for c in f.choices):
            return ["every point of a scale must be a number"]
        return []


class MultiType(FieldType):
    levels = ("nominal",)
    needs_choices = True

    def parse(self, f, raw, ctx, answers):
        chosen = [f.choice_for(token) for token in dict.fromkeys(raw)]
        if None in chosen:
            raise ValueError("Tick only the options shown.")
        if f.min and len(chosen) < f.min:
            raise ValueError(f.required_message or f"Tick at least {f.min}.")
        if f.max and len(chosen) > f.max:
            raise ValueError(f"Tick at most {f.max}.")
        return [c.value for c in chosen]


class HighlightType(FieldType):
    def spec_errors(self, f, earlier):
        from .spec import ITEM_TEXTS

        if f.over not in ITEM_TEXTS:
            return [f"a highlight field needs 'over', the item text it marks (one of {', '.join(ITEM_TEXTS)})"]
        return []

    def parse(self, f, raw, ctx, answers):
        tokens = tokenize(ctx.texts.get(f.over, ""))
        try:
            picked = sorted({int(r) for r in raw})
        except ValueError:
            raise ValueError("Select words of the text shown.") from None
        if any(i < 0 or i >= len(tokens) for i in picked):
            raise ValueError("Select words of the text shown.")
        if f.max and len(picked) > f.max:
            raise ValueError(f"Select at most {f.max} words.")
        return [{"index": t.index, "start": t.start, "end": t.end, "text": t.text} for t in (tokens[i] for i in picked)]


class TextType(FieldType):
    def parse(self, f, raw, ctx, answers):
        text = raw[0].strip()
        words = len(text.split())
        if f.min_chars and len(text) < f.min_chars:
            raise ValueError(f"Write at least {f.min_chars} characters.")
        if f.max_chars and len(text) > f.max_chars:
            raise ValueError(f"Write at most {f.max_chars} characters (you wrote {len(text)}).")
        if f.min_words and words < f.min_words:
            raise ValueError(f"Write at least {f.min_words} word{'s' if f.min_words > 1 else ''}.")
        if f.max_words and words > f.max_words:
            raise ValueError(f"Write at most {f.max_words} word{'s' if f.max_words > 1 else ''} (you wrote {words}).")
        return text


class UrlListType(FieldType):
    """Pairs of title and URL, posted as ``<name>.title`` and ``<name>.url`` lists."""

    def raw_from(self, data, name):
        titles, urls = list(data.get(f"{name}.title", [])), list(data.get(f"{name}.url", []))
        width = max(len(titles), len(urls))
        titles += [""] * (width - len(titles))
        urls += [""] * (width - len(urls))
        return [(t.strip(), u.strip()) for t, u in zip(titles, urls) if t.strip() or u.strip()]

    def parse(self, f, raw, ctx, answers):
        out = []
        for n, (title, url) in enumerate(raw, start=1):
            if not title:
                raise ValueError(f"Row {n}: give the article's title.")
            if web_address(url) is None:
                raise ValueError(f"Row {n}: '{url}' is not a web address (it starts with https://).")
            out.append({"title": title, "url": url})
        if f.min and len(out) < f.min:
            raise ValueError(f"Give at least {f.min} article{'s' if f.min > 1 else ''}.")
        if f.max and len(out) > f.max:
            raise ValueError(f"Give at most {f.max} articles.")
        return out


class UploadType(FieldType):
    """An image the annotator supplies; uploaded beforehand, posted as its upload token."""

    def parse(self, f, raw, ctx, answers):
        upload = ctx.uploads.get(raw[-1])
        if upload is None:
            raise ValueError("Upload the image again: the upload was not found.")
        return {"upload": upload.token, "width": upload.width, "height": upload.height,
                "sha256": upload.sha256, "name": upload.name}


class BboxType(FieldType):
    """Boxes drawn on the item image (``over: "image"``) or on an earlier upload field's image.

    Posted as one JSON list of ``[x, y, w, h]`` in pixels of the original image; stored in pixels
    and normalised to 0..1.
    """

    def spec_errors(self, f, earlier):
        errors = []
        uploads = [e.key for e in earlier if e.type == "upload"]
        if f.over != "image" and f.over not in uploads:
            errors.append("a bbox field needs 'over': \"image\" or the key of an earlier upload field")
        if f.max_area_ratio is not None and not (
            isinstance(f.max_area_ratio, (int, float)) and 0 < f.max_area_ratio <= 1
        ):
            errors.append("'max_area_ratio' must be a number in (0, 1]")
        return errors

    def raw_from(self, data, name):
        values = [str(v) for v in data.get(name, []) if str(v).strip() not in ("", "[]")]
        return values[-1:]

    def parse(self, f, raw, ctx, answers):
        size = ctx.image if f.over == "image" else (
            (answers[f.over]["width"], answers[f.over]["height"]) if f.over in answers else None
        )
        if size is None:
            raise ValueError("Upload the image first, then draw the box on it.")
        width, height = size
        try:
            boxes = json.loads(raw[0])
            boxes = [[float(v) for v in box] for box in boxes]
            assert all(len(box) == 4 for box in boxes)
        except (ValueError, TypeError, AssertionError):
            raise ValueError("Draw the box again: it could not be read.") from None
        if f.min and len(boxes) < f.min:
            raise ValueError(f"Draw at least {f.min} box{'es' if f.min > 1 else ''}.")
        if f.max and len(boxes) > f.max:
            raise ValueError(f"Draw at most {f.max} box{'es' if f.max > 1 else ''} (you drew {len(boxes)}).")
        out = []
        for x, y, w, h in boxes:
            if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width + 0.5 or y + h > height + 0.5:
                raise ValueError("Each box must lie inside the image.")
            ratio = (w * h) / (width * height)
            if f.max_area_ratio is not None and ratio >= f.max_area_ratio:
                raise ValueError(
                    f"The box covers {ratio:.0%} of the image; it must cover less than {f.max_area_ratio:.0%}. "
                    "Draw it tighter around the concept."
                )
            x, y, w, h = round(x), round(y), round(min(w, width - x)), round(min(h, height - y))
            out.append({"x": x, "y": y, "w": w, "h": h, "nx": x / width, "ny": y / height,
                        "nw": w / width, "nh": h / height, "area_ratio": round(ratio, 6)})
        return out


class PickOneType(FieldType):
    """One of the item's candidates, shown in an order that is stored with the answer."""

    levels = ("nominal",)

    def parse(self, f, raw, ctx, answers):
        ids = [c.id for c in ctx.candidates]
        if len(raw) != 1 or raw[0] not in ids:
            raise ValueError("Choose one of the options.")
        return {"choice": raw[0], "order": ids}


class PerDocumentType(FieldType):
    """Sub-fields repeated for each document of the item; walked by the submission module."""

    def spec_errors(self, f, earlier):
        errors = [] if f.fields else ["a per_document field needs 'fields'"]
        if any(sub.key == "document" for sub in f.fields):
            errors.append("'document' is reserved for the document's id; name the sub-field otherwise")
        if f.score is not None and not (
            isinstance(f.score, dict) and f.score
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in f.score.values())
        ):
            errors.append("'score' maps answer values to numbers, e.g. {\"yes\": 1, \"no\": -1}")
        return errors


FIELD_TYPES: dict[str, FieldType] = {
    "scale": ScaleType(),
    "choice": ChoiceType(),
    "multi": MultiType(),
    "highlight": HighlightType(),
    "text": TextType(),
    "url_list": UrlListType(),
    "upload": UploadType(),
    "bbox": BboxType(),
    "pick_one": PickOneType(),
    "per_document": PerDocumentType(),
}

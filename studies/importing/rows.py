"""Reading the rows of an import (a .csv or .jsonl file) into typed rows. No Django.

Every problem of a row is collected, so one pass over the file reports them all.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..protocol import Protocol
from ..protocol.jsonbounds import JsonRefused, json_bounded
from ..protocol.safetext import value_problem
from ..protocol.spec import ITEM_FURTHER_TEXTS, ITEM_TEXTS
from ..protocol.web import web_address

KNOWN = (
    "id", "image", "country", "model", "category", "is_example", "metadata",
    *ITEM_TEXTS, "candidates", "documents", "author", "images",
)
# A comparison's images as numbered columns: image_1 … image_8, with model_n and params_n (a JSON object).
NUMBERED = re.compile(r"(image|model|params)_([1-8])")
MIN_IMAGES, MAX_IMAGES = 2, 8
MAX_CHARS = {"id": 200, "model": 200, "category": 200, "author": 64}
DOCUMENT_MAX_CHARS = {"title": 500, "url": 1000}
REFERENCE_SEPARATOR = " | "
JSON_MAX_DEPTH = 16  # a row's own JSON, and a cell's
FLAGS = {"": False, "0": False, "false": False, "no": False, "1": True, "true": True, "yes": True}


class ItemImportError(Exception):
    """A file that was not imported; ``errors`` lists every problem, each naming its line."""

    def __init__(self, errors: list[str]):
        super().__init__(f"nothing imported, {len(errors)} problem(s): " + "; ".join(errors[:5]))
        self.errors = errors


class RowProblem(Exception):
    """One reason a row cannot be imported."""


@dataclass(frozen=True)
class ItemNeeds:
    """What every item of a study must carry for its protocol to be answerable."""

    image: bool = True
    candidates: bool = False
    documents: bool = False
    images: bool = False  # several images, for a comparison field

    @property
    def required_columns(self) -> tuple[str, ...]:
        return ("id", "image", "country") if self.image else ("id", "country")


def item_needs(spec: Protocol) -> ItemNeeds:
    """An image when the page shows it or a box is drawn on it; candidates for a pick_one field;
    documents for a per_document field."""
    parts = spec.item_parts()
    images = "images" in parts
    return ItemNeeds(
        image=not images and ("image" in spec.display.show or "image" in parts),
        candidates="candidates" in parts,
        documents="documents" in parts,
        images=images,
    )


@dataclass
class RowImage:
    """One of a row's several images: its path, the model that made it and its parameters; the
    import fills in what the file holds."""

    path: str
    model: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    sha256: str = ""
    width: int | None = None
    height: int | None = None
    suffix: str = ""


@dataclass
class Row:
    line: int
    external_id: str
    image: str
    country: str
    prompt: str = ""
    caption: str = ""
    texts: dict[str, str] = field(default_factory=dict)
    candidates: list[dict[str, str]] = field(default_factory=list)
    documents: list[dict[str, str]] = field(default_factory=list)
    author_pid: str = ""
    model_name: str = ""
    category: str = ""
    is_example: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    sha256: str = ""
    width: int | None = None
    height: int | None = None
    suffix: str = ""
    images: list[RowImage] = field(default_factory=list)


# --- the file ----------------------------------------------------------------------------------


def read_rows(
    path: Path, *, required: tuple[str, ...] = ("id", "image", "country")
) -> Iterator[tuple[int, dict | str]]:
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
        yield from reader(path, required)
    except UnicodeDecodeError:
        yield 0, f"{path.name} is not UTF-8 text"
    except csv.Error as exc:
        yield 0, f"{path.name} is not a readable CSV file ({exc})"


def _csv_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict | str]]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh, strict=True)
        header = [name.strip() for name in reader.fieldnames or []]
        missing = [name for name in required if name not in header]
        if missing:
            yield 1, f"missing required column(s): {', '.join(missing)}"
            return
        reader.fieldnames = header
        while True:
            start = reader.line_num + 1
            try:
                raw = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield start, _csv_problem(exc, start, reader.line_num)
                return  # the reader's place in the file is lost: nothing after it is read
            if None in raw:
                yield reader.line_num, "more values than there are columns"
                continue
            yield reader.line_num, {key: value or "" for key, value in raw.items() if key}


def _csv_problem(exc: csv.Error, start: int, end: int) -> str:
    """A strict CSV reader's error as the researcher can act on it: an unclosed quote names the
    line its row starts on."""
    if "unexpected end of data" in str(exc):
        return f"a quoted value opened on line {start} is never closed (a \" is missing)"
    return f"not readable as CSV ({exc})" + (f", lines {start}-{end}" if end > start else "")


def _jsonl_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict | str]]:
    with path.open(encoding="utf-8-sig") as fh:
        for line, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                raw = json_bounded(text, max_depth=JSON_MAX_DEPTH)
            except JsonRefused as exc:
                yield line, f"not valid JSON ({exc.reason}, column {exc.column})" if exc.line else str(exc)
                continue
            yield (line, raw) if isinstance(raw, dict) else (line, "not a JSON object")


# --- one row -----------------------------------------------------------------------------------


def parse_row(line: int, raw: dict, *, needs: ItemNeeds = ItemNeeds()) -> tuple[Row, list[str]]:
    """The typed row and the problems of its fields (a row with problems is never imported)."""
    problems: list[str] = []
    unsafe = value_problem(raw)
    if unsafe:
        problems.append(unsafe)
    keys = ("id", "image", "country", "prompt", "caption", "model", "category", "author")
    values = {key: _text(raw, key, problems) for key in keys}
    for key in needs.required_columns:
        if not values[key]:
            why = ": this study's protocol shows each item's image" if key == "image" else ""
            problems.append(f"'{key}' is missing or empty{why}")
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
        caption=values["caption"],
        texts=_texts(raw, problems),
        candidates=_candidates(raw.get("candidates"), problems),
        documents=_documents(raw.get("documents"), problems),
        author_pid=values["author"],
        model_name=values["model"],
        category=values["category"],
        is_example=_flag(raw.get("is_example"), problems),
        metadata=_metadata(raw, problems),
        images=_images(raw, problems),
    )
    if needs.images and not row.images and not row.is_example:  # a practice-test example shows its one image
        problems.append(f"no images: this study's protocol compares {MIN_IMAGES} to {MAX_IMAGES} images per item "
                        "(give image_1, image_2, … or an 'images' list)")
    needed = (("candidates", needs.candidates, "asks to choose among them"),
              ("documents", needs.documents, "asks about each document"))
    for key, wanted, why in needed:
        if wanted and _blank(raw.get(key)):
            problems.append(f"'{key}' is missing: this study's protocol {why}")
    return row, problems


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _text(raw: dict, key: str, problems: list[str]) -> str:
    value = raw.get(key)
    if value is None:
        return ""
    if isinstance(value, (dict, list, bool)):
        problems.append(f"'{key}' must be text")
        return ""
    return str(value).strip()


def _texts(raw: dict, problems: list[str]) -> dict[str, str]:
    texts = {key: _text(raw, key, problems) for key in ITEM_FURTHER_TEXTS if key != "reference"}
    texts["reference"] = _reference(raw.get("reference"), problems)
    return {key: value for key, value in texts.items() if value}


def _reference(value: Any, problems: list[str]) -> str:
    """Reference answers: a JSON list, or one text with the answers separated by '|'.
    Stored as one text, joined by ' | ', like every other item text."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = value.split("|") if value.strip() else []
    if not isinstance(value, list) or not all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value
    ):
        problems.append("'reference' must be a text or a list of texts")
        return ""
    answers = [str(v).strip() for v in value]
    if any(not answer for answer in answers):
        problems.append("'reference' has an empty answer")
        return ""
    return REFERENCE_SEPARATOR.join(answers)


def _json_list(value: Any, key: str, problems: list[str]) -> list | None:
    """A list given as JSON (a JSONL value, or a CSV cell holding JSON); None when absent."""
    if _blank(value):
        return None
    if isinstance(value, str):
        try:
            value = json_bounded(value, max_depth=JSON_MAX_DEPTH)
        except JsonRefused as exc:
            problems.append(f"'{key}' is not valid JSON ({exc.reason}, column {exc.column})" if exc.line
                            else f"'{key}': {exc}")
            return None
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        problems.append(f"'{key}' must be a JSON list of objects")
        return None
    return value


def _candidates(value: Any, problems: list[str]) -> list[dict[str, str]]:
    """[{"id", "text"}, …]: ids unique and non-empty, texts non-empty."""
    given = _json_list(value, "candidates", problems)
    if given is None:
        return []
    if not given:
        problems.append("'candidates' is an empty list")
    out: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    for n, candidate in enumerate(given, start=1):
        unknown = set(candidate) - {"id", "text"}
        if unknown:
            problems.append(f"candidate {n}: unknown key(s) {', '.join(sorted(unknown))} (use id and text)")
        ident = candidate.get("id")
        ident = "" if ident is None or isinstance(ident, (bool, dict, list)) else str(ident).strip()
        text = candidate.get("text")
        text = text.strip() if isinstance(text, str) else ""
        if not ident:
            problems.append(f"candidate {n}: 'id' is missing or empty")
        elif ident in seen:
            problems.append(f"candidate {n}: duplicate id {ident!r} (already candidate {seen[ident]})")
        else:
            seen[ident] = n
        if not text:
            problems.append(f"candidate {n}: 'text' is missing or empty")
        out.append({"id": ident, "text": text})
    return out


def _documents(value: Any, problems: list[str]) -> list[dict[str, str]]:
    """[{"title", "url", "text"}, …]: a title each; a URL, when given, on http(s)."""
    given = _json_list(value, "documents", problems)
    if given is None:
        return []
    if not given:
        problems.append("'documents' is an empty list")
    out: list[dict[str, str]] = []
    for n, document in enumerate(given, start=1):
        unknown = set(document) - {"title", "url", "text"}
        if unknown:
            problems.append(f"document {n}: unknown key(s) {', '.join(sorted(unknown))} (use title, url and text)")
        values = {}
        for key in ("title", "url", "text"):
            value = document.get(key)
            if value is not None and not isinstance(value, str):
                problems.append(f"document {n}: '{key}' must be text")
                value = ""
            values[key] = (value or "").strip()
        if not values["title"]:
            problems.append(f"document {n}: 'title' is missing or empty")
        for key, limit in DOCUMENT_MAX_CHARS.items():
            if len(values[key]) > limit:
                problems.append(f"document {n}: '{key}' is longer than {limit} characters")
        if values["url"] and web_address(values["url"]) is None:
            problems.append(f"document {n}: url {values['url']!r} is not a web address (http:// or https://)")
        out.append(values)
    return out


def _images(raw: dict, problems: list[str]) -> list[RowImage]:
    """A comparison's images: numbered columns (image_n, model_n, params_n) or an ``images`` JSON
    list of {"image", "model", and any parameters}; not both. Numbered from 1 without a gap, 2 to 8."""
    given = _images_given(raw, problems)
    if not given:
        return []
    if not MIN_IMAGES <= len(given) <= MAX_IMAGES:
        problems.append(f"{len(given)} image(s): a comparison has {MIN_IMAGES} to {MAX_IMAGES}")
    images = [_image(n, entry, problems) for n, entry in enumerate(given, start=1)]
    return [image for image in images if image is not None]


def _images_given(raw: dict, problems: list[str]) -> list[dict[str, Any]]:
    listed = _json_list(raw.get("images"), "images", problems)
    numbered: dict[int, dict[str, Any]] = {}
    for key, value in raw.items():
        match = NUMBERED.fullmatch(key)
        if match and not _blank(value):
            numbered.setdefault(int(match.group(2)), {})[match.group(1)] = value
    if listed is not None and numbered:
        problems.append("give the images either as image_1, image_2, … or as an 'images' list, not both")
        return []
    if listed is not None:
        return listed
    numbers = sorted(numbered)
    if numbers != list(range(1, len(numbers) + 1)):
        got = ", ".join(f"image_{n}" for n in numbers)
        problems.append(f"the images must be numbered from 1 without a gap (got {got})")
        return []
    return [numbered[n] for n in numbers]


def _image(n: int, entry: dict[str, Any], problems: list[str]) -> RowImage | None:
    path, model = entry.get("image"), entry.get("model")
    if not isinstance(path, str) or not path.strip():
        problems.append(f"image {n}: its file ('image_{n}' or the list's 'image') is missing")
        return None
    if model is not None and not isinstance(model, str):
        problems.append(f"image {n}: its model must be text")
        model = ""
    model = (model or "").strip()
    if len(model) > MAX_CHARS["model"]:
        problems.append(f"image {n}: its model is longer than {MAX_CHARS['model']} characters")
    params = {k: v for k, v in entry.items() if k not in ("image", "model", "params")}
    given = entry.get("params")
    if isinstance(given, str) and given.strip():
        try:
            given = json_bounded(given, max_depth=JSON_MAX_DEPTH)
        except JsonRefused as exc:
            problems.append(f"image {n}: its parameters are not valid JSON ({exc})")
            return None
    if isinstance(given, dict):
        params.update(given)
    elif given not in (None, ""):
        problems.append(f"image {n}: its parameters must be a JSON object")
    return RowImage(path.strip(), model, params)


def _flag(value: Any, problems: list[str]) -> bool:
    if isinstance(value, bool):
        return value
    token = "" if value is None else str(value).strip().lower()
    if token not in FLAGS:
        problems.append(f"'is_example' must be true or false, not {value!r}")
        return False
    return FLAGS[token]


def _metadata(raw: dict, problems: list[str]) -> dict[str, Any]:
    extra = {key: value for key, value in raw.items() if key not in KNOWN and not NUMBERED.fullmatch(key)}
    given = raw.get("metadata")
    if isinstance(given, str) and given.strip():
        try:
            given = json_bounded(given, max_depth=JSON_MAX_DEPTH)
        except JsonRefused as exc:
            if exc.line is None:  # readable but hostile (too deep, a NUL): refused, not kept as text
                problems.append(f"'metadata': {exc}")
            given = None
    if given in (None, ""):
        return extra
    if not isinstance(given, dict):
        problems.append("'metadata' must be a JSON object")
        return extra
    return {**extra, **given}

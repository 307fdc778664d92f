"""A pairwise study's items from sets of images: each row of a file names one prompt's images from
several models (``image_1`` … with ``model_1`` …, as the import reads them); each pair of them
becomes an item of two images. No Django.

Every pair of a set (``per_prompt`` None), or ``per_prompt`` pairs of each set chosen cyclically
through the list of all pairs, so that across a country's sets every pair of images' places is
compared about equally often (a balanced incomplete design: with m images per set, the m(m−1)/2
pairs are dealt out in turn, each set taking the next ``per_prompt``). Which image is shown left
is the annotator's own random order, so a pair is made once, not in both orders.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable
from itertools import combinations
from pathlib import Path
from typing import Any

from .rows import NUMBERED, ItemImportError, read_rows

PER_IMAGE = ("image", "model", "params")


def image_pairs(rows: Iterable[tuple[int, dict[str, Any]]], *, per_prompt: int | None = None) -> list[dict[str, Any]]:
    """The pair rows of ``rows`` ((line, raw row) as ``read_rows`` gives them); ItemImportError
    listing every row that is not a set of at least two images, or a ``per_prompt`` below 1."""
    if per_prompt is not None and per_prompt < 1:
        raise ItemImportError(["per_prompt must be at least 1"])
    problems: list[str] = []
    sets: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for line, raw in rows:
        if isinstance(raw, str):
            problems.append(f"line {line}: {raw}" if line else raw)
            continue
        shared = {k: v for k, v in raw.items() if not NUMBERED.fullmatch(k)}
        images = [{part: raw.get(f"{part}_{n}", "") for part in PER_IMAGE} for n in range(1, 9)]
        images = [image for image in images if image["image"]]
        if len(images) < 2:
            problems.append(f"line {line}: a set needs at least two images (image_1, image_2, …), it has {len(images)}")
        elif not str(shared.get("id") or "").strip():
            problems.append(f"line {line}: 'id' is missing or empty")
        else:
            sets.append((shared, images))
    if problems:
        raise ItemImportError(problems)
    dealt: dict[str, int] = defaultdict(int)  # per country, how many pairs were dealt so far
    out = []
    for shared, images in sets:
        every = list(combinations(range(len(images)), 2))
        country = str(shared.get("country") or "")
        if per_prompt is None or per_prompt >= len(every):
            chosen = every
        else:
            start = dealt[country]
            chosen = [every[(start + i) % len(every)] for i in range(per_prompt)]
            dealt[country] += per_prompt
        for a, b in chosen:
            row = {**shared, "id": f"{shared['id']}-{a + 1}-{b + 1}"}
            for n, image in enumerate((images[a], images[b]), start=1):
                row.update({f"{part}_{n}": image[part] for part in PER_IMAGE})
            out.append(row)
    return out


def pairs_file(source: Path, target: Path, *, per_prompt: int | None = None) -> int:
    """Write the pair rows of the sets in ``source`` (.csv or .jsonl) to the CSV ``target``; returns
    how many items it holds."""
    pairs = image_pairs(read_rows(Path(source), required=("id",)), per_prompt=per_prompt)
    columns = list(dict.fromkeys(key for row in pairs for key in row))
    with Path(target).open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(pairs)
    return len(pairs)

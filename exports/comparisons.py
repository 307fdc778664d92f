"""What a study-level export says of comparisons beside the raw answers (which name images by their
place in the item, "1"…"8"): each item's several images with the model that made them
(``item_images``), and per comparison field the majority's preference between each pair of an
item's images, per country (``image_preferences``, by ``stats.comparisons.majority_preferences``),
and the images ranked within each set the answers link (``image_rankings``), read from the same
column read as the gold labels, so the same annotations count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import Any

from stats.columns import AnnotationColumns
from stats.comparisons import Preferences, SetScore, majority_preferences, set_rankings
from studies.files import stored_chunks
from studies.models import ItemImage, Study
from studies.protocol import Protocol

from .formats.base import ComparedImage


def item_images(study: Study) -> dict[int, tuple[ComparedImage, ...]]:
    """Each item's several images, by item pk, in position order (one query)."""
    rows = ItemImage.objects.filter(item__study=study).order_by("item_id", "position").values_list(
        "item_id", "position", "image", "width", "height", "sha256", "model_name", "params")
    found: dict[int, list[ComparedImage]] = defaultdict(list)
    for item, position, name, width, height, sha, model, params in rows.iterator(chunk_size=20_000):
        found[item].append(ComparedImage(position, name, width, height, sha, model or "",
                                         params if isinstance(params, dict) else {}))
    return {item: tuple(images) for item, images in found.items()}


def image_preferences(*, protocol: Protocol, columns: AnnotationColumns, country_of: Mapping[int, str],
                      images: Mapping[int, tuple[ComparedImage, ...]]) -> dict[str, Preferences]:
    """Per comparison field of ``protocol`` that ``columns`` read: the majority's preferences
    between each pair of an item's images within each country (images named by position, as
    answers name them; an answer naming an image its item no longer has is left out)."""
    places = {item: {str(i.position): str(i.position) for i in shown} for item, shown in images.items()}
    return {f.key: majority_preferences(answers) for f, answers in _answers(protocol, columns, country_of, places)}


def image_rankings(*, protocol: Protocol, columns: AnnotationColumns, country_of: Mapping[int, str],
                   images: Mapping[int, tuple[ComparedImage, ...]]) -> dict[str, tuple[SetScore, ...]]:
    """Per comparison field: the images ranked within each set of three or more that the answers
    link, per country (``stats.comparisons.set_rankings``), an image named by its file's sha256
    whichever items show it."""
    hashes = {item: {str(i.position): i.sha256 for i in shown} for item, shown in images.items()}
    return {f.key: set_rankings(answers) for f, answers in _answers(protocol, columns, country_of, hashes)}


def _answers(protocol: Protocol, columns: AnnotationColumns, country_of: Mapping[int, str],
             names: Mapping[int, Mapping[str, str]]) -> Iterator[tuple[Any, Iterator[tuple[Any, int, str, Any]]]]:
    """Per comparison field that ``columns`` read, its answers as (country, item pk, design, row),
    each image named as ``names`` names the item's positions (the field type's ``comparison``)."""
    answered = columns.answered()
    countries = answered.countries(country_of).tolist()
    for f in protocol.fields:
        if not f.kind.compares or f.key not in columns.keys:
            continue
        column = answered.keys[f.key]

        def rows(f=f, column=column) -> Iterator[tuple[Any, int, str, Any]]:
            for code, item, country in zip(column.codes.tolist(), answered.item.tolist(), countries, strict=True):
                if code < 0 or country is None:
                    continue
                row = f.kind.comparison(f, column.values[code], names.get(item, {}))
                if row is not None:
                    yield country, item, f.kind.compares, row

        yield f, rows()


def file_reader(study: Study):
    """A reader of one of the study's compared images, in chunks, by its stored name (nothing for a
    name that is no image of the study's items)."""
    def read(name: str) -> Iterator[bytes]:
        image = ItemImage.objects.filter(item__study=study, image=name).only("image").first()
        if image is not None:
            yield from stored_chunks(image.image)

    return read

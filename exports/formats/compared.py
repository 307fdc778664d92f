"""The tables of a comparison study that the ``gold`` and ``hf`` formats ship. Pure: pandas and
pyarrow, from the ``StudySource``.

- ``item_images``: each item's several images: the item's id, the image's place in the item (what
  the raw answers name: a pairwise answer's ``<key>`` choice and ``<key>_left``/``<key>_right``, a
  best–worst answer's best and worst, a ranking), the model that made it and its parameters (JSON
  text, as the researcher gave them), its file (``images/<file>``, where the hf folder ships it),
  size and sha256;
- ``preferences``: per comparison field, item, country and pair of the item's images that the
  answers order, the majority's preference (``stats.comparisons.preferences``): ``prompt``,
  ``chosen``, ``rejected`` (the images' files), their models and places, the votes each way, the
  ties and the margin. A pair whose votes are level is no row;
- ``image_rankings``: the images themselves ranked, per comparison field and country, within each
  set of three or more images that the answers link (``stats.comparisons.set_rankings``).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import pandas as pd
import pyarrow as pa

from .base import ComparedImage, StudySource

ITEM_IMAGES, PREFERENCES, IMAGE_RANKINGS = "item_images", "preferences", "image_rankings"
ITEM_IMAGE_COLUMNS = ("item_id", "position", "model", "params", "file_name", "width", "height", "sha256")
ITEM_IMAGE_TYPES = {
    **{c: pa.string() for c in ("item_id", "model", "params", "file_name", "sha256")},
    **{c: pa.int64() for c in ("position", "width", "height")},
}
PREFERENCE_COLUMNS = ("prompt", "chosen", "rejected", "chosen_model", "rejected_model", "country", "item_id", "field",
                      "chosen_position", "rejected_position", "chosen_votes", "rejected_votes", "ties", "answers",
                      "margin", "chosen_sha256", "rejected_sha256")
PREFERENCE_TYPES = {
    **{c: pa.string() for c in ("prompt", "chosen", "rejected", "chosen_model", "rejected_model", "country", "item_id",
                                "field", "chosen_sha256", "rejected_sha256")},
    **{c: pa.int64() for c in ("chosen_position", "rejected_position", "chosen_votes", "rejected_votes", "ties",
                               "answers")},
    "margin": pa.float64(),
}
IMAGE_RANKING_COLUMNS = ("field", "country", "set", "prompt", "items", "image", "model", "rank", "score", "wins",
                         "losses", "ties", "sha256")
IMAGE_RANKING_TYPES = {
    **{c: pa.string() for c in ("field", "country", "prompt", "image", "model", "sha256")},
    **{c: pa.int64() for c in ("set", "rank", "wins", "losses", "ties")},
    "items": pa.list_(pa.string()), "score": pa.float64(),
}
TYPES = {ITEM_IMAGES: ITEM_IMAGE_TYPES, PREFERENCES: PREFERENCE_TYPES, IMAGE_RANKINGS: IMAGE_RANKING_TYPES}


def item_images_frame(source: StudySource, item_pks: Collection[int] | None = None) -> pd.DataFrame:
    """The ``item_images`` table: every item's images (of ``item_pks`` only, when given), by item
    then place."""
    rows = []
    for pk in sorted(source.item_images if item_pks is None else set(item_pks) & set(source.item_images)):
        item = source.items.get(pk)
        if item is None:
            continue
        rows += [{"item_id": item.item_id, "position": image.position, "model": image.model or None,
                  "params": _params(image),
                  "file_name": image.file_name, "width": image.width, "height": image.height,
                  "sha256": image.sha256} for image in source.item_images[pk]]
    return pd.DataFrame(rows, columns=list(ITEM_IMAGE_COLUMNS), dtype=object)


def preferences_frame(source: StudySource) -> pd.DataFrame:
    """The ``preferences`` table: per comparison field (in the protocol's order), the majority's
    preferences by country, item and pair."""
    rows = []
    for key, found in source.preferences.items():
        for p in found.rows:
            item = source.items.get(p.item)
            shown = {str(image.position): image for image in source.item_images.get(p.item, ())}
            chosen, rejected = shown.get(str(p.chosen)), shown.get(str(p.rejected))
            if item is None or chosen is None or rejected is None:
                continue
            rows.append({"prompt": item.prompt or None, **_side("chosen", chosen), **_side("rejected", rejected),
                         "country": p.group, "item_id": item.item_id, "field": key,
                         "chosen_votes": p.chosen_votes, "rejected_votes": p.rejected_votes, "ties": p.ties,
                         "answers": p.answers, "margin": p.margin})
    return pd.DataFrame(rows, columns=list(PREFERENCE_COLUMNS), dtype=object)


def image_rankings_frame(source: StudySource) -> pd.DataFrame:
    """The ``image_rankings`` table: per comparison field and country, each set of three or more
    images that the answers link (a prompt's images paired up, or one item's), its images ranked
    (``stats.comparisons.set_rankings``): the set's number and prompt (its first item's), its items'
    ids, each image's file, model, rank, score (centred log-strength) and record."""
    by_hash = {image.sha256: image for shown in source.item_images.values() for image in shown}
    rows = []
    for key, scores in source.image_rankings.items():
        for s in scores:
            image, items = by_hash.get(s.thing), [source.items[pk] for pk in s.items if pk in source.items]
            if image is None or not items:
                continue
            rows.append({"field": key, "country": s.group, "set": s.set, "prompt": items[0].prompt or None,
                         "items": [i.item_id for i in items], "image": image.file_name, "model": image.model or None,
                         "rank": s.rank, "score": s.score, "wins": s.wins, "losses": s.losses, "ties": s.ties,
                         "sha256": image.sha256})
    return pd.DataFrame(rows, columns=list(IMAGE_RANKING_COLUMNS), dtype=object)


def _params(image: ComparedImage) -> str | None:
    return json.dumps(dict(image.params), sort_keys=True, ensure_ascii=False) if image.params else None


def _side(side: str, image: ComparedImage) -> dict[str, Any]:
    return {side: image.file_name, f"{side}_model": image.model or None, f"{side}_position": image.position,
            f"{side}_sha256": image.sha256}


def undecided(source: StudySource) -> dict[str, int]:
    """Per comparison field, the (country, item, pair) whose votes were level: no preference row."""
    return {key: found.undecided for key, found in source.preferences.items() if found.undecided}

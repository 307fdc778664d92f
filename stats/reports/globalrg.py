"""GlobalRG: boxes compared by intersection over union (IoU). Pure: no Django.

A box is (x, y, w, h): its top-left corner, width and height. The stored ``bbox`` answer is a
list of boxes ``[{"x", "y", "w", "h", "nx", "ny", "nw", "nh", …}]`` (pixels, and normalised to
0..1 of the image); a bare ``[x, y, w, h]`` is taken too, in whichever coordinates the other box
uses. Compare normalised coordinates (the default) unless both boxes are pixels of the same image.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from studies.protocol.gold import box_iou

from .common import number
from .kinds import AS_STORED, Reader, ReportData, implement

BOX_COLUMNS = ("image", "annotators", "pairs", "mean_iou")
PIXEL_KEYS, NORMALISED_KEYS = ("x", "y", "w", "h"), ("nx", "ny", "nw", "nh")


def box_xywh(box: Any, *, normalised: bool = True) -> tuple[float, float, float, float]:
    """A box as (x, y, w, h) floats: from a stored box (its normalised or pixel keys), a stored
    answer holding one box, or a bare sequence of four numbers. ValueError for anything else,
    several boxes, or a negative size."""
    if isinstance(box, list) and box and all(isinstance(b, Mapping) for b in box):
        if len(box) > 1:
            raise ValueError(f"{len(box)} boxes where one was expected")
        box = box[0]
    if isinstance(box, Mapping):
        keys = NORMALISED_KEYS if normalised else PIXEL_KEYS
        values = [number(box.get(k)) for k in keys]
    elif isinstance(box, (list, tuple)) and len(box) == 4:
        values = [number(v) for v in box]
    else:
        raise ValueError("not a box: expected {x, y, w, h, nx, ny, nw, nh} or [x, y, w, h]")
    numbers = [v for v in values if v is not None]
    if len(numbers) != len(values):
        raise ValueError(f"not a box: {'/'.join(NORMALISED_KEYS if normalised else PIXEL_KEYS)} must be numbers")
    x, y, w, h = numbers
    if w < 0 or h < 0:
        raise ValueError("a box cannot have a negative width or height")
    return x, y, w, h


def iou(a: Any, b: Any, *, normalised: bool = True) -> float:
    """Intersection over union of two boxes, in [0, 1]: 1 for identical boxes, 0 for disjoint boxes
    or boxes that only touch along an edge, area(inner) / area(outer) for one inside the other.
    Two boxes of zero area have IoU 0 (there is no union to divide by). The arithmetic is the
    engine's (``studies.protocol.gold.box_iou``, what a gold box is matched by)."""
    return box_iou(box_xywh(a, normalised=normalised), box_xywh(b, normalised=normalised))


@dataclass(frozen=True)
class BoxAgreement:
    """Agreement of boxes drawn on the same image by different annotators: every pair of two
    annotators' boxes of one image; the mean IoU over pairs and the share of pairs at IoU ≥
    ``threshold``. ``rows``: per image with a pair, (image, annotators, pairs, mean IoU)."""

    threshold: float
    images: int
    images_paired: int  # images with boxes of at least two annotators
    boxes: int
    unreadable: int  # answers left out: no box, several boxes, or not a box
    pairs: int
    mean_iou: float | None
    at_threshold: int
    share_at_threshold: float | None
    rows: list[tuple[Any, int, int, float]]
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "rows"}
        return {**d, "iou_histogram": self.iou_histogram(), "columns": list(BOX_COLUMNS),
                "rows": [list(r) for r in self.rows]}

    def iou_histogram(self) -> list[int]:
        """How many images have their mean IoU in each tenth of 0..1 (the last tenth holds 1)."""
        counts = [0] * 10
        for *_, mean in self.rows:
            counts[min(int(mean * 10 + 1e-9), 9)] += 1
        return counts


def box_agreement(
    rows: Iterable[tuple[Any, Any, Any]], *, threshold: float = 0.5, normalised: bool = True
) -> BoxAgreement:
    """Box agreement by IoU among the annotators of the same image.

    ``rows``: (image key, annotator, box) — the image key names the image the box was drawn on:
    in GlobalRG each annotator uploads their own image, so use the upload's ``sha256``
    (``answers["photo"]["sha256"]``; the same file uploaded twice is the same image) or, for a
    second round on fixed images, the item id; the box is the ``box`` answer (one box). Two boxes
    of the same annotator on one image are never paired."""
    by_image: dict[Any, list[tuple[Any, tuple[float, float, float, float]]]] = defaultdict(list)
    unreadable = 0
    for image, annotator, box in rows:
        try:
            xywh = box_xywh(box, normalised=normalised)
        except ValueError:
            unreadable += 1
            continue
        by_image[image].append((annotator, xywh))
    table, all_ious = [], []
    for image, boxes in by_image.items():
        ious = [iou(a, b) for (ra, a), (rb, b) in combinations(boxes, 2) if ra != rb]
        if ious:
            table.append((image, len({r for r, _ in boxes}), len(ious), sum(ious) / len(ious)))
            all_ious.extend(ious)
    hits = sum(v >= threshold for v in all_ious)
    return BoxAgreement(
        threshold=threshold,
        images=len(by_image),
        images_paired=len(table),
        boxes=sum(len(b) for b in by_image.values()),
        unreadable=unreadable,
        pairs=len(all_ious),
        mean_iou=sum(all_ious) / len(all_ious) if all_ious else None,
        at_threshold=hits,
        share_at_threshold=hits / len(all_ious) if all_ious else None,
        rows=sorted(table, key=lambda r: str(r[0])),
        reason="" if all_ious else "no image has boxes from two annotators",
    )


@dataclass(frozen=True)
class GoldAgreement:
    """Per system: its predicted boxes against the gold boxes. ``mean_iou`` is over the gold images
    it predicted; ``precision`` = hits (IoU ≥ threshold) / gold images, a missing prediction
    counting as a miss. ``without_gold``: predictions for images with no gold box (left out)."""

    threshold: float
    gold_images: int
    unreadable_gold: int
    systems: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "gold_images": self.gold_images,
                "unreadable_gold": self.unreadable_gold, "systems": [dict(s) for s in self.systems]}


def iou_against_gold(
    pred_rows: Iterable[tuple[Any, Any, Any]],
    gold_rows: Iterable[tuple[Any, Any]],
    *,
    threshold: float = 0.5,
    normalised: bool = True,
) -> GoldAgreement:
    """Each system's predicted box against the gold box of each image (GlobalRG's evaluation).

    ``pred_rows``: (image key, system, box); ``gold_rows``: (image key, box) — the annotators'
    ``box`` answers. An image with several gold boxes (several annotators) scores its prediction
    against the closest one (the highest IoU). A system's second prediction for an image is left
    out and counted (``duplicates``)."""
    gold: dict[Any, list[tuple[float, float, float, float]]] = defaultdict(list)
    unreadable_gold = 0
    for image, box in gold_rows:
        try:
            xywh = box_xywh(box, normalised=normalised)
        except ValueError:
            unreadable_gold += 1
            continue
        gold[image].append(xywh)
    predicted: dict[Any, dict[Any, tuple[float, float, float, float]]] = defaultdict(dict)
    counts: dict[Any, dict[str, int]] = defaultdict(lambda: {"unreadable": 0, "duplicates": 0, "without_gold": 0})
    for image, system, box in pred_rows:
        mine = predicted[system]
        try:
            xywh = box_xywh(box, normalised=normalised)
        except ValueError:
            counts[system]["unreadable"] += 1
            continue
        if image not in gold:
            counts[system]["without_gold"] += 1
        elif image in mine:
            counts[system]["duplicates"] += 1
        else:
            mine[image] = xywh
    systems = []
    for system in sorted(predicted, key=str):
        ious = [max(iou(box, g) for g in gold[image]) for image, box in predicted[system].items()]
        hits = sum(v >= threshold for v in ious)
        systems.append({
            "system": system,
            "predicted": len(ious),
            "missing": len(gold) - len(ious),
            **counts[system],
            "mean_iou": sum(ious) / len(ious) if ious else None,
            "hits": hits,
            "precision": hits / len(gold) if gold else None,
        })
    return GoldAgreement(threshold, len(gold), unreadable_gold, systems)


# --- the report kind --------------------------------------------------------------------------


def _image_key(value: Any) -> Any:
    """The uploaded image's ``sha256``; None for an answer without an upload."""
    return value.get("sha256") if isinstance(value, Mapping) else None


def box_images(report: ReportData) -> list[Any]:
    """The image each box was drawn on: the uploaded one's ``sha256``, or the item's without an upload."""
    items = report.items.tolist()
    if not report.spec.key("image"):
        return items
    uploaded = report.column("image").tolist()
    return [img if img is not None else item for img, item in zip(uploaded, items, strict=True)]


def _box_agreement(report: ReportData) -> BoxAgreement:
    """Boxes paired by the image they were drawn on."""
    return box_agreement(zip(box_images(report), report.annotations.annotator.tolist(),
                             report.column("box").tolist(), strict=True))


BOX_AGREEMENT = implement("box_agreement", reads={"box": AS_STORED, "image": Reader(_image_key, "interned")},
                          compute=_box_agreement, plot="box_plot")

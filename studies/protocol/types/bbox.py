"""``bbox``: boxes drawn on an image."""

from __future__ import annotations

import math

from ..gold import at_least, box_iou, one_to_one, share_problem
from ..jsonbounds import json_bounded
from .base import FieldType, ShownAnswer, json_cell, mappings

SIDES = ("x", "y", "w", "h")  # what the export keeps of a box, in pixels
NORMALISED = ("nx", "ny", "nw", "nh")  # a stored box's sides as shares of its image's
GOLD_IOU = 0.5  # the least IoU of a box with its gold box, unless the protocol says otherwise
MIN_SIDE = 0.02  # the default smallest side of a box, as a share of the image's side (8 px of 400)


def _share(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def min_box(min_side: float, width: float, height: float) -> tuple[int, int]:
    """The smallest box (width, height) in whole pixels on an image of ``width`` × ``height``
    pixels: ``min_side`` of each side, rounded up (bbox.js computes the same)."""
    return (max(1, math.ceil(min_side * width - 1e-9)) if min_side else 0,
            max(1, math.ceil(min_side * height - 1e-9)) if min_side else 0)


def _number(value):
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class BboxType(FieldType):
    """Boxes drawn on the item image (``over: "image"``) or on an earlier upload field's image.

    Posted as one JSON list of ``[x, y, w, h]`` in pixels of the original image; stored in pixels
    and normalised to 0..1. Exported as ``<key>`` the JSON list of boxes ``{"x", "y", "w", "h"}``
    in pixels, and ``<key>_count``.
    """

    name = "bbox"
    shortcuts = frozenset({"boxes"})
    draws_boxes = True
    plain_export = False
    required_text = "Draw a box on the image."
    script = "annotation/bbox.js"

    def spec_errors(self, f, earlier):
        errors = []
        uploads = [e.key for e in earlier if e.type == "upload"]
        if f.over != "image" and f.over not in uploads:
            errors.append("a bbox field needs 'over': \"image\" or the key of an earlier upload field")
        if f.max_area_ratio is not None and not (_share(f.max_area_ratio) and 0 < f.max_area_ratio <= 1):
            errors.append("'max_area_ratio' must be a number in (0, 1]")
        if f.min_side is not None and not (_share(f.min_side) and 0 <= f.min_side < 1):
            errors.append("'min_side' must be a number in [0, 1): a share of the image's width and height")
        elif _share(f.max_area_ratio) and self.min_side(f) ** 2 >= f.max_area_ratio:
            errors.append(
                f"'min_side' {self.min_side(f):g} makes every box cover at least {self.min_side(f) ** 2:.2%} "
                f"of the image, but 'max_area_ratio' asks for less than {f.max_area_ratio:.2%}: no box could pass"
            )
        return errors

    def min_side(self, f):
        """A box's smallest width and height, as a share of the image's (0: any size)."""
        return MIN_SIDE if f.min_side is None else f.min_side

    def page_data(self, f):
        data = {"min-side": repr(float(self.min_side(f)))}
        if f.max:
            data["max"] = str(f.max)
        if f.max_area_ratio:
            data["max-ratio"] = repr(float(f.max_area_ratio))
        return data

    def item_parts(self, f):
        return frozenset({"image"}) if f.over == "image" else frozenset()

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
            boxes = json_bounded(raw[0], max_depth=2, max_chars=100_000)
            boxes = [[float(v) for v in box] for box in boxes]
            assert all(len(box) == 4 and all(math.isfinite(v) for v in box) for box in boxes)
        except (ValueError, TypeError, AssertionError):
            raise ValueError("Draw the box again: it could not be read.") from None
        if f.min and len(boxes) < f.min:
            raise ValueError(f"Draw at least {f.min} box{'es' if f.min > 1 else ''}.")
        if f.max and len(boxes) > f.max:
            raise ValueError(f"Draw at most {f.max} box{'es' if f.max > 1 else ''} (you drew {len(boxes)}).")
        least_w, least_h = min_box(self.min_side(f), width, height)
        out = []
        for x, y, w, h in boxes:
            if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width + 0.5 or y + h > height + 0.5:
                raise ValueError("Each box must lie inside the image.")
            if w < least_w or h < least_h:
                raise ValueError(
                    f"The box is too small: {w:g}×{h:g} px, and a box needs at least {least_w}×{least_h} px. "
                    "Drag across the whole area you mean to mark."
                )
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

    def gold_problem(self, f):
        if f.over != "image":
            return "a bbox field over an upload cannot have a gold answer: each annotator draws on their own image"
        return None

    def gold_tolerance_problem(self, f, tolerance):
        return share_problem(tolerance, "the least IoU of a box with its gold box")

    def gold_matches(self, f, given, expected, tolerance):
        """As many boxes as the gold, each paired with a different gold box at an IoU of at least
        the tolerance (``GOLD_IOU`` by default). Boxes compare by their shares of the image when
        both answers have them, else by their pixels; an unreadable box matches nothing."""
        threshold = GOLD_IOU if tolerance is None else tolerance
        every = [*given, *expected] if isinstance(given, list) and isinstance(expected, list) else []
        sides = NORMALISED if all(isinstance(b, dict) and _has(b, NORMALISED) for b in every) else SIDES
        mine, gold = _boxes(given, sides), _boxes(expected, sides)
        if mine is None or gold is None:
            return False
        return one_to_one(mine, gold, lambda a, b: at_least(box_iou(a, b), threshold))

    def export_columns(self, f):
        return [f.key, f"{f.key}_count"]

    def export_cells(self, f, value):
        if value is None:
            return {}
        boxes = [{side: box.get(side) for side in ("x", "y", "w", "h")} for box in mappings(value)]
        return {f.key: json_cell(boxes), f"{f.key}_count": str(len(boxes))}

    def export_values(self, f, value):
        if value is None:
            return {}
        boxes = [{side: _number(box.get(side)) for side in SIDES} for box in mappings(value)]
        return {f.key: boxes, f"{f.key}_count": len(boxes)}

    def export_arrow(self, f):
        """A box is a struct of numbers in pixels (float64: an imported box may be fractional)."""
        import pyarrow as pa

        return {f.key: pa.list_(pa.struct([(side, pa.float64()) for side in SIDES])), f"{f.key}_count": pa.int64()}

    def show_answer(self, f, value, *, candidates=()):
        if not isinstance(value, list):
            return super().show_answer(f, value)
        boxes = [b for b in value if isinstance(b, dict)]
        return ShownAnswer(text="; ".join(
            f"box at ({b.get('x')}, {b.get('y')}), {b.get('w')}×{b.get('h')} px, "
            f"{b.get('area_ratio', 0):.0%} of the image"
            for b in boxes
        ) or "no box")


def _has(box, sides) -> bool:
    return all(_number(box.get(side)) is not None for side in sides)


def _boxes(value, sides):
    """The boxes of an answer as (x, y, w, h) by ``sides``; a box may also be a bare [x, y, w, h].
    None when any is unreadable."""
    if not isinstance(value, list):
        return None
    out = []
    for box in value:
        if isinstance(box, dict) and _has(box, sides):
            out.append(tuple(float(box[side]) for side in sides))
        elif isinstance(box, (list, tuple)) and len(box) == 4 and all(_number(v) is not None for v in box):
            out.append(tuple(float(v) for v in box))
        else:
            return None
    return out

"""``coco``: the boxes annotators drew (GlobalRG's grounding), as one COCO JSON that
``pycocotools.coco.COCO`` loads. Fits a protocol with a field whose type draws boxes
(``FieldType.draws_boxes``).

- ``images``: each image a box was drawn on: the item's own image (its size from the item) or the
  image an annotator uploaded (its size from the upload; its ``file_name``
  ``uploads/<sha256>.<ext>``, where the hf export ships it under ``images/``, so two annotators'
  photos of the same file name are two images; the name they gave is ``original_name``), with
  ``id``, ``file_name``, ``width``, ``height``, and the researcher's ``item_id``;
- ``categories``: one per box field (its key and its question);
- ``annotations``: one per annotator box (``attributes.annotator``: the pseudonym) and one per
  fused box per (image, country, field) (``attributes.fused``: true; the median of each edge of the
  annotators' boxes, ``stats.gold.fused_box``; ``iou_mean``/``iou_min``/``iou_max``: its spread),
  each with ``bbox`` in pixels ``[x, y, w, h]``, ``area``, ``iscrowd`` 0 and the pool's country.

``info`` names the study, the analysis run the export was gated on and the data it saw (as the
manifest beside the file does). Annotations flagged by a checker never reach a writer
(``exports.rows``). Boxes are kept as they stream (four numbers each); the file is written once
the study's items are known.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from stats.gold import fused_box
from stats.reports.globalrg import iou
from stats.versions import ProtocolSet
from studies.protocol import SKIP, Field, UploadRef

from .base import ExportFormat, Origin, StudySource, WrittenFile
from .table import Tables

FILE = "annotations.json"


def box_fields(protocols: ProtocolSet) -> list[Field]:
    """The newest spec of every top-level field that draws boxes, over every version."""
    return [group[0] for group in protocols.groups() if group[0].kind.draws_boxes]


def fits_boxes(protocols: ProtocolSet) -> bool:
    return any(f.kind.draws_boxes for group in protocols.groups() for f in group)


class Box(NamedTuple):
    image: tuple[str, Any]  # ("item", item pk) or ("upload", sha256)
    item_id: str
    country: str
    annotator: str
    field: str
    xywh: tuple[float, float, float, float]


class CocoWriter:
    def __init__(self, folder: Path, tables: Tables, protocols: ProtocolSet, origin: Origin | None = None):
        self.path = folder / FILE
        self.origin = origin or Origin()
        self.protocols = protocols
        self.fields = box_fields(protocols)
        self.boxes: list[Box] = []
        self.uploads: dict[str, tuple[UploadRef, str]] = {}  # sha256 → the upload, the item's id
        self.source: StudySource | None = None
        self.rows = 0

    def write(self, rows, documents):
        for row in rows:
            answers = row.answers
            if not isinstance(answers, Mapping) or SKIP in answers:
                continue
            protocol = self.protocols.for_version(row.protocol_version)
            for f in protocol.fields:
                if not f.kind.draws_boxes or answers.get(f.key) is None:
                    continue
                image = self._image(f, row, answers, protocol)
                if image is None:
                    continue
                for box in f.kind.export_values(f, answers[f.key]).get(f.key) or ():
                    xywh = tuple(box.get(side) for side in ("x", "y", "w", "h"))
                    if all(isinstance(v, (int, float)) for v in xywh):
                        self.boxes.append(Box(image, row.item_id, row.pool_country, row.annotator, f.key,
                                              tuple(float(v) for v in xywh)))

    def _image(self, f: Field, row, answers: Mapping[str, Any], protocol) -> tuple[str, Any] | None:
        if f.over == "image":
            return ("item", row.item_pk)
        over = next((g for g in protocol.fields if g.key == f.over), None)
        upload = over.kind.supplied_image(over, answers.get(f.over)) if over is not None else None
        if upload is None:
            return None
        self.uploads.setdefault(upload.sha256, (upload, row.item_id))
        return ("upload", upload.sha256)

    def study(self, source: StudySource) -> None:
        self.source = source

    def notes(self):
        return {}

    def _images(self) -> tuple[list[dict[str, Any]], dict[tuple[str, Any], int]]:
        source = self.source or StudySource(gold=None, items={}, datasheet={})
        items = source.items
        keys = sorted({b.image for b in self.boxes}, key=lambda k: (k[0], str(k[1])))
        images, ids = [], {}
        for number, (kind, ref) in enumerate(keys, start=1):
            if kind == "item":
                item = items.get(ref)
                entry = {"file_name": Path(item.name).name if item and item.name else f"{ref}",
                         "width": item.width if item else None, "height": item.height if item else None,
                         "item_id": item.item_id if item else None}
            else:
                upload, item_id = self.uploads[ref]
                entry = {"file_name": source.upload_file(upload),
                         "width": upload.width, "height": upload.height, "item_id": item_id, "sha256": ref,
                         "original_name": upload.name}
            images.append({"id": number, **entry})
            ids[kind, ref] = number
        return images, ids

    def document(self) -> dict[str, Any]:
        """The COCO document of every box written."""
        images, image_ids = self._images()
        categories = [{"id": n, "name": f.key, "supercategory": "box", "question": f.label}
                      for n, f in enumerate(self.fields, start=1)]
        category_ids = {c["name"]: c["id"] for c in categories}
        annotations: list[dict[str, Any]] = []

        def add(box: tuple[float, float, float, float], image: int, field: str, attributes: dict[str, Any]) -> None:
            x, y, w, h = box
            annotations.append({"id": len(annotations) + 1, "image_id": image, "category_id": category_ids[field],
                                "bbox": [x, y, w, h], "area": w * h, "iscrowd": 0, "attributes": attributes})

        groups: dict[tuple[Any, str, str], list[Box]] = defaultdict(list)
        for b in self.boxes:
            add(b.xywh, image_ids[b.image], b.field, {"annotator": b.annotator, "fused": False, "country": b.country})
            groups[b.image, b.country, b.field].append(b)
        for (image, country, field), drawn in groups.items():
            fused = fused_box([b.xywh for b in drawn])
            ious = [iou(b.xywh, fused) for b in drawn]
            add(fused, image_ids[image], field, {
                "annotator": None, "fused": True, "country": country, "annotators": len({b.annotator for b in drawn}),
                "iou_mean": sum(ious) / len(ious), "iou_min": min(ious), "iou_max": max(ious),
            })
        origin = self.origin
        return {
            "info": {"description": "Boxes drawn by annotators, and the fused box per image and country",
                     "date_created": origin.created, "study": origin.study, "analysis_run": origin.analysis_run,
                     "data_fingerprint": origin.data_fingerprint,
                     **({"version": origin.release.version} if origin.release else {})},
            "licenses": [], "images": images, "categories": categories, "annotations": annotations,
        }

    def close(self):
        doc = self.document()
        self.path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        return [WrittenFile(FILE, self.path, len(doc["annotations"]))]


FORMAT = ExportFormat(
    name="coco",
    label="COCO boxes",
    extension="json",
    description="The boxes annotators drew and the fused box per image and country, as COCO annotations "
    "(pycocotools.coco.COCO).",
    content_type="application/json",
    opener=CocoWriter,
    fits=fits_boxes,
    study_level=True,
)

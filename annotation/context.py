"""The item context of an assignment: what its protocol's fields may refer to."""

from __future__ import annotations

import random

from django.db.models import prefetch_related_objects

from studies.protocol import CandidateRef, DocumentRef, ImageRef, ItemContext, Protocol, UploadRef

from .models import Assignment


def candidate_order(assignment: Assignment) -> list[dict]:
    """The item's candidates in this assignment's own random order (stable across reloads)."""
    candidates = list(assignment.item.candidates or [])
    random.Random(f"order:{assignment.pk}").shuffle(candidates)
    return candidates


def image_order(assignment: Assignment) -> list:
    """The item's several images (``ItemImage`` rows) in this assignment's own random order, stable
    across reloads: the comparison fields record it with the answer (left/right position bias is
    measured from it). One query, prefetched on the item, so the context and the page share it."""
    prefetch_related_objects([assignment.item], "images")
    images = list(assignment.item.images.all())
    random.Random(f"images:{assignment.pk}").shuffle(images)
    return images


def image_refs(images) -> list[ImageRef]:
    """``ItemImage`` rows as the engine names them."""
    return [ImageRef(i.ref_id, i.model_name, i.width, i.height) for i in images]


def assignment_context(assignment: Assignment, spec: Protocol) -> ItemContext:
    """Build the context, querying documents and uploads only when the protocol uses them."""
    item = assignment.item
    parts = spec.item_parts()
    documents = [DocumentRef(d.pk, d.title) for d in shown_documents(assignment, spec)] if "documents" in parts else []
    candidates = (
        [CandidateRef(str(c["id"]), str(c.get("text", ""))) for c in candidate_order(assignment)]
        if "candidates" in parts else []
    )
    if "uploads" in parts:
        prefetch_related_objects([assignment], "uploads")  # one query, shared with the page that shows them
    uploads = (
        {str(u.token): UploadRef(str(u.token), u.width, u.height, u.sha256, u.original_name)
         for u in assignment.uploads.all()}
        if "uploads" in parts else {}
    )
    image = (item.width, item.height) if item.image and item.width else None
    images = image_refs(image_order(assignment)) if "images" in parts else []
    return ItemContext(texts=item.text_map(), image=image, documents=documents, candidates=candidates, uploads=uploads,
                       images=images)


def _loads(spec: Protocol, part: str) -> bool:
    """Does a page of ``spec`` need the item's ``part``: shown above the questions (folded away
    or not), or asked about by a field (or sub-field)?"""
    return part in spec.display.show or part in spec.item_parts()


def shown_documents(assignment: Assignment, spec: Protocol) -> list:
    """The item's documents (Document rows, by position) when a page of ``spec`` shows them or a
    per_document field asks about them, else none. One query, prefetched on the item, so the
    context, the page and the review form share it."""
    if not _loads(spec, "documents"):
        return []
    prefetch_related_objects([assignment.item], "documents")
    return list(assignment.item.documents.all())


def shown_images(assignment: Assignment, spec: Protocol) -> list:
    """The item's several images, in this assignment's order, when a field of ``spec`` compares
    them, else none."""
    return image_order(assignment) if "images" in spec.item_parts() else []


def shown_candidates(assignment: Assignment, spec: Protocol) -> list[dict]:
    """The item's candidates, in this assignment's order, when a page of ``spec`` shows them or a
    pick_one field offers them, else none."""
    return candidate_order(assignment) if _loads(spec, "candidates") else []

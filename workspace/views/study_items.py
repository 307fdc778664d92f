"""The researcher's page of one item: its image, its texts, candidates and documents, and every
annotation of it, each answer shown the way its field type shows it (``FieldType.show_answer``), a
per_document field's answers document by document. For the study's owner and members."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from annotation.models import Annotation
from studies.protocol import CandidateRef, Field, Protocol, ShownAnswer
from studies.protocol.spec import ITEM_TEXT_LABELS
from studies.selectors import protocol_specs, study_for_user
from workspace.views.check_items import check_card_context


@dataclass(frozen=True)
class AnswerRow:
    """One field's answer; a per_document field's holds, per document, its title and sub-answers."""

    label: str
    answer: ShownAnswer | None = None
    documents: tuple[tuple[str, list[tuple[str, ShownAnswer]]], ...] = ()


@dataclass(frozen=True)
class ShownAnnotation:
    annotation: Annotation
    answers: list[AnswerRow]


@login_required
@require_GET
def study_item(request, pk: int, item_pk: int):
    study = study_for_user(request.user, pk)
    item = get_object_or_404(study.items, pk=item_pk)
    documents = list(item.documents.all())
    annotations = list(item.annotations.select_related("annotator", "pool").order_by("submitted_at", "id"))
    specs = protocol_specs(study=study, versions={a.protocol_version for a in annotations})
    candidates = [CandidateRef(str(c.get("id")), str(c.get("text", ""))) for c in item.candidates or []]
    titles = {d.pk: d.title for d in documents}
    shown = [
        ShownAnnotation(a, _answers(specs.get(a.protocol_version, study.spec), a, candidates, titles))
        for a in annotations
    ]
    return render(request, "annotation/study_item.html", {
        "study": study, "item": item, "texts": _texts(item.texts), "candidates": candidates,
        "documents": documents, "annotations": shown, **check_card_context(study, item),
    })


def _texts(texts) -> list[tuple[str, str]]:
    """The item's further texts (question, background, reference answers, answer…) as (label, text),
    the known ones first in their usual order; empty ones left out."""
    texts = texts if isinstance(texts, dict) else {}
    names = [*(n for n in ITEM_TEXT_LABELS if n in texts), *(n for n in texts if n not in ITEM_TEXT_LABELS)]
    return [(ITEM_TEXT_LABELS.get(n, n.replace("_", " ").capitalize()), str(texts[n])) for n in names
            if str(texts[n]).strip()]


def _answers(
    protocol: Protocol, annotation: Annotation, candidates: list[CandidateRef], titles: dict[int, str]
) -> list[AnswerRow]:
    """The answers given, in the protocol's order; a per_document field's document by document."""
    answers = annotation.answers if isinstance(annotation.answers, dict) else {}
    out = []
    for f in protocol.fields:
        value = answers.get(f.key)
        if value is None:
            continue
        if f.kind.container:
            out.append(AnswerRow(f.label, documents=_per_document(f, value, candidates, titles)))
        else:
            out.append(AnswerRow(f.label, f.kind.show_answer(f, value, candidates=candidates)))
    return out


def _per_document(f: Field, value, candidates: list[CandidateRef], titles: dict[int, str]):
    """Each document's answers to the sub-fields of ``f``: (the document's title, [(label, answer)])."""
    rows = []
    for entry in value if isinstance(value, list) else []:
        if not isinstance(entry, dict):
            continue
        doc = entry.get("document")
        title = titles.get(doc, f"Document {doc}") if isinstance(doc, int) else f"Document {doc}"
        subs = [
            (sub.label, sub.kind.show_answer(sub, entry[sub.key], candidates=candidates))
            for sub in f.fields if entry.get(sub.key) is not None
        ]
        rows.append((title, subs))
    return tuple(rows)

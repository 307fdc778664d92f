"""The researcher's page of one item: its image, its texts and every annotation of it, each answer
shown the way its field type shows it (``FieldType.show_answer``). For the study's owner and members."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from studies.protocol import CandidateRef, Protocol, ShownAnswer
from studies.selectors import protocol_specs, study_for_user

from ..models import Annotation


@dataclass(frozen=True)
class ShownAnnotation:
    annotation: Annotation
    answers: list[tuple[str, ShownAnswer]]


@login_required
@require_GET
def study_item(request, pk: int, item_pk: int):
    study = study_for_user(request.user, pk)
    item = get_object_or_404(study.items, pk=item_pk)
    annotations = list(item.annotations.select_related("annotator", "pool").order_by("submitted_at", "id"))
    specs = protocol_specs(study=study, versions={a.protocol_version for a in annotations})
    candidates = [CandidateRef(str(c.get("id")), str(c.get("text", ""))) for c in item.candidates or []]
    shown = [
        ShownAnnotation(a, _answers(specs.get(a.protocol_version, study.spec), a, candidates)) for a in annotations
    ]
    return render(request, "annotation/study_item.html", {"study": study, "item": item, "annotations": shown})


def _answers(
    protocol: Protocol, annotation: Annotation, candidates: list[CandidateRef]
) -> list[tuple[str, ShownAnswer]]:
    """The answers given, in the protocol's order (per-document sub-fields are left out here)."""
    answers = annotation.answers if isinstance(annotation.answers, dict) else {}
    out = []
    for f in protocol.fields:
        value = answers.get(f.key)
        if value is None or f.kind.container:
            continue
        out.append((f.label, f.kind.show_answer(f, value, candidates=candidates)))
    return out


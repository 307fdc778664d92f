"""The quality check's figures for a study's analysis: the one Django-side reader of reviews
(the analysis puts them in its result as ``review``)."""

from __future__ import annotations

from typing import Any

from annotation.models import Review
from annotation.reviews import labels
from stats.review_agreement import ReviewedField, ReviewRow, review_agreement
from studies.models import Study
from studies.protocol import Protocol

CHUNK_SIZE = 2000


def reviewed_field_specs(protocol: Protocol):
    """The reviewed fields of the study's current protocol as the agreement module describes them."""
    out = []
    for f in labels.reviewed_fields(protocol):
        for sub, parent in ([(s, f) for s in f.fields] if f.kind.container else [(f, None)]):
            out.append(ReviewedField(key=labels.analysed_key(sub, parent), label=sub.label, level=sub.level,
                                     categories=labels.domain(sub)))
    return out


def review_result(*, study: Study) -> dict[str, Any] | None:
    """The acceptance rate and checker–annotator kappa per field, overall and per country, of the
    study's reviews (one query, streamed), as ``stats.review_agreement`` computes them; None
    when nothing is reviewed. Fields are read with the current protocol, like the analysis."""
    fields = labels.reviewed_fields(study.spec)
    reviews = (
        Review.objects.filter(annotation__study=study)
        .order_by("pk")
        .values_list("annotation_id", "outcome", "labels", "annotation__answers", "annotation__pool__country",
                     "annotation__pool__country_name")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    rows = []
    for annotation_id, outcome, checked, given, country, country_name in reviews:
        annotator, checker = labels.flat_labels(fields, given), labels.flat_labels(fields, checked)
        rows.append(ReviewRow(
            country=country,
            country_name=country_name,
            accepted=outcome == Review.Outcome.ACCEPTED,
            labels=[
                (key, (annotation_id, document), annotator.get((key, document)), checker.get((key, document)))
                for key, document in dict.fromkeys([*annotator, *checker])
            ],
        ))
    if not rows:
        return None
    return review_agreement(rows, reviewed_field_specs(study.spec)).as_dict()

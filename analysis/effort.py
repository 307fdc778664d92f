"""The honest-effort flags of a pool's annotators (``stats.annotators.effort``), read live for the
annotators a page shows: one query over their annotations (session, answers and the page's counts),
withdrawn ones included (a flag is for review, whatever counts)."""

from __future__ import annotations

from collections.abc import Iterable

from annotation.models import Annotation
from stats.annotators.effort import EffortFlags, effort_flags
from studies.models import Study

CHUNK = 5_000


def rating_keys(study: Study) -> list[str]:
    """The study's top-level rating questions: ordinal, with fixed points (a scale's)."""
    return [f.key for f in study.spec.fields if f.level == "ordinal" and f.kind.domain(f)]


def annotators_effort(*, study: Study, annotator_ids: Iterable[int]) -> dict[int, EffortFlags]:
    """The flags of these annotators of the (already scoped) study, by annotator id. One query."""
    ids = list(annotator_ids)
    if not ids:
        return {}
    rows = (
        Annotation.objects.filter(study=study, annotator_id__in=ids).order_by("id")
        .values_list("annotator_id", "assignment__session_id", "answers", "effort").iterator(chunk_size=CHUNK)
    )
    return effort_flags(rows, rating_keys=rating_keys(study))

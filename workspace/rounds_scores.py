"""The analysis's quality scores as the rounds' bar reads them (``recruitment.services.rounds``:
recruitment may not import analysis, so the workspace, which may import both, supplies this
reader; ``workspace/apps.py`` registers it at start-up for the page, the API and the command).

Per annotator of the study: the quality score is the MACE competence on the first scored field
(the annotators page's default), the gold accuracy the analysis's (gold items of the check answers
counted in), excluded when the researcher excluded or blocked them. Read from the latest finished
analysis run (``analysis.annotators.pool_scores``, one query a pool); an annotator the run did not
score has no quality score (and fails a bar on it)."""

from __future__ import annotations

from analysis.annotators import pool_scores
from annotation.models import Annotator
from recruitment.services.rounds import ScoreRow
from studies.models import Study


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if number != number else number  # NaN: not scored


def study_score_rows(study: Study) -> list[ScoreRow]:
    scores = {pool.pk: pool_scores(study=study, pool=pool, field_key=None).by_annotator for pool in study.pools.all()}
    rows = []
    annotators = Annotator.objects.filter(study=study).exclude(prolific_pid="").values_list(
        "pk", "pool_id", "prolific_pid", "excluded_at", "blocked_at")
    for pk, pool_id, pid, excluded_at, blocked_at in annotators.iterator():
        row = scores.get(pool_id, {}).get(pk, {})
        rows.append(ScoreRow(
            participant_id=pid, quality=_number(row.get("competence")), gold_accuracy=_number(row.get("gold_accuracy")),
            excluded=excluded_at is not None or blocked_at is not None,
        ))
    return rows

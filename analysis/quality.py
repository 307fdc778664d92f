"""Quality control in the analysis: per pool and scored field, each annotator's scores
(``stats.annotators.annotator_scores``), and agreement with and without the excluded annotators.

Which fields are scored: the protocol's top-level fields whose answers are categories
(``FieldType.gold_categorical``: nominal fields, and ordinal ones with a fixed domain such as a
scale's points), at most ``MAX_FIELDS`` of them in the spec's order; a competence model (MACE)
fits those. The speed threshold is the spec's ``quality.speed`` (none when unset).

What is read: the annotations that count (none flagged by a checker) and, besides, those withdrawn
only because their annotator is excluded, so an excluded annotator keeps their figures and the
effect of leaving them out shows ("with" and "without"). Skips are not answers. A withdrawn
session's annotations are read by neither side. Attention checks and gold items are the session's
check answers (``annotation.CheckAnswer``, checked when submitted): attention checks passed and
failed, and gold accuracy (the share of gold items passed, within the protocol's tolerances), per
annotator of the pool; empty for a study without them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC
from typing import Any

import numpy as np
import pandas as pd
from django.db.models import Count

from annotation.models import Annotation, Annotator, CheckAnswer, pseudonym_for
from stats.annotators import agreement_with_without, annotator_scores
from stats.columns import AnnotationColumns, KeyColumn
from stats.jsonsafe import plain
from stats.reports.common import column_values
from studies.models import Study
from studies.protocol import Field, answer_token

MAX_FIELDS = 3
CHUNK_SIZE = 20_000
# 2: each pool's scores as a table (``columns``, and ``rows`` of values in that order), as the reports'
# tables are; 1 (older runs) had a dict per row. ``score_rows`` reads both.
QUALITY_VERSION = 2


def excluded_annotators(*, study: Study, max_id: int) -> list[dict[str, Any]]:
    """The study's excluded annotators, in the order they were excluded: id, pseudonym, reason,
    when (UTC, ISO), and ``annotations``: how many of theirs up to ``max_id`` the exclusion leaves
    out (not flagged by a checker, not of a withdrawn session: those are out anyway). Two queries."""
    people = list(
        Annotator.objects.filter(study=study, excluded_at__isnull=False)
        .order_by("excluded_at", "pk").values_list("pk", "public_id", "excluded_reason", "excluded_at")
    )
    if not people:
        return []
    left_out = dict(
        Annotation.objects.counted_or_excluded()
        .filter(study=study, id__lte=max_id, annotator_id__in=[p[0] for p in people])
        .order_by().values("annotator_id").annotate(n=Count("id")).values_list("annotator_id", "n")
    )
    return [
        {"annotator_id": pk, "pseudonym": pseudonym_for(public_id), "reason": reason,
         "excluded_at": when.astimezone(UTC).isoformat().replace("+00:00", "Z"), "annotations": left_out.get(pk, 0)}
        for pk, public_id, reason, when in people
    ]


def scored_fields(study: Study) -> list[Field]:
    """The fields the annotators are scored on (see the module's docstring)."""
    return [f for f in study.spec.fields if f.kind.gold_categorical(f)][:MAX_FIELDS]


def _domain(f: Field) -> list[str] | None:
    domain = f.kind.domain(f)
    return [c.token for c in domain] if f.level == "ordinal" and domain else None


@dataclass
class _Read:
    """The annotations the scores read (counted or excluded only, none skipped), in id order, as
    columns: pool, item, annotator, seconds, and each scored key's answers."""

    pool: np.ndarray
    item: np.ndarray
    annotator: np.ndarray
    seconds: np.ndarray
    keys: dict[str, KeyColumn]
    _units: np.ndarray | None = None

    @classmethod
    def of(cls, columns: AnnotationColumns, keys: list[str]) -> _Read:
        """The answers to ``keys`` of the analysis's one read (``annotation_columns(..., excluded=True)``)."""
        if columns.seconds is None:
            raise ValueError("the quality scores need the annotations' times")
        answered = ~columns.skipped
        if answered.all():  # nothing skipped: the read's own arrays, not copies
            return cls(columns.pool, columns.item, columns.annotator, columns.seconds,
                       {k: columns.keys[k] for k in keys})
        return cls(columns.pool[answered], columns.item[answered], columns.annotator[answered],
                   columns.seconds[answered], {k: columns.keys[k].take(answered) for k in keys})

    @property
    def units(self) -> np.ndarray:
        """Each annotation's unit (an item within a pool) as one int64, made once for every field:
        a number, not "pool:item" text, which a million answers would make, hash and code again
        in each field's frame and model. No unit's name reaches the result."""
        if self._units is None:
            pool, item = self.pool.astype(np.int64), self.item.astype(np.int64)
            span = int(item.max()) + 1 if len(item) else 1
            if len(pool) and int(pool.max()) < np.iinfo(np.int64).max // span:
                self._units = pool * span + item
            else:  # ids too large to combine in 64 bits: number the distinct pairs
                self._units = np.unique(np.stack([pool, item]), axis=1, return_inverse=True)[1].reshape(-1)
        return self._units


def _kept(token: str | None, allowed: set[str] | None) -> bool:
    return token is not None and (allowed is None or token in allowed)


def _kept_rows(read: _Read, f: Field, domain: list[str] | None) -> tuple[np.ndarray, np.ndarray]:
    """Each answer's token, and the rows of those kept: an answer outside the field's current
    ``domain`` (given under an older version) is left out, as the agreement leaves it out. Each
    distinct answer is decoded and tokenised once."""
    allowed = set(domain) if domain is not None else None
    column = read.keys[f.key]  # each function below runs once per distinct answer
    tokens = column.mapped(lambda value: answer_token(f, value))
    keep = column.mapped(lambda value: _kept(answer_token(f, value), allowed)).astype(bool)
    return tokens, np.flatnonzero(keep)


def _frame(read: _Read, tokens: np.ndarray, rows: np.ndarray) -> pd.DataFrame:
    """unit (item within pool), pool, annotator (id), value (the answer's token), seconds, of ``rows``."""
    return pd.DataFrame({
        "unit": read.units[rows], "pool": read.pool[rows], "annotator": read.annotator[rows],
        "value": tokens[rows], "seconds": read.seconds[rows],
    })


def _pool_frames(read: _Read, tokens: np.ndarray, rows: np.ndarray) -> Iterator[tuple[int, pd.DataFrame]]:
    """``_frame`` of each pool's ``rows`` in turn, by pool id, each in the read's order (what a
    groupby of the whole frame gives, without that frame and its copy: a million answers' worth)."""
    if not len(rows):
        return
    pools = read.pool[rows]
    order = np.argsort(pools, kind="stable")
    rows, pools = rows[order], pools[order]
    starts = np.flatnonzero(np.r_[True, pools[1:] != pools[:-1]])
    ends = np.r_[starts[1:], len(rows)]
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        yield int(pools[start]), _frame(read, tokens, rows[start:end])


def check_tallies(study: Study) -> tuple[dict[int, pd.DataFrame], dict[int, tuple[int, int]]]:
    """The study's check answers (one query): per pool, its attention checks as a frame (annotator,
    passed: one row per check taken); per annotator, their gold items (taken, passed)."""
    attention: dict[int, dict[str, list]] = {}
    gold: dict[int, tuple[int, int]] = {}
    rows = CheckAnswer.objects.filter(annotator__study=study).values_list(
        "annotator__pool_id", "annotator_id", "kind", "passed").order_by("id")
    for pool_id, annotator_id, kind, passed in rows.iterator(chunk_size=CHUNK_SIZE):
        if kind == "attention":
            frame = attention.setdefault(pool_id, {"annotator": [], "passed": []})
            frame["annotator"].append(annotator_id)
            frame["passed"].append(bool(passed))
        elif kind == "gold":
            taken, right = gold.get(annotator_id, (0, 0))
            gold[annotator_id] = (taken + 1, right + int(bool(passed)))
    return {pool: pd.DataFrame(data) for pool, data in attention.items()}, gold


def _with_gold(table: pd.DataFrame, gold: dict[int, tuple[int, int]]) -> pd.DataFrame:
    """The gold items of the session's check answers over the table's own (none in the frame)."""
    tallies = np.array([gold.get(a, (0, 0)) for a in table["annotator_id"].tolist()], dtype=float).reshape(-1, 2)
    taken = tallies[:, 0] > 0
    if not taken.any():
        return table
    table = table.copy()
    table["gold_items"] = np.where(taken, tallies[:, 0], table["gold_items"]).astype(np.int64)
    table["gold_correct"] = np.where(taken, tallies[:, 1], table["gold_correct"])
    with np.errstate(divide="ignore", invalid="ignore"):
        table["gold_accuracy"] = np.where(taken, tallies[:, 1] / tallies[:, 0], table["gold_accuracy"])
    return table


def _score_table(scores: Any, gold: dict[int, tuple[int, int]]) -> dict[str, Any]:
    """A pool's scores as ``columns`` and ``rows`` of plain values (made so by column: a million
    ratings' scores are 120,000 rows), by annotator id."""
    table = scores.table.rename(columns={"annotator": "annotator_id"})
    table["annotator_id"] = table["annotator_id"].astype(np.int64)
    table = _with_gold(table, gold)
    values = [column_values(table[c]) for c in table.columns]
    return {"columns": list(table.columns), "rows": _Plain(list(map(list, zip(*values, strict=True))))}


def score_rows(pool: dict[str, Any]) -> list[dict[str, Any]]:
    """A pool's scores of a stored result as one dict per annotator, whichever version stored them
    (a table since version 2, dicts before)."""
    rows = pool.get("rows") or []
    columns = pool.get("columns")
    if columns is None:
        return [r for r in rows if isinstance(r, dict)]
    return [dict(zip(columns, r, strict=False)) for r in rows if isinstance(r, list)]


@dataclass(frozen=True)
class QualityInputs:
    """What the quality scores read from the database besides the annotations (``quality_inputs``),
    so that their computation (``quality_scores``) touches no database and may run on a thread of
    its own beside the rest of the analysis."""

    speed: Any  # the spec's ``quality.speed``
    excluded: dict[int, dict[str, Any]]  # annotator id -> id, pseudonym, reason
    attention: dict[int, pd.DataFrame]
    gold: dict[int, tuple[int, int]]
    scored: list[Field]


def quality_inputs(*, study: Study, max_id: int) -> QualityInputs:
    """The excluded annotators, the check answers and the scored fields of ``study`` (three queries)."""
    excluded = {
        e["annotator_id"]: {k: e[k] for k in ("annotator_id", "pseudonym", "reason")}
        for e in excluded_annotators(study=study, max_id=max_id)
    }
    attention, gold = check_tallies(study)
    return QualityInputs(study.spec.quality.speed, excluded, attention, gold, scored_fields(study))


def quality_scores(
    inputs: QualityInputs,
    *,
    columns: AnnotationColumns,
    resamples: int,
    seed: int,
    on_field: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The quality part of an analysis result from ``inputs`` and the annotations (no database):
    the excluded annotators, the speed threshold, and per scored field its scores per pool (a
    table: ``columns``, and ``rows`` one per annotator, by annotator id; ``score_rows`` reads it)
    and alpha with and without the excluded annotators (None when none is excluded). ``columns``:
    the analysis's one read, with the excluded annotators' annotations and every scored key
    (``annotation_columns(..., excluded=True)``)."""
    speed, excluded = inputs.speed, inputs.excluded
    fields = []
    read = _Read.of(columns, [f.key for f in inputs.scored])
    for n, f in enumerate(inputs.scored, start=1):
        domain = _domain(f)
        tokens, rows = _kept_rows(read, f, domain)
        pools = []
        for pool_id, answers in _pool_frames(read, tokens, rows):
            try:
                scores = annotator_scores(
                    answers, level=f.level or "nominal", value_domain=domain, too_fast_seconds=speed.min_seconds,
                    too_fast_fraction=speed.median_share, competence="mace", seed=seed,
                    attention=inputs.attention.get(int(pool_id)),
                )
            except ValueError as exc:  # the scores are not computable here; the rest of the analysis stands
                pools.append({"pool_id": int(pool_id), "alpha": None, "columns": [], "rows": [], "error": str(exc)})
                continue
            pools.append({"pool_id": int(pool_id), "alpha": plain(scores.alpha), **_score_table(scores, inputs.gold)})
        with_without = None
        if excluded and len(rows):
            with_without = agreement_with_without(
                _frame(read, tokens, rows), excluded, f.level or "nominal", value_domain=domain,
                n_resamples=resamples, seed=seed,
            ).as_dict()
        fields.append({"key": f.key, "label": f.label, "level": f.level, "pools": pools, "with_without": with_without})
        if on_field:
            on_field(n)
    return _plain({
        "version": QUALITY_VERSION,
        "excluded": list(excluded.values()),
        "speed": {"min_seconds": speed.min_seconds, "median_share": speed.median_share},
        "competence": "mace",
        "fields": fields,
    })


class _Plain(list):
    """Rows made plain already (by column), which ``_plain`` leaves as they are."""


def _plain(value: Any) -> Any:
    """The result as JSON can hold it (numpy numbers unwrapped, NaN as None), all the way down: its
    dicts and lists (all made here) changed in place, not copied, a tuple made a list."""
    if isinstance(value, _Plain):
        return list(value)
    if isinstance(value, dict):
        for k, v in value.items():
            value[k] = _plain(v)
        return value
    if isinstance(value, list):
        for i, v in enumerate(value):
            value[i] = _plain(v)
        return value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return plain(value)

"""Annotations collected elsewhere, loaded so that they can be analysed and exported here.

The file is long-format: one row per (item, annotator, field) with ``item`` (the item's id in the
researcher's data), ``annotator`` (any stable id), ``country`` (the annotator's pool), ``field``
(a key of the study's protocol) and ``value`` (as the form would post it; a multi field's values
joined by ``|``). Every value is checked by the protocol engine's own field parser. Like
import_items, a file with any problem imports nothing and every problem names its line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from studies.importing.rows import read_rows
from studies.models import CountryPool, Item, ItemQuota, Study
from studies.protocol import SKIP, CandidateRef, Field, ItemContext

from .models import Annotation, Annotator, Assignment, Session
from .services import quota_count_late

COLUMNS = ("item", "annotator", "country", "field", "value")
SESSION_ID = "imported"


class AnnotationImportError(Exception):
    """A file that was not imported; ``errors`` lists every problem, each naming its line."""

    def __init__(self, errors: list[str]):
        super().__init__(f"nothing imported, {len(errors)} problem(s): " + "; ".join(errors[:5]))
        self.errors = errors


@dataclass(frozen=True)
class AnnotationImportReport:
    annotations: int
    annotators: int
    surplus: int

    def summary(self) -> str:
        extra = f", {self.surplus} beyond the items' quotas (kept as surplus)" if self.surplus else ""
        return f"Imported {self.annotations} annotations by {self.annotators} annotators{extra}"


@dataclass
class _Pending:
    item_id: int
    pool_id: int
    annotator: str
    answers: dict


def _value(f: Field, raw: str, item) -> object:
    """The clean value of one field (``FieldType.import_value``), or ValueError with the reason."""
    candidates = [CandidateRef(str(c.get("id")), "") for c in item.candidates or []]
    ctx = ItemContext(texts=item.text_map(), candidates=candidates)
    return f.kind.import_value(f, raw, ctx)


@dataclass
class _Known:
    """What the rows are checked against, read once; ``known_pool`` grows with the file's annotators."""

    fields: dict[str, Field]
    items: dict[str, Item]
    pools: dict[str, CountryPool]
    known_pool: dict[str, str]
    annotated: set[tuple[int, str]]
    routed: set[tuple[int, str]]

    @classmethod
    def of(cls, study: Study) -> _Known:
        return cls(
            fields={f.key: f for f in study.spec.fields},
            items={i.external_id: i for i in study.items.filter(is_example=False)},
            pools={p.country: p for p in study.pools.all()},
            known_pool=dict(Annotator.objects.filter(study=study).values_list("prolific_pid", "pool__country")),
            annotated=set(Annotation.objects.filter(study=study).values_list("item_id", "annotator__prolific_pid")),
            routed=set(ItemQuota.objects.filter(pool__study=study).values_list("item_id", "pool__country")),
        )

    def row(self, line: int, raw: dict) -> _Row:
        values = {key: str(raw.get(key, "")).strip() for key in COLUMNS}
        return _Row(
            line, values, self.items.get(values["item"]), self.fields.get(values["field"]), values["country"].upper()
        )


@dataclass(frozen=True)
class _Row:
    """One line of the file: its stripped values and the item and field they name (None if unknown)."""

    line: int
    values: dict[str, str]
    item: Item | None
    field: Field | None
    country: str


def _reference_problems(known: _Known, row: _Row) -> list[str]:
    """Empty columns, and an item or field this study does not have (or a field the format cannot carry)."""
    v = row.values
    problems = [f"'{key}' is empty" for key in COLUMNS if key != "value" and not v[key]]
    if v["item"] and row.item is None:
        problems.append(f"no item {v['item']!r} in this study")
    if v["field"] and row.field is None:
        problems.append(f"no field {v['field']!r} in this study's protocol (fields: {', '.join(known.fields)})")
    elif row.field is not None and not row.field.kind.importable:
        problems.append(f"field {row.field.key!r} is a {row.field.type} field, which this format cannot carry")
    return problems + _pool_problems(known, row)


def _pool_problems(known: _Known, row: _Row) -> list[str]:
    """The first thing wrong with the row's pool: none in this study, the item not routed, another pool's annotator."""
    country, annotator = row.country, row.values["annotator"]
    if not country:
        return []
    if country not in known.pools:
        return [f"country {country!r} has no pool in this study (pools: {', '.join(sorted(known.pools))})"]
    if row.item is not None and (row.item.pk, country) not in known.routed:
        return [f"item {row.values['item']!r} is not routed to the pool of {country}"]
    if known.known_pool.get(annotator, country) != country:
        return [f"annotator {annotator!r} is already in the pool of {known.known_pool[annotator]}"]
    return []


def _repeat_problems(known: _Known, row: _Row, seen: dict[tuple[str, str, str], int]) -> list[str]:
    """A second value in the file for one (item, annotator, field), or an annotation already here; notes the row."""
    v = row.values
    problems = []
    key = (v["item"], v["annotator"], v["field"])
    if key in seen:
        problems.append(f"a second value for this item, annotator and field (first on line {seen[key]})")
    seen.setdefault(key, row.line)
    if row.item is not None and (row.item.pk, v["annotator"]) in known.annotated:
        problems.append(f"annotator {v['annotator']!r} already has an annotation of item {v['item']!r}")
    return problems


def _read(study: Study, rows_file: Path) -> tuple[list[_Pending], list[str]]:
    known = _Known.of(study)
    pending: dict[tuple[int, str], _Pending] = {}
    seen: dict[tuple[str, str, str], int] = {}
    errors: list[str] = []
    for line, raw in read_rows(rows_file, required=COLUMNS):
        if isinstance(raw, str):
            errors.append(f"line {line}: {raw}")
            continue
        row = known.row(line, raw)
        problems = _reference_problems(known, row) + _repeat_problems(known, row, seen)
        raw_value = row.values["value"]
        if not problems and raw_value:
            try:
                answer = _value(row.field, raw_value, row.item)
            except ValueError as exc:
                problems.append(f"value {raw_value!r} of field {row.field.key!r}: {exc}")
        if problems:
            errors.extend(f"line {line}: {p}" for p in problems)
            continue
        if not raw_value:
            continue  # an empty value is an unanswered field
        annotator = row.values["annotator"]
        known.known_pool.setdefault(annotator, row.country)
        entry = pending.setdefault(
            (row.item.pk, annotator), _Pending(row.item.pk, known.pools[row.country].pk, annotator, {})
        )
        entry.answers[row.field.key] = answer
    return list(pending.values()), errors


def annotations_import(*, study: Study, rows_file: Path) -> AnnotationImportReport:
    """Import every row of ``rows_file`` or none; raise AnnotationImportError listing all problems."""
    pending, errors = _read(study, rows_file)
    if errors:
        raise AnnotationImportError(errors)
    if not pending:
        raise AnnotationImportError(["the file holds no values to import"])
    now = timezone.now()
    surplus = 0
    with transaction.atomic():
        annotators = {}
        for pid in sorted({p.annotator for p in pending}):
            pool_id = next(p.pool_id for p in pending if p.annotator == pid)
            annotator, _ = Annotator.objects.get_or_create(study=study, prolific_pid=pid, defaults={"pool_id": pool_id})
            session, _ = Session.objects.get_or_create(
                annotator=annotator, prolific_session_id=SESSION_ID,
                defaults={"prolific_study_id": SESSION_ID, "items_target": 0, "completed_at": now},
            )
            annotators[pid] = (annotator, session)
        positions: dict[int, int] = {}
        for p in pending:
            annotator, session = annotators[p.annotator]
            if session.pk not in positions:
                positions[session.pk] = session.assignments.count()
            positions[session.pk] += 1
            assignment = Assignment.objects.create(
                session=session, annotator=annotator, item_id=p.item_id, pool_id=p.pool_id,
                position=positions[session.pk], status=Assignment.Status.SUBMITTED, leased_at=now, expires_at=now,
            )
            took = quota_count_late(item_id=p.item_id, pool_id=p.pool_id)
            surplus += not took
            Annotation.objects.create(
                assignment=assignment, study=study, item_id=p.item_id, pool_id=p.pool_id, annotator=annotator,
                answers=p.answers, skipped=SKIP in p.answers, protocol_version=study.protocol_version, surplus=not took,
                time_spent_ms=0, started_at=now,
            )
    return AnnotationImportReport(annotations=len(pending), annotators=len(annotators), surplus=surplus)

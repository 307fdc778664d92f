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
from studies.models import ItemQuota, Study
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


def _read(study: Study, rows_file: Path) -> tuple[list[_Pending], list[str]]:
    fields = {f.key: f for f in study.spec.fields}
    items = {i.external_id: i for i in study.items.filter(is_example=False)}
    pools = {p.country: p for p in study.pools.all()}
    known_pool = dict(Annotator.objects.filter(study=study).values_list("prolific_pid", "pool__country"))
    annotated = set(Annotation.objects.filter(study=study).values_list("item_id", "annotator__prolific_pid"))
    routed = set(ItemQuota.objects.filter(pool__study=study).values_list("item_id", "pool__country"))
    pending: dict[tuple[int, str], _Pending] = {}
    seen: dict[tuple[str, str, str], int] = {}
    errors: list[str] = []
    for line, raw in read_rows(rows_file, required=COLUMNS):
        if isinstance(raw, str):
            errors.append(f"line {line}: {raw}")
            continue
        values = {key: str(raw.get(key, "")).strip() for key in COLUMNS}
        problems = [f"'{key}' is empty" for key in COLUMNS if key != "value" and not values[key]]
        item = items.get(values["item"])
        f = fields.get(values["field"])
        country = values["country"].upper()
        if values["item"] and item is None:
            problems.append(f"no item {values['item']!r} in this study")
        if values["field"] and f is None:
            problems.append(f"no field {values['field']!r} in this study's protocol (fields: {', '.join(fields)})")
        elif f is not None and not f.kind.importable:
            problems.append(f"field {f.key!r} is a {f.type} field, which this format cannot carry")
        if country and country not in pools:
            problems.append(f"country {country!r} has no pool in this study (pools: {', '.join(sorted(pools))})")
        elif item is not None and country and (item.pk, country) not in routed:
            problems.append(f"item {values['item']!r} is not routed to the pool of {country}")
        elif country and known_pool.get(values["annotator"], country) != country:
            problems.append(
                f"annotator {values['annotator']!r} is already in the pool of {known_pool[values['annotator']]}"
            )
        key = (values["item"], values["annotator"], values["field"])
        if key in seen:
            problems.append(f"a second value for this item, annotator and field (first on line {seen[key]})")
        seen.setdefault(key, line)
        if item is not None and (item.pk, values["annotator"]) in annotated:
            problems.append(f"annotator {values['annotator']!r} already has an annotation of item {values['item']!r}")
        if not problems and values["value"]:
            try:
                answer = _value(f, values["value"], item)
            except ValueError as exc:
                problems.append(f"value {values['value']!r} of field {f.key!r}: {exc}")
        if problems:
            errors.extend(f"line {line}: {p}" for p in problems)
            continue
        if not values["value"]:
            continue  # an empty value is an unanswered field
        known_pool.setdefault(values["annotator"], country)
        entry = pending.setdefault(
            (item.pk, values["annotator"]), _Pending(item.pk, pools[country].pk, values["annotator"], {})
        )
        entry.answers[f.key] = answer
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

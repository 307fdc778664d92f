"""Small builders for analysis and export tests: submitted annotations without the lease dance."""

import itertools
from datetime import timedelta

from django.utils import timezone

from annotation.models import Annotation, Assignment, Session
from studies.protocol import ItemContext, validate

from .. import factories as f

_positions = itertools.count(1)


def answers_for(item, **overrides) -> dict:
    """Clean answers as the protocol engine stores them (validated, hidden fields left out)."""
    form = f.valid_answers(**{k: [str(x) for x in v] if isinstance(v, list) else str(v) for k, v in overrides.items()})
    result = validate(item.study.spec, form, ItemContext(texts=item.text_map()))
    assert result.ok, result.errors
    return result.answers


def annotate(annotator, item, answers=None, *, surplus=False, time_spent_ms=42_000, **overrides) -> Annotation:
    """A submitted annotation of ``item`` by ``annotator`` (in their own pool), with its assignment."""
    now = timezone.now()
    session = Session.objects.filter(annotator=annotator).first() or f.make_session(annotator)
    assignment = Assignment.objects.create(
        session=session,
        annotator=annotator,
        item=item,
        pool=annotator.pool,
        position=next(_positions),
        status=Assignment.Status.SUBMITTED,
        leased_at=now - timedelta(minutes=1),
        expires_at=now + timedelta(minutes=29),
    )
    return Annotation.objects.create(
        assignment=assignment,
        study=item.study,
        item=item,
        pool=annotator.pool,
        annotator=annotator,
        answers=answers if answers is not None else answers_for(item, **overrides),
        protocol_version=item.study.protocol_version,
        surplus=surplus,
        time_spent_ms=time_spent_ms,
        started_at=now - timedelta(milliseconds=time_spent_ms),
    )


def annotators(pool, n):
    return [f.make_annotator(pool) for _ in range(n)]

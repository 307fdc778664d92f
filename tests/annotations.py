"""Submitted annotations without the lease dance, for analysis, export and review tests."""

import itertools
from datetime import timedelta

from django.utils import timezone

from annotation.models import Annotation, Assignment, Session
from studies.models import Document, Study
from studies.protocol import SKIP, CandidateRef, DocumentRef, ItemContext, validate
from studies.services import study_create

from . import factories as f

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
        answers=(answers := answers if answers is not None else answers_for(item, **overrides)),
        skipped=SKIP in answers,
        protocol_version=item.study.protocol_version,
        surplus=surplus,
        time_spent_ms=time_spent_ms,
        started_at=now - timedelta(milliseconds=time_spent_ms),
    )


def annotators(pool, n):
    return [f.make_annotator(pool) for _ in range(n)]


# --- studies with an inline protocol, and answers of every field type -------------------------


def inline_study(owner, protocol, *, name="Inline study", **settings) -> Study:
    """An open study running ``protocol`` (a spec written in the test)."""
    codes = {
        "code_completed": "DONE1", "code_failed_mock": "FAIL1",
        "code_not_eligible": "NOTEL1", "code_no_consent": "NOCON1",
    }
    return study_create(owner=owner, name=name, protocol=protocol, status=Study.Status.OPEN, **{**codes, **settings})


def add_documents(item, n=2) -> list[Document]:
    return [
        Document.objects.create(
            item=item, position=i, title=f"{item.external_id} article {i}",
            url=f"https://en.wikipedia.org/wiki/{item.external_id}_{i}", text="An article.",
        )
        for i in range(n)
    ]


def submitted(item, form: dict, *, documents=(), candidates=None, uploads=()) -> dict:
    """Answers as the protocol engine stores them for ``form`` (what the page posts), in the
    context of ``item``: its documents, its candidates in the order shown, the uploads made."""
    ctx = ItemContext(
        texts=item.text_map(),
        image=(item.width, item.height) if item.width else None,
        documents=[DocumentRef(d.pk, d.title) for d in documents],
        candidates=[CandidateRef(str(c["id"]), str(c["text"])) for c in (candidates or item.candidates)],
        uploads={u.token: u for u in uploads},
    )
    data = {k: v if isinstance(v, list) else [v] for k, v in form.items()}
    result = validate(item.study.spec, data, ctx)
    assert result.ok, result.errors
    return result.answers


def run_now(study, owner):
    """An analysis of ``study`` run now, in this process; it must succeed."""
    from analysis.models import AnalysisRun
    from analysis.services import analysis_run

    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner, resamples=0).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return run


def rate_mostly_alike(pool, items) -> None:
    """Three annotators of ``pool`` rate ``items`` (a CulturalFrames rating), mostly alike: the third
    is one step off on the alignment."""
    raters = annotators(pool, 3)
    for n, item in enumerate(items):
        for r, rater in enumerate(raters):
            annotate(rater, item, alignment=[0, 0.5, 1][(n + (r == 2)) % 3], stereotype="no", quality=1, overall=n + 1)


# --- two countries that agree differently (Gwet, ICC, the differences between countries) -------

TWO_COUNTRIES_PROTOCOL = {"fields": [
    {"key": "fits", "type": "choice", "level": "nominal", "choices": ["yes", "no"]},
    {"key": "score", "type": "scale", "level": "interval", "choices": [1, 2, 3, 4, 5]},
]}
# Per pool: each item's answers by three annotators (fits, score). India agrees, Kenya does not.
TWO_COUNTRIES = {
    "IN": [[("yes", 5)] * 3, [("yes", 4)] * 3, [("no", 1), ("no", 1), ("no", 2)], [("yes", 4)] * 3,
           [("yes", 3), ("yes", 3), ("no", 3)], [("no", 2)] * 3],
    "KE": [[("yes", 5), ("no", 1), ("yes", 3)], [("no", 4), ("yes", 2), ("yes", 5)],
           [("yes", 1), ("no", 5), ("no", 3)], [("yes", 2), ("yes", 4), ("no", 1)],
           [("no", 3), ("yes", 5), ("yes", 2)], [("yes", 1), ("no", 4), ("yes", 5)]],
}


def two_countries_study(owner) -> Study:
    """A study of two pools rating six items each, three annotators per item (``TWO_COUNTRIES``)."""
    study = study_create(owner=owner, name="Two countries", protocol=TWO_COUNTRIES_PROTOCOL, code_completed="A",
                         code_failed_mock="B", code_not_eligible="C", code_no_consent="D")
    for country, per_item in TWO_COUNTRIES.items():
        pool = f.make_pool(study, country, {"IN": "India", "KE": "Kenya"}[country])
        items = f.make_items(study, country, len(per_item))
        raters = annotators(pool, 3)
        for item, answers in zip(items, per_item, strict=True):
            for rater, (fits, score) in zip(raters, answers, strict=True):
                annotate(rater, item, {"fits": fits, "score": score})
    return study

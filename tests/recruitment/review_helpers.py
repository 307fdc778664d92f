"""Shared set-up of the review tests: a pool's study live on the fake Prolific, participants who
take part (through the platform, or only on Prolific) and the submission rows read back."""

import itertools

from annotation.models import Review
from annotation.services import annotation_submit, assignment_next, session_complete
from recruitment.models import ProlificSubmission
from recruitment.services import LaunchOptions, prolific_study_launch, prolific_study_transition
from recruitment.services.sync import prolific_study_sync

from .. import factories as f

OPTIONS = LaunchOptions(reward=150, estimated_minutes=10)
_pids = itertools.count(1)


def go_live(fake, owner, pool):
    """The pool's study, published on Prolific, with room for many participants (the test
    modules' ``live`` fixture)."""
    row = prolific_study_launch(pool=pool, user=owner, options=OPTIONS).prolific_study
    prolific_study_transition(prolific_study=row, verb="publish", user=owner)
    fake.studies[row.prolific_id]["total_available_places"] = 50
    return row


def take_part(fake, row, *, code=None, annotate=True, pid=None) -> str:
    """A participant starts on Prolific; with ``annotate``, comes to the platform (an annotator and
    a session keyed by SESSION_ID) and submits every item; then finishes with ``code`` (the
    study's "completed" code by default). Returns the submission id."""
    pid = pid or f"pid{next(_pids):021d}"
    sid = fake.submission_start(row.prolific_id, pid)
    if annotate:
        session = f.make_session(f.make_annotator(row.pool, pid), sid)
        while (assignment := assignment_next(session=session)) is not None:
            annotation_submit(assignment=assignment, data=f.valid_answers())
        session_complete(session=session)  # as the item page does when no item is left
    fake.submission_finish(sid, code or row.pool.study.code_completed)
    return sid


def read_back(row, user) -> dict[str, ProlificSubmission]:
    prolific_study_sync(prolific_study=row, user=user)
    return {s.prolific_id: s for s in ProlificSubmission.objects.filter(prolific_study=row)}


def flag(sub: ProlificSubmission, checker, outcomes: list[str]) -> None:
    """The quality check's verdicts on the participant's annotations, in order."""
    annotations = sub.session.annotator.annotations.order_by("pk")
    for annotation, outcome in zip(annotations, outcomes, strict=False):
        Review.objects.create(annotation=annotation, reviewer=checker, outcome=outcome)

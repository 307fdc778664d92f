"""The study's choice whether a returned participant's annotations count: by default they do not
(kept, but their slots reopen and the analysis and the export leave them out); counted when the
researcher says so, and changing the choice applies to those who returned already."""

import csv
import io

import pytest
from django.core.files.storage import default_storage
from django.db.models import F
from django.test import Client
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.reader import annotation_columns
from analysis.services import analysis_run
from annotation.models import Annotation, Annotator
from annotation.services import annotation_submit, assignment_next
from exports.services import export_build, export_start
from recruitment.models import ProlificSubmission, RecruitmentPolicy
from recruitment.services import recruitment_policy_set
from recruitment.tasks import prolific_sync_task
from studies.models import ItemQuota
from tests import factories as f
from tests.helpers import enter, login


@pytest.fixture
def annotated_then_returned(client, fake_prolific, participant, pool):
    """The Prolific participant annotates two items, then returns their submission (the sync
    learns it); another annotator (not from Prolific) annotates one item."""
    pid, study_id, session_id = participant
    enter(client, pool, pid=pid, study_id=study_id, session_id=session_id)
    Annotator.objects.update(consented_at="2026-01-01T00:00Z", cleared_at="2026-01-01T00:00Z")
    session = ProlificSubmission.objects.get().session
    mine = [
        annotation_submit(assignment=assignment_next(session=session), data=f.valid_answers()).annotation
        for _ in range(2)
    ]
    other_session = f.make_session(f.make_annotator(pool))
    theirs = annotation_submit(assignment=assignment_next(session=other_session), data=f.valid_answers()).annotation
    fake_prolific.submission_return(session_id)
    return mine, theirs


def done(pool):
    return sum(ItemQuota.objects.filter(pool=pool).values_list("done", flat=True))


def analysed_ids(study):
    columns = annotation_columns(study=study, max_id=10**9, keys=["overall"], native=True)
    orm = annotation_columns(study=study, max_id=10**9, keys=["overall"], native=False)
    assert len(columns) == len(orm)
    return len(columns)


def exported_rows(study, owner):
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    job = export_build(job_id=export_start(study=study, user=owner).pk)
    with default_storage.open(job.file.name, "rb") as fh:
        return list(csv.DictReader(io.StringIO(fh.read().decode("utf-8"))))


def test_by_default_a_returned_participants_annotations_do_not_count(annotated_then_returned, study, pool, owner):
    mine, theirs = annotated_then_returned
    assert done(pool) == 3
    prolific_sync_task.delay()
    assert set(Annotation.objects.filter(withdrawn=True)) == set(mine)  # kept, not counted
    assert done(pool) == 1  # their two slots reopened
    assert analysed_ids(study) == 1
    rows = exported_rows(study, owner)
    assert len(rows) == 1 and rows[0]["annotator"] == theirs.annotator.pseudonym
    prolific_sync_task.delay()  # again: nothing more
    assert done(pool) == 1


def test_the_researcher_may_count_them(annotated_then_returned, study, pool, owner):
    response = login(Client(), owner).post(
        reverse("recruitment:study-policy", args=[study.pk]), {"count_returned": "on"}
    )
    assert response.status_code == 302 and RecruitmentPolicy.objects.get(study=study).count_returned
    prolific_sync_task.delay()
    assert not Annotation.objects.filter(withdrawn=True).exists()
    assert done(pool) == 3 and analysed_ids(study) == 3 and len(exported_rows(study, owner)) == 3


def test_changing_the_choice_applies_to_those_who_returned_already(annotated_then_returned, study, pool, owner):
    prolific_sync_task.delay()
    assert recruitment_policy_set(study=study, count_returned=True, user=owner) == 2
    assert not Annotation.objects.filter(withdrawn=True).exists() and done(pool) == 3
    assert analysed_ids(study) == 3
    assert recruitment_policy_set(study=study, count_returned=False, user=owner) == 2
    assert done(pool) == 1 and analysed_ids(study) == 1


def test_a_reopened_slot_is_taken_and_recounting_keeps_the_late_one_as_surplus(annotated_then_returned, study, pool):
    mine, _ = annotated_then_returned
    prolific_sync_task.delay()
    full = ItemQuota.objects.filter(pool=pool, item__in=[a.item for a in mine])
    full.update(done=F("wanted") - F("leased"))  # other annotators filled the reopened slots
    before = done(pool)
    recruitment_policy_set(study=study, count_returned=True, user=None)
    assert set(Annotation.objects.filter(surplus=True)) == set(mine)
    assert done(pool) == before  # never over the quota


def test_only_the_owner_may_choose(annotated_then_returned, study, other_researcher):
    url = reverse("recruitment:study-policy", args=[study.pk])
    assert login(Client(), other_researcher).post(url, {"count_returned": "on"}).status_code == 404
    assert not RecruitmentPolicy.objects.exists()


def test_the_page_shows_the_choice(annotated_then_returned, study, owner):
    page = login(Client(), owner).get(reverse("recruitment:study-prolific", args=[study.pk])).content.decode()
    assert "Participants who return" in page and 'name="count_returned"' in page

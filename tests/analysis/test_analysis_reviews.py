"""The quality check in the analysis: a flagged annotation is left out of every figure and of the
export, a new review makes the analysis stale, and the review figures show on the page."""

import csv
import io
import zipfile

import pytest
from django.urls import reverse

from analysis.fingerprint import Fingerprint, data_fingerprint, staleness
from analysis.models import AnalysisRun
from analysis.reader import annotation_columns
from analysis.services import analysis_run
from annotation.reviews.services import review_submit
from exports.models import ExportJob
from exports.services import export_start
from tests.factories import AS_GIVEN


def review(annotation, reviewer, outcome, **changes):
    data = {**AS_GIVEN, **{k: [v] for k, v in changes.items()}}
    result = review_submit(annotation=annotation, reviewer=reviewer, outcome=outcome, data=data,
                           note="" if outcome == "accepted" else "Wrong alignment.")
    assert result.ok, result.errors
    return result.review


def run_now(study, owner):
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return run


def test_a_flagged_annotation_is_left_out_of_the_read_and_the_fingerprint(study, annotated, checker):
    before = data_fingerprint(study=study)
    review(annotated[0], checker, "flagged", overall="1")
    review(annotated[1], checker, "accepted")
    after = data_fingerprint(study=study)
    assert (before.count, after.count) == (6, 5) and (after.reviews, before.reviews) == (2, 0)
    assert after.max_id == before.max_id and not staleness(before.text, after).current
    for native in (True, False):
        columns = annotation_columns(study=study, max_id=after.max_id, keys=["overall"], native=native)
        assert len(columns) == 5 and annotated[0].item_id not in columns.item[:1].tolist()


def test_an_accepted_review_alone_still_makes_the_analysis_stale(study, annotated, checker):
    before = data_fingerprint(study=study)
    review(annotated[2], checker, "accepted")
    after = data_fingerprint(study=study)
    assert after.count == before.count and after.text != before.text
    assert staleness(before.text, after) == staleness(before.text, after).__class__(current=False, new_annotations=0)


def test_fingerprints_round_trip_and_others_are_refused():
    fp = Fingerprint(5, 12, "2026-11-23T12:00:00+00:00", 2, 7)
    assert Fingerprint.parse(fp.text) == fp
    assert staleness(fp.text, fp).current
    assert staleness(Fingerprint(3, 10, "2026-11-23T11:00:00+00:00", 2, 7).text, fp).new_annotations == 2
    for text in ("", "5:12:2026-11-23T12:00:00+00:00", "five:12:2.7:x"):
        with pytest.raises(ValueError):
            Fingerprint.parse(text)
        assert staleness(text, fp) == staleness(text, fp).__class__(current=False, new_annotations=0)


def test_the_analysis_counts_without_the_flagged_and_shows_the_quality_check(client, owner, study, annotated, checker):
    review(annotated[0], checker, "flagged", overall="1")
    review(annotated[1], checker, "accepted")
    run = run_now(study, owner)
    assert run.result["annotations"] == 5
    overall = next(f for f in run.result["fields"] if f["key"] == "overall")
    assert overall["overall"]["n_ratings"] == 4  # the flagged item's one remaining rating pairs with none
    assert run.result["review"]["n_reviews"] == 2 and run.result["review"]["overall"]["acceptance_rate"] == 0.5
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert 'id="quality-check"' in html and "Quality check: checker against annotator" in html
    dashboard = client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()
    assert reverse("annotation:review-study", args=[study.pk]) in dashboard


def test_without_reviews_the_page_has_no_quality_check(client, owner, study, annotated):
    run = run_now(study, owner)
    assert run.result["review"] is None
    client.force_login(owner)
    assert 'id="quality-check"' not in client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()


def test_the_export_leaves_the_flagged_annotation_out(
    owner, study, annotated, checker, django_capture_on_commit_callbacks
):
    review(annotated[0], checker, "flagged", overall="1")
    run_now(study, owner)
    with django_capture_on_commit_callbacks(execute=True):
        job = export_start(study=study, user=owner)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE and job.rows == 5
    data = job.file.read()
    text = zipfile.ZipFile(io.BytesIO(data)).read("annotations.csv").decode() if job.is_zip else data.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 5

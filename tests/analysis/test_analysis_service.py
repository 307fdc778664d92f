"""The analysis service: alpha per analysable field, overall and per pool, from stored annotations."""

from unittest import mock

import krippendorff
import numpy as np
import pytest

from analysis.fingerprint import data_fingerprint, staleness
from analysis.models import AnalysisRun
from analysis.services import analysis_run, analysis_start
from studies.services import study_create
from tests import factories as f
from tests.annotations import annotate, annotators

NAN = np.nan
# Ratings by pool: {item index: [rating of annotator 0, 1, 2]}; None = that annotator skipped it.
IN = {
    "alignment": [[1, 1, 0.5], [0, 0, 0], [0.5, 1, None]],
    "quality": [[1, 1, 1], [0.5, 0, 0.5], [1, 0.5, None]],
    "overall": [[5, 4, 4], [1, 2, 1], [3, 3, None]],
    "stereotype": [["no", "no", "yes"], ["no", "no", "no"], ["yes", "yes", None]],
}
JP = {
    "alignment": [[1, 1, 1], [0, 0.5, 0]],
    "quality": [[0, 0, 0.5], [1, 1, 1]],
    "overall": [[4, 4, 5], [2, 3, 2]],
    "stereotype": [["yes", "no", "no"], ["no", "no", "yes"]],
}
DOMAINS = {"alignment": [0, 0.5, 1], "quality": [0, 0.5, 1], "overall": [1, 2, 3, 4, 5], "stereotype": ["no", "yes"]}
LEVELS = {"alignment": "ordinal", "quality": "ordinal", "overall": "ordinal", "stereotype": "nominal"}


def fill(pool_ratings, raters, items):
    for i, item in enumerate(items):
        for r, annotator in enumerate(raters):
            if pool_ratings["alignment"][i][r] is None:
                continue
            values = {key: pool_ratings[key][i][r] for key in pool_ratings}
            extra = {"stereotype_description": "A cliché of the festival."} if values["stereotype"] == "yes" else {}
            annotate(annotator, item, **values, **extra)


def expected_alpha(key, *pools):
    """Krippendorff's alpha computed independently: raters × units matrix, reliability_data API."""
    domain = DOMAINS[key]
    code = {v: i for i, v in enumerate(domain)}
    units = [ratings for pool in pools for ratings in pool[key]]
    n_raters = 3 * len(pools)
    data = np.full((n_raters, len(units)), NAN)
    col = 0
    for p, pool in enumerate(pools):
        for ratings in pool[key]:
            for r, value in enumerate(ratings):
                if value is not None:
                    data[3 * p + r, col] = code[value]
            col += 1
    return krippendorff.alpha(
        reliability_data=data, value_domain=list(range(len(domain))), level_of_measurement=LEVELS[key]
    )


@pytest.fixture
def rated(study, pool, other_pool, items):
    fill(IN, annotators(pool, 3), items[:3])
    fill(JP, annotators(other_pool, 3), items[3:])
    return study


def run_now(study, owner):
    run = AnalysisRun.objects.create(study=study, requested_by=owner)
    return analysis_run(run_id=run.pk)


def test_it_computes_alpha_per_field_overall_and_per_pool(rated, owner):
    run = run_now(rated, owner)
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert run.progress == 100
    result = run.result
    assert result["annotations"] == 14
    fields = {f["key"]: f for f in result["fields"]}
    assert list(fields) == ["alignment", "stereotype", "quality", "overall"]  # spec order
    for key in fields:
        assert fields[key]["level"] == LEVELS[key]
        assert fields[key]["overall"]["alpha"] == pytest.approx(expected_alpha(key, IN, JP), abs=1e-9)
        pools = {p["country"]: p for p in fields[key]["pools"]}
        assert pools["IN"]["alpha"] == pytest.approx(expected_alpha(key, IN), abs=1e-9)
        assert pools["JP"]["alpha"] == pytest.approx(expected_alpha(key, JP), abs=1e-9)
        assert (pools["IN"]["n_units"], pools["IN"]["n_ratings"]) == (3, 8)
        assert (pools["JP"]["n_units"], pools["JP"]["n_ratings"]) == (2, 6)
        assert (fields[key]["overall"]["n_units"], fields[key]["overall"]["n_ratings"]) == (5, 14)


def test_it_records_the_data_it_saw(rated, owner):
    run = run_now(rated, owner)
    assert run.data_fingerprint == data_fingerprint(study=rated).text
    assert run.started_at and run.finished_at


def test_it_reports_why_alpha_is_undefined(study, pool, other_pool, items, owner):
    a, b = annotators(pool, 2)
    for item in items[:3]:
        annotate(a, item, stereotype="no")
        annotate(b, item, stereotype="no")
    run = run_now(study, owner)
    stereotype = next(f for f in run.result["fields"] if f["key"] == "stereotype")
    assert stereotype["overall"]["alpha"] is None
    assert "no variation" in stereotype["overall"]["reason"]
    japan = next(p for p in stereotype["pools"] if p["country"] == "JP")
    assert japan["alpha"] is None and japan["n_units"] == 0
    assert "fewer than 2 units" in japan["reason"]


def test_it_analyses_any_protocol_generically(owner):
    protocol = {
        "fields": [
            {"key": "topics", "type": "multi", "level": "nominal", "choices": ["a", "b", "c"]},
            {"key": "score", "type": "scale", "level": "interval", "choices": [3, 1, 2]},
            {"key": "note", "type": "text", "required": False},
        ]
    }
    study = study_create(
        owner=owner, name="Generic", protocol=protocol,
        code_completed="A", code_failed_mock="B", code_not_eligible="C", code_no_consent="D",
    )
    pool = f.make_pool(study)
    items = f.make_items(study, n=3)
    raters = annotators(pool, 2)
    given = {  # item: (rater 0, rater 1) as (topics, score)
        0: ((["a"], 1), (["a"], 1)),
        1: ((["b", "a"], 3), (["a", "b"], 2)),
        2: ((["c"], 2), (["b"], 2)),
    }
    for i, pair in given.items():
        for rater, (topics, score) in zip(raters, pair, strict=True):
            annotate(rater, items[i], {"topics": topics, "score": score})
    run = run_now(study, owner)
    fields = {f["key"]: f for f in run.result["fields"]}
    assert set(fields) == {"topics", "score"}
    # A set of ticks is one nominal value, whatever order it was ticked in.
    assert fields["topics"]["values"] == ["a", "a|b", "c", "b"]
    topics = np.array([[0, 1, 2], [0, 1, 3]], dtype=float)
    assert fields["topics"]["overall"]["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=topics, level_of_measurement="nominal"), abs=1e-9
    )
    scores = np.array([[1, 3, 2], [1, 2, 2]], dtype=float)
    assert fields["score"]["values"] == ["1", "2", "3"]  # a scale's domain is in numeric order
    assert fields["score"]["overall"]["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=scores, value_domain=[1, 2, 3], level_of_measurement="interval"), abs=1e-9
    )


def test_it_leaves_out_answers_outside_the_current_choices(study, pool, items, owner):
    raters = annotators(pool, 2)
    for item in items[:3]:
        annotate(raters[0], item, quality=1)
        annotate(raters[1], item, quality=0)
    stale = annotate(raters[0], f.make_item(study), quality=1)
    stale.answers["quality"] = 0.25  # a point an older protocol version had
    stale.save()
    run = run_now(study, owner)
    quality = next(f for f in run.result["fields"] if f["key"] == "quality")
    assert quality["out_of_domain"] == 1
    assert quality["overall"]["n_ratings"] == 6


def test_it_records_a_failure_in_plain_words(rated, owner):
    with mock.patch("analysis.services.field_agreement", side_effect=MemoryError("out of memory")):
        run = run_now(rated, owner)
    assert run.status == AnalysisRun.Status.FAILED
    assert "The analysis stopped because of an unexpected error (MemoryError: out of memory)" in run.error
    assert run.result is None


def test_it_runs_a_job_once(rated, owner):
    run = run_now(rated, owner)
    finished = run.finished_at
    again = analysis_run(run_id=run.pk)  # a redelivered task
    assert again.finished_at == finished


def test_it_detects_new_annotations_as_stale(rated, owner, items):
    run = run_now(rated, owner)
    assert staleness(run.data_fingerprint, data_fingerprint(study=rated)).current
    late = f.make_annotator(items[0].study.pools.get(country="IN"))
    annotate(late, items[0])
    annotate(late, items[1])
    state = staleness(run.data_fingerprint, data_fingerprint(study=rated))
    assert not state.current
    assert state.new_annotations == 2


def test_it_queues_the_run_after_commit(rated, owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run = analysis_start(study=rated, user=owner)
        assert AnalysisRun.objects.get(pk=run.pk).status == AnalysisRun.Status.QUEUED
    assert len(callbacks) == 1
    run.refresh_from_db()
    assert run.status == AnalysisRun.Status.DONE
    assert run.requested_by == owner


def test_it_finishes_on_a_study_without_annotations(study, pool, owner):
    run = run_now(study, owner)
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert run.result["annotations"] == 0
    assert all(f["overall"]["alpha"] is None for f in run.result["fields"])


def test_a_second_start_on_the_same_data_returns_the_active_run(db, owner):
    from analysis.models import AnalysisRun
    from analysis.services import analysis_start
    from tests import factories as f

    study = f.make_study(owner)
    first = analysis_start(study=study, user=owner)  # queued: on_commit never fires in this test
    second = analysis_start(study=study, user=owner)
    assert second.pk == first.pk
    assert AnalysisRun.objects.count() == 1


def test_an_old_unfinished_run_does_not_block_a_new_one(db, owner):
    from datetime import timedelta

    from django.utils import timezone

    from analysis.models import AnalysisRun
    from analysis.services import analysis_start
    from tests import factories as f

    study = f.make_study(owner)
    orphan = analysis_start(study=study, user=owner)
    AnalysisRun.objects.filter(pk=orphan.pk).update(status="running", created_at=timezone.now() - timedelta(hours=1))
    assert analysis_start(study=study, user=owner).pk != orphan.pk

"""Quality control in the analysis job: per pool and scored field, each annotator's scores; alpha
with and without the excluded annotators. Excluding an annotator changes the analysis, including
them again brings it back."""

import pytest

from analysis.quality import score_rows, scored_fields
from annotation.services import annotator_exclude, annotator_include
from tests import factories as f
from tests.annotations import run_now


def field_of(result, key):
    return next(f for f in result["fields"] if f["key"] == key)


def test_it_scores_the_categorical_fields(study):
    assert [f.key for f in scored_fields(study)] == ["alignment", "stereotype", "quality"]


def test_it_scores_each_annotator_of_each_pool(study, pool, owner, rated):
    quality = run_now(study, owner).result["quality"]
    alignment = field_of(quality, "alignment")
    (india,) = alignment["pools"]
    assert india["pool_id"] == pool.pk
    rows = {r["annotator_id"]: r for r in score_rows(india)}
    assert set(rows) == {a.pk for a in rated}
    odd = rows[rated[3].pk]
    assert odd["answers"] == 4 and odd["median_seconds"] == 2.0
    assert odd["agreement"] < min(rows[a.pk]["agreement"] for a in rated[:3])
    assert odd["gold_accuracy"] is None and odd["attention_passed"] is None  # no gold, no checks yet
    assert odd["too_fast_share"] is None  # the spec sets no speed threshold
    assert 0 <= odd["competence"] <= 1
    assert alignment["with_without"] is None and quality["excluded"] == []


def test_excluding_changes_the_analysis_and_including_brings_it_back(study, owner, rated):
    before = run_now(study, owner).result
    odd = rated[3]
    annotator_exclude(annotator=odd, by=owner, reason="Disagrees with everyone, answers in 2 s")
    after = run_now(study, owner).result
    assert after["annotations"] == before["annotations"] - 4
    alpha = field_of(after, "alignment")["overall"]["alpha"]
    assert alpha > field_of(before, "alignment")["overall"]["alpha"]
    quality = after["quality"]
    assert quality["excluded"] == [
        {"annotator_id": odd.pk, "pseudonym": odd.pseudonym, "reason": "Disagrees with everyone, answers in 2 s"}
    ]
    both = field_of(quality, "alignment")["with_without"]
    assert both["all"]["answers"] == 16 and both["without"]["answers"] == 12
    assert both["without"]["alpha"] == pytest.approx(alpha)
    assert both["all"]["alpha"] == pytest.approx(field_of(before, "alignment")["overall"]["alpha"])
    rows = {r["annotator_id"] for r in score_rows(field_of(quality, "alignment")["pools"][0])}
    assert odd.pk in rows  # an excluded annotator keeps their figures
    annotator_include(annotator=odd)
    again = run_now(study, owner).result
    first = field_of(before, "alignment")["overall"]["alpha"]
    assert field_of(again, "alignment")["overall"]["alpha"] == pytest.approx(first)
    assert field_of(again["quality"], "alignment")["with_without"] is None


def test_the_speed_threshold_comes_from_the_spec(study, owner, rated):
    spec = {**study.protocol, "quality": {"speed": {"min_seconds": 3}}}
    type(study).objects.filter(pk=study.pk).update(protocol=spec)
    study.refresh_from_db()
    quality = run_now(study, owner).result["quality"]
    assert quality["speed"] == {"min_seconds": 3, "median_share": None}
    rows = {r["annotator_id"]: r for r in score_rows(field_of(quality, "alignment")["pools"][0])}
    assert rows[rated[3].pk]["too_fast_share"] == 1.0
    assert rows[rated[0].pk]["too_fast_share"] == 0.0


def check_answer(annotator, kind, passed, position):
    """``annotator`` answered a check item of ``kind`` (``passed`` or not) at ``position`` of a session."""
    from django.utils import timezone

    from annotation.models import Assignment, CheckAnswer

    item = f.make_item(annotator.study, "IN", check_kind=kind, expected={"overall": 5})
    session = annotator.sessions.first() or f.make_session(annotator)
    now = timezone.now()
    assignment = Assignment.objects.create(session=session, annotator=annotator, item=item, pool=annotator.pool,
                                           position=position, leased_at=now, expires_at=now, status="submitted")
    CheckAnswer.objects.create(assignment=assignment, annotator=annotator, session=session, item=item, kind=kind,
                               answers={"overall": 5 if passed else 1}, passed=passed, time_spent_ms=1000)


def test_attention_checks_and_gold_items_score_each_annotator(study, pool, owner, rated):
    first, second = rated[0], rated[3]
    check_answer(first, "attention", True, 101)
    check_answer(first, "gold", True, 102)
    check_answer(first, "gold", False, 103)
    check_answer(second, "attention", False, 101)
    check_answer(second, "attention", True, 102)
    quality = run_now(study, owner).result["quality"]
    rows = {r["annotator_id"]: r for r in score_rows(field_of(quality, "alignment")["pools"][0])}
    assert (rows[first.pk]["attention_passed"], rows[first.pk]["attention_failed"]) == (1, 0)
    row = rows[first.pk]
    assert (row["gold_items"], row["gold_correct"], row["gold_accuracy"]) == (2, 1, 0.5)
    assert (rows[second.pk]["attention_passed"], rows[second.pk]["attention_failed"]) == (1, 1)
    assert rows[second.pk]["gold_accuracy"] is None  # no gold item taken
    assert rows[rated[1].pk]["attention_passed"] in (0, None)  # took no check


def test_a_pools_scores_are_a_table_and_a_run_stored_before_as_dicts_still_reads(study, owner, rated):
    quality = run_now(study, owner).result["quality"]
    india = field_of(quality, "alignment")["pools"][0]
    assert quality["version"] == 2
    assert india["columns"][0] == "annotator_id" and all(isinstance(r, list) for r in india["rows"])
    rows = score_rows(india)
    assert [r["annotator_id"] for r in rows] == [row[0] for row in india["rows"]]
    older = {"pool_id": india["pool_id"], "rows": rows}  # version 1: a dict per annotator
    assert score_rows(older) == rows
    assert score_rows({"pool_id": 1, "rows": ["not a row"]}) == []

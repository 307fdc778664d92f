"""Attention checks and gold items in the session: planned once, served at their places without a
quota, checked, kept apart from the annotations; failed checks warn once, then end the session with
the failed-check code."""

from collections import Counter

import pytest
from django.urls import reverse

from annotation.models import Annotation, Annotator, Assignment, CheckAnswer, Session
from annotation.selectors import ending_for
from annotation.services import (
    annotation_submit,
    assignment_next,
    lease_release,
    session_complete,
    session_submitted_count,
)
from annotation.services.checks import session_schedule_make
from studies.models import CheckKind, ItemQuota
from studies.protocol import SKIP
from studies.services import preset_load
from tests import factories as f
from tests.helpers import HX, as_annotator

# The instructed answer of the attention checks: "for this image, answer 'Completely' to the last question".
INSTRUCTED = {"overall": 5}


def quality_study(owner, quality: dict, **settings):
    protocol = preset_load("culturalframes-rating")
    protocol["quality"] = quality
    study = f.make_study(owner, items_per_session=4, **settings)
    study.protocol = protocol
    study.save()
    return study


def check_items(study, kind, n, country="IN", expected=None):
    return [
        f.make_item(study, country, prompt=f"A street market {i}", check_kind=kind, expected=expected or INSTRUCTED)
        for i in range(n)
    ]


@pytest.fixture
def checked(owner):
    """A study of four items a session with an attention check after every second item, and three
    check items for India; three ordinary Indian items wanting one annotation each... plus more."""
    study = quality_study(owner, {"attention": {"placement": "every", "every": 2}})
    pool = f.make_pool(study, annotations_per_item=2)
    items = f.make_items(study, "IN", n=6)
    checks = check_items(study, CheckKind.ATTENTION, 3)
    return study, pool, items, checks


def started(pool):
    annotator = f.make_annotator(pool)
    session = f.make_session(annotator)
    return session_schedule_make(session=session, study=pool.study)


def answer(session, *, data=None, passing=True):
    """Submit the session's current item: the valid answers, with the instructed one on a check."""
    assignment = assignment_next(session=session)
    if assignment is None:
        return None, None
    overall = "5" if passing else "1"
    result = annotation_submit(assignment=assignment, data=data or f.valid_answers(overall=overall))
    return assignment, result


def test_the_schedule_puts_a_check_after_every_second_item_and_counts_it(checked):
    study, pool, items, checks = checked
    session = started(pool)
    assert [p["position"] for p in session.schedule] == [3, 6]
    assert {p["kind"] for p in session.schedule} == {"attention"}
    assert len({p["item"] for p in session.schedule}) == 2 and {p["item"] for p in session.schedule} <= {
        c.pk for c in checks}
    assert session.items_target == 6
    session.refresh_from_db()
    assert session.items_target == 6 and len(session.schedule) == 2
    again = session_schedule_make(session=session, study=study)  # decided once: kept
    assert again.schedule == session.schedule


def test_checks_are_served_at_their_places_without_a_quota_and_never_become_annotations(checked):
    study, pool, items, checks = checked
    session = started(pool)
    served = []
    while True:
        assignment, result = answer(session)
        if assignment is None:
            break
        served.append((assignment.position, assignment.item.check_kind))
    assert served == [(1, ""), (2, ""), (3, "attention"), (4, ""), (5, ""), (6, "attention")]
    assert Annotation.objects.filter(assignment__session=session).count() == 4
    assert CheckAnswer.objects.filter(session=session, passed=True).count() == 2
    assert not ItemQuota.objects.filter(item__in=checks).exists()
    assert sum(ItemQuota.objects.filter(pool=pool).values_list("done", flat=True)) == 4
    session_complete(session=session)
    assert ending_for(session.annotator, session).code == study.code_completed


def test_a_study_without_quality_checks_plans_nothing(owner):
    study = f.make_study(owner)
    pool = f.make_pool(study)
    f.make_items(study, "IN", n=3)
    check_items(study, CheckKind.ATTENTION, 2)
    session = started(pool)
    assert session.schedule == [] and session.items_target == study.items_per_session


def test_without_check_items_the_session_is_as_before(owner):
    study = quality_study(owner, {"attention": {"placement": "every", "every": 2}})
    pool = f.make_pool(study)
    f.make_items(study, "IN", n=3)
    check_items(study, CheckKind.ATTENTION, 2, country="JP")  # routed to Japan: none for India
    session = started(pool)
    assert session.schedule == [] and session.items_target == 4


def test_one_failed_check_warns_once_and_the_second_ends_the_session_with_its_code(checked):
    study, pool, items, checks = checked
    session = started(pool)
    answer(session), answer(session)
    assignment, result = answer(session, passing=False)
    assert assignment.item.check_kind == "attention"
    assert result.check is not None and not result.check.answer.passed and result.check.warn
    assert not result.check.ended
    session.refresh_from_db()
    assert session.check_warned_at is not None and session.completed_at is None
    answer(session), answer(session)
    assignment, result = answer(session, passing=False)
    assert result.check.ended and not result.check.warn
    session.refresh_from_db()
    assert session.completed_at is not None
    assert assignment_next(session=session) is None
    annotator = Annotator.objects.get(pk=session.annotator_id)
    assert annotator.outcome == Annotator.Outcome.FAILED_CHECK
    assert ending_for(annotator, session).code == study.code_failed_check == "FAILCHECK"
    assert Annotation.objects.filter(assignment__session=session).count() == 4  # kept


def test_one_failure_ends_the_session_where_the_study_allows_it(owner):
    study = quality_study(owner, {
        "attention": {"placement": "random", "count": 1}, "outcomes": {"warnings": 0, "failures": 1},
        "estimated_minutes": 3,
    })
    pool = f.make_pool(study)
    f.make_items(study, "IN", n=4)
    check_items(study, CheckKind.ATTENTION, 1)
    session = started(pool)
    while True:
        assignment, result = answer(session, passing=False)
        if assignment is None or assignment.item.check_kind:
            break
    assert result.check.ended
    assert Annotator.objects.get(pk=session.annotator_id).outcome == Annotator.Outcome.FAILED_CHECK


def test_a_skipped_attention_check_is_a_failed_one(checked):
    study, pool, items, checks = checked
    protocol = study.protocol
    protocol["skip"] = {"label": "Skip this image", "reasons": ["I cannot see it well"]}
    study.protocol = protocol
    study.save()
    session = started(pool)
    answer(session), answer(session)
    assignment, result = answer(session, data={SKIP: ["I cannot see it well"]})
    assert assignment.item.check_kind == "attention" and result.validation.ok
    assert not result.check.answer.passed and result.check.answer.skipped and result.check.warn


def test_a_repeated_submit_of_a_check_is_stored_once_and_says_so(checked):
    study, pool, items, checks = checked
    session = started(pool)
    answer(session), answer(session)
    assignment = assignment_next(session=session)
    first = annotation_submit(assignment=assignment, data=f.valid_answers(overall="1"))
    assignment.status = Assignment.Status.LEASED  # a page kept by the back button: loaded before the submit
    again = annotation_submit(assignment=assignment, data=f.valid_answers(overall="5"))
    assert again.duplicate and again.check.duplicate
    assert CheckAnswer.objects.filter(assignment=assignment).count() == 1
    assert not CheckAnswer.objects.get(assignment=assignment).passed  # the first answer stands
    assert first.check.warn and not again.check.warn


def test_a_lapsed_check_lease_is_renewed_without_a_quota(checked):
    study, pool, items, checks = checked
    session = started(pool)
    answer(session), answer(session)
    assignment = assignment_next(session=session)
    assert assignment.item.check_kind == "attention"
    assert lease_release(pk=assignment.pk) == 1
    again = assignment_next(session=session)
    assert again.pk == assignment.pk and again.status == Assignment.Status.LEASED


def test_gold_items_score_the_annotator_and_never_end_the_session(owner):
    study = quality_study(owner, {"gold": {"rate": 0.5, "tolerance": {"overall": 1}}})
    pool = f.make_pool(study)
    f.make_items(study, "IN", n=6)
    golds = check_items(study, CheckKind.GOLD, 3, expected={"overall": 3})
    session = started(pool)
    assert [p["kind"] for p in session.schedule] == ["gold", "gold"] and session.items_target == 6
    results = []
    while True:
        assignment, result = answer(session, passing=False)  # overall 1: two away from the gold 3
        if assignment is None:
            break
        if result.check is not None:
            results.append(result.check)
    assert len(results) == 2 and not any(r.answer.passed for r in results)
    assert not any(r.ended or r.warn for r in results)
    assert {r.answer.item_id for r in results} <= {g.pk for g in golds}
    session_complete(session=session)
    assert ending_for(Annotator.objects.get(pk=session.annotator_id), session).code == study.code_completed


def test_positions_of_random_checks_are_spread_and_never_repeat_an_item(owner):
    study = quality_study(owner, {"attention": {"placement": "random", "count": 2}})
    pool = f.make_pool(study)
    f.make_items(study, "IN", n=4)
    check_items(study, CheckKind.ATTENTION, 4)
    positions = Counter()
    for _ in range(40):
        session = started(pool)
        items = [p["item"] for p in session.schedule]
        assert len(items) == len(set(items)) == 2
        positions.update(p["position"] for p in session.schedule)
    assert len(positions) >= 4  # spread over the session, not always the same places


def test_the_item_page_serves_a_check_like_any_item_and_warns_after_a_failed_one(client, checked):
    study, pool, items, checks = checked
    session = started(pool)
    as_annotator(client, session)
    answer(session), answer(session)
    assignment = assignment_next(session=session)
    page = client.get(reverse("annotation:items")).content.decode()
    assert "attention" not in page.lower()  # looks like an ordinary item
    response = client.post(reverse("annotation:item-submit", args=[assignment.pk]),
                           f.valid_answers(overall="1"), **HX)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="quality-warning"' in page and "read each question carefully" in page
    # shown once: the next page has no warning
    assert 'id="quality-warning"' not in client.get(reverse("annotation:items")).content.decode()
    assert session_submitted_count(Session.objects.get(pk=session.pk), fresh=True) == 3


def test_the_warning_and_the_ending_speak_the_pool_s_language(client, checked):
    study, pool, items, checks = checked
    pool.language = "ja"
    pool.save()
    session = started(pool)
    as_annotator(client, session)
    answer(session), answer(session)
    assignment = assignment_next(session=session)
    page = client.post(reverse("annotation:item-submit", args=[assignment.pk]), f.valid_answers(overall="1"),
                       **HX).content.decode()
    assert "各質問をよくお読みください" in page
    answer(session), answer(session)
    answer(session, passing=False)
    page = client.get(reverse("annotation:end")).content.decode()
    assert "調査のルールにより" in page and "FAILCHECK" in page


def test_check_answers_never_enter_the_export_or_the_agreement(checked, owner):
    import csv
    import io

    from django.core.files.storage import default_storage

    from tests.exports.test_gold_export import exported

    study, pool, items, checks = checked
    session = started(pool)
    while answer(session)[0] is not None:
        pass
    job = exported(study, owner, "csv")
    with default_storage.open(job.file.name, "rb") as fh:
        rows = list(csv.DictReader(io.StringIO(fh.read().decode("utf-8"))))
    assert len(rows) == 4 and CheckAnswer.objects.filter(session=session).count() == 2
    check_ids = {c.external_id for c in checks}
    assert not check_ids & {r["item_id"] for r in rows}
    assert {r["item_id"] for r in rows} <= {i.external_id for i in items}

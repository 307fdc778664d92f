from datetime import timedelta

from django.db import connection
from django.utils import timezone

from annotation import selectors
from annotation.models import Annotation, Assignment, Session
from annotation.services import (
    annotation_submit,
    assignment_next,
    assignment_save_draft,
    assignments_expire,
)
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import valid_answers


def quota(item, pool):
    return ItemQuota.objects.get(item=item, pool=pool)


def test_it_leases_an_item_of_the_annotators_pool_only(items, pool, session):
    assignment = assignment_next(session=session)
    assert assignment.pool == pool
    assert assignment.item.country == "IN"
    assert quota(assignment.item, pool).leased == 1


def test_it_resumes_the_same_lease(items, session):
    first = assignment_next(session=session)
    assert assignment_next(session=session) == first
    assert Assignment.objects.count() == 1


def test_it_serves_fewest_done_first(study, pool, session):
    busy, idle = f.make_items(study, "IN", 2)
    ItemQuota.objects.filter(item=busy).update(done=2)
    assert assignment_next(session=session).item == idle


def test_it_never_gives_an_annotator_the_same_item_twice(study, pool, annotator):
    (only,) = f.make_items(study, "IN", 1)
    first = f.make_session(annotator)
    a = assignment_next(session=first)
    assert annotation_submit(assignment=a, data=valid_answers()).annotation
    second = f.make_session(annotator)
    assert assignment_next(session=second) is None


def test_it_fills_each_item_exactly_to_its_quota(study, pool):
    (item,) = f.make_items(study, "IN", 1)
    sessions = [f.make_session(f.make_annotator(pool)) for _ in range(5)]
    leased = [assignment_next(session=s) for s in sessions]
    assert [a is not None for a in leased] == [True, True, True, False, False]
    q = quota(item, pool)
    assert (q.wanted, q.done, q.leased) == (3, 0, 3)


def test_an_expired_lease_gives_the_slot_back(study, pool, session):
    (item,) = f.make_items(study, "IN", 1)
    a = assignment_next(session=session)
    later = timezone.now() + timedelta(minutes=study.lease_minutes + 1)
    assert assignments_expire(now=later) == 1
    a.refresh_from_db()
    assert a.status == Assignment.Status.EXPIRED
    assert quota(item, pool).leased == 0
    assert assignments_expire(now=later) == 0


def test_a_late_submit_after_expiry_is_kept(study, pool, session):
    (item,) = f.make_items(study, "IN", 1)
    a = assignment_next(session=session)
    assignments_expire(now=timezone.now() + timedelta(hours=2))
    result = annotation_submit(assignment=a, data=valid_answers())
    assert result.annotation is not None and not result.annotation.surplus
    q = quota(item, pool)
    assert (q.done, q.leased) == (1, 0)


def test_a_late_submit_on_a_full_item_is_kept_as_surplus(study, pool, session):
    (item,) = f.make_items(study, "IN", 1)
    late = assignment_next(session=session)
    assignments_expire(now=timezone.now() + timedelta(hours=2))
    others = [assignment_next(session=f.make_session(f.make_annotator(pool))) for _ in range(3)]
    for other in others:
        annotation_submit(assignment=other, data=valid_answers())
    result = annotation_submit(assignment=late, data=valid_answers())
    assert result.annotation.surplus
    assert Annotation.objects.count() == 4
    assert quota(item, pool).done == 3


def test_a_lapsed_lease_is_renewed_on_resume_with_its_draft(study, pool, session):
    f.make_items(study, "IN", 1)
    a = assignment_next(session=session)
    assignment_save_draft(assignment=a, data={"explanation": ["half typed"]})
    assignments_expire(now=timezone.now() + timedelta(hours=2))
    again = assignment_next(session=session)
    assert again.pk == a.pk and again.status == Assignment.Status.LEASED
    assert again.draft == {"explanation": ["half typed"]}


def test_a_double_submit_stores_one_annotation(items, session):
    a = assignment_next(session=session)
    first = annotation_submit(assignment=a, data=valid_answers())
    second = annotation_submit(assignment=a, data=valid_answers(overall="5"))
    assert second.duplicate and second.annotation == first.annotation
    assert Annotation.objects.count() == 1
    assert quota(a.item, a.pool).done == 1


def test_it_refuses_an_invalid_payload_and_stores_nothing(items, session):
    a = assignment_next(session=session)
    result = annotation_submit(assignment=a, data=valid_answers(alignment="7"))
    assert result.validation.errors == {"alignment": "Choose one of the options."}
    assert Annotation.objects.count() == 0
    a.refresh_from_db()
    assert a.status == Assignment.Status.LEASED
    assert quota(a.item, a.pool).done == 0


def test_the_annotation_records_version_and_time(items, session, study):
    a = assignment_next(session=session)
    ann = annotation_submit(assignment=a, data=valid_answers(), now=a.leased_at + timedelta(seconds=42)).annotation
    assert ann.protocol_version == study.protocol_version
    assert ann.time_spent_ms == 42_000
    assert ann.answers["alignment"] == 0.5


def test_the_min_distinct_annotators_caps_items_per_annotator(study):
    pool = f.make_pool(study, "IN", "India", annotations_per_item=1, min_distinct_annotators=2)
    study.items_per_session = 2
    study.save()
    f.make_items(study, "IN", 6)  # 6 slots / 2 annotators → at most 3 items each
    annotator = f.make_annotator(pool)
    taken, totals = 0, []
    for _ in range(3):
        session = f.make_session(annotator)
        while (a := assignment_next(session=session)) is not None:
            totals.append(a.session_total)
            annotation_submit(assignment=a, data=valid_answers())
            taken += 1
    assert taken == 3
    assert totals == [2, 2, 1]  # the second session counts the one item the cap leaves ("1 of 1")


def test_drafts_are_not_kept_after_submit(items, session):
    a = assignment_next(session=session)
    annotation_submit(assignment=a, data=valid_answers())
    assert assignment_save_draft(assignment=a, data={"explanation": ["y"]}) is False


def test_a_tab_that_finds_no_slot_left_shows_the_lease_its_other_tab_just_took(study, pool, session):
    """A double click's two requests both read the session; one then leases the last open slot.
    The other, finding none, shows that lease: it must not end the session with the lease open (it
    answered one click with the completion code and the other with an item; issue 13's crowd)."""
    f.make_items(study, "IN", 2)  # the first answered, the other the last item open to the annotator
    first = assignment_next(session=session)
    annotation_submit(assignment=first, data=valid_answers())
    this_tab = Session.objects.get(pk=session.pk)
    other_tabs_lease = []

    def other_tab_leases_once_this_one_read(execute, sql, params, many, context):
        rows = execute(sql, params, many, context)
        # the session's assignments read (as SQL, or as its prepared statement on PostgreSQL)
        if not other_tabs_lease and ('ORDER BY "annotation_assignment"."position" DESC' in sql
                                     or f"EXECUTE {selectors._SESSION_ASSIGNMENTS.name}_" in sql):
            other_tabs_lease.append(None)  # (its own reads pass through here too)
            other_tabs_lease[0] = assignment_next(session=Session.objects.get(pk=session.pk))
        return rows

    with connection.execute_wrapper(other_tab_leases_once_this_one_read):
        shown = assignment_next(session=this_tab)

    assert other_tabs_lease[0] is not None and other_tabs_lease[0].item != first.item
    assert shown == other_tabs_lease[0]
    assert Assignment.objects.filter(session=session, status="leased").count() == 1

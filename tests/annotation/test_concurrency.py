"""Concurrency rules with real threads on PostgreSQL: no over-assigned item, idempotent submit."""

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Annotation, Assignment, Session
from annotation.services import annotation_submit, assignment_next, assignments_expire
from studies.models import ItemQuota
from tests import factories as f
from tests.factories import valid_answers
from tests.helpers import run_in_threads

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.django_db(transaction=True),
]


def test_concurrent_annotators_never_overfill_an_item(study, pool):
    (item,) = f.make_items(study, "IN", 1)
    sessions = [f.make_session(f.make_annotator(pool)) for _ in range(12)]

    leases = run_in_threads(lambda s: assignment_next(session=s), [(s,) for s in sessions])

    assert sum(a is not None for a in leases) == 3
    q = ItemQuota.objects.get(item=item, pool=pool)
    assert (q.leased, q.done) == (3, 0)


def test_concurrent_sessions_fill_every_item_exactly(study, pool):
    f.make_items(study, "IN", 5)  # 15 slots
    study.items_per_session = 5
    study.save()
    sessions = [f.make_session(f.make_annotator(pool)) for _ in range(8)]

    def annotate_all(session):
        done = 0
        while (a := assignment_next(session=session)) is not None:
            annotation_submit(assignment=a, data=valid_answers())
            done += 1
        return done

    counts = run_in_threads(annotate_all, [(s,) for s in sessions])

    assert sum(counts) == 15
    per_item = Counter(Annotation.objects.values_list("item_id", flat=True))
    assert set(per_item.values()) == {3}
    pairs = list(Annotation.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs)), "an annotator annotated an item twice"
    assert not ItemQuota.objects.exclude(done=3).exists()
    assert not ItemQuota.objects.exclude(leased=0).exists()


def test_a_submit_sent_many_times_at_once_stores_one_annotation(study, pool, session):
    f.make_items(study, "IN", 1)
    assignment = assignment_next(session=session)

    results = run_in_threads(
        lambda: annotation_submit(assignment=Assignment.objects.get(pk=assignment.pk), data=valid_answers()),
        [()] * 8,
    )

    assert Annotation.objects.count() == 1
    assert sum(not r.duplicate for r in results) == 1
    assert {r.annotation.pk for r in results} == {Annotation.objects.get().pk}
    q = ItemQuota.objects.get(item=assignment.item, pool=pool)
    assert (q.done, q.leased) == (1, 0)


def test_one_annotator_in_two_tabs_gets_one_lease(study, pool, session):
    f.make_items(study, "IN", 3)

    leases = run_in_threads(lambda: assignment_next(session=session), [()] * 4)

    assert Assignment.objects.filter(session=session).count() == 1
    assert len({a.pk for a in leases}) == 1
    assert ItemQuota.objects.filter(leased=1).count() == 1


def expired_leases(study, pool, n):
    """``n`` sessions, each on a lease that lapsed and was swept (its slot given back)."""
    f.make_items(study, "IN", n)
    sessions = [f.make_session(f.make_annotator(pool)) for _ in range(n)]
    leases = [assignment_next(session=s) for s in sessions]
    Assignment.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    assert assignments_expire() == n
    return sessions, [Assignment.objects.get(pk=a.pk) for a in leases]


def reload_or_submit(session, lapsed, action):
    if action == "reload":
        return assignment_next(session=Session.objects.get(pk=session.pk))
    return annotation_submit(assignment=lapsed, data=valid_answers())


def test_a_reload_racing_a_late_submit_never_strands_the_annotator(study, pool):
    """The reload reads the lapsed lease, the late submit stores its annotation, then the reload
    renews: it must not turn the submitted assignment back into a lease (the item would come back
    for ever, each submit answered as a duplicate, and no completion code)."""
    study.items_per_session = 2
    study.save()
    sessions, lapsed = expired_leases(study, pool, 20)

    run_in_threads(reload_or_submit, [(s, a, act) for s, a in zip(sessions, lapsed) for act in ("reload", "submit")])

    annotated = Assignment.objects.filter(annotation__isnull=False)
    assert annotated.count() == 20
    assert set(annotated.values_list("status", flat=True)) == {Assignment.Status.SUBMITTED}
    for session in sessions:  # each finishes: a new item, then the end of the session
        current = assignment_next(session=Session.objects.get(pk=session.pk))
        assert current is None or not hasattr(current, "annotation") and current.status == Assignment.Status.LEASED
        if current is not None:
            annotation_submit(assignment=current, data=valid_answers())
        assert assignment_next(session=Session.objects.get(pk=session.pk)) is None
    for q in ItemQuota.objects.all():  # the counters agree with the rows
        leased = Assignment.objects.filter(item=q.item, pool=q.pool, status=Assignment.Status.LEASED).count()
        done = Annotation.objects.filter(item=q.item, pool=q.pool, surplus=False).count()
        assert (q.leased, q.done) == (leased, done)


def test_renew_and_submit_take_their_locks_in_one_order(study, pool):
    """A reload renewing a lapsed lease and its late submit, many at once: no deadlock (a 500)."""
    sessions, lapsed = expired_leases(study, pool, 30)

    results = run_in_threads(
        reload_or_submit, [(s, a, act) for s, a in zip(sessions, lapsed) for act in ("submit", "reload")]
    )

    assert all(r is not None for r in results[0::2])  # every submit answered, none died in a deadlock
    assert Annotation.objects.count() == 30

"""Excluding an annotator (quality control): their annotations are kept but withdrawn, their slots
reopen and are served to someone else; including them again counts them back without ever
over-counting a quota; a withdrawn session stays withdrawn."""

import pytest
from django.db import IntegrityError

from annotation.models import Annotation, Annotator
from annotation.services import (
    ExclusionRefused,
    annotation_submit,
    annotator_exclude,
    annotator_include,
    annotator_unblock,
    assignment_next,
    session_annotations_withdraw,
)
from studies.models import ItemQuota
from tests import factories as f
from tests.helpers import run_in_threads


def done(item, pool):
    return ItemQuota.objects.get(item=item, pool=pool).done


@pytest.fixture
def full(items, pool):
    """Each India item wanted once, and annotated by one annotator: the pool is full."""
    ItemQuota.objects.filter(pool=pool).update(wanted=1)
    annotations = f.annotate_pool(pool)
    return annotations[0].annotator, annotations


def test_it_withdraws_their_annotations_and_reopens_their_slots(full, pool, owner):
    annotator, annotations = full
    assert assignment_next(session=f.make_session(f.make_annotator(pool))) is None  # full
    assert annotator_exclude(annotator=annotator, by=owner, reason="Straight-lined every item") == 3
    annotator.refresh_from_db()
    assert annotator.excluded_at is not None and annotator.excluded_by == owner
    assert annotator.excluded_reason == "Straight-lined every item"
    assert annotator.blocked_at is not None  # they take no more items
    assert Annotation.objects.filter(annotator=annotator, withdrawn=True).count() == 3  # kept
    assert all(done(a.item, pool) == 0 for a in annotations)
    # The slot they took is served to someone else of the pool.
    newcomer = f.make_session(f.make_annotator(pool))
    lease = assignment_next(session=newcomer)
    assert lease is not None and lease.item_id in {a.item_id for a in annotations}


def test_excluding_again_changes_nothing_and_keeps_the_first_reason(full, owner):
    annotator, _ = full
    annotator_exclude(annotator=annotator, by=owner, reason="first")
    assert annotator_exclude(annotator=annotator, by=owner, reason="second") == 0
    annotator.refresh_from_db()
    assert annotator.excluded_reason == "first"


@pytest.mark.parametrize("reason", ["", "   ", "x" * 501])
def test_it_refuses_an_empty_or_too_long_reason(full, owner, reason):
    annotator, _ = full
    with pytest.raises(ExclusionRefused):
        annotator_exclude(annotator=annotator, by=owner, reason=reason)
    annotator.refresh_from_db()
    assert annotator.excluded_at is None
    assert not Annotation.objects.filter(withdrawn=True).exists()


def test_the_database_refuses_an_exclusion_without_reason(full):
    annotator, _ = full
    with pytest.raises(IntegrityError):
        Annotator.objects.filter(pk=annotator.pk).update(excluded_at="2026-01-01T00:00Z")


def test_including_again_restores_them_and_the_quota(full, pool, owner):
    annotator, annotations = full
    annotator_exclude(annotator=annotator, by=owner, reason="too fast")
    assert annotator_include(annotator=annotator) == 3
    assert annotator_include(annotator=annotator) == 0  # a repeat changes nothing
    annotator.refresh_from_db()
    assert annotator.excluded_at is None and annotator.excluded_reason == ""
    assert not Annotation.objects.filter(withdrawn=True).exists()
    assert not Annotation.objects.filter(surplus=True).exists()
    assert all(done(a.item, pool) == 1 for a in annotations)


def test_a_slot_taken_meanwhile_is_never_over_counted(full, pool, owner):
    annotator, annotations = full
    annotator_exclude(annotator=annotator, by=owner, reason="too fast")
    newcomer = f.make_session(f.make_annotator(pool))
    lease = assignment_next(session=newcomer)
    annotation_submit(assignment=lease, data=f.valid_answers())  # takes one reopened slot
    annotator_include(annotator=annotator)
    assert all(done(a.item, pool) == 1 for a in annotations)  # wanted once: never twice
    taken = Annotation.objects.get(annotator=annotator, item_id=lease.item_id)
    assert taken.surplus and not taken.withdrawn  # kept, counted nowhere in the quota
    assert Annotation.objects.filter(annotator=annotator, surplus=False, withdrawn=False).count() == 2


def test_a_withdrawn_session_stays_withdrawn_when_they_are_included(full, owner):
    annotator, _ = full
    session = annotator.sessions.get()
    session_annotations_withdraw(session=session)
    annotator_exclude(annotator=annotator, by=owner, reason="too fast")
    assert annotator_include(annotator=annotator) == 0
    assert Annotation.objects.filter(annotator=annotator, withdrawn=True).count() == 3


def test_counting_a_session_again_leaves_an_excluded_annotator_out(full, pool, owner):
    annotator, annotations = full
    session = annotator.sessions.get()
    session_annotations_withdraw(session=session)
    annotator_exclude(annotator=annotator, by=owner, reason="too fast")
    assert session_annotations_withdraw(session=session, withdrawn=False) == 0
    assert Annotation.objects.filter(annotator=annotator, withdrawn=True).count() == 3
    assert annotator_include(annotator=annotator) == 3  # the session counts again, so they do
    assert all(done(a.item, pool) == 1 for a in annotations)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_an_exclusion_and_an_inclusion_at_once_end_as_the_last_mark_says(study, pool, owner):
    f.make_items(study, "IN", 3)
    ItemQuota.objects.filter(pool=pool).update(wanted=1)
    annotator = f.annotate_pool(pool)[0].annotator
    for _ in range(5):
        annotator_exclude(annotator=annotator, by=owner, reason="first")
        run_in_threads(
            lambda job: job(),
            [(lambda: annotator_include(annotator=Annotator.objects.get(pk=annotator.pk)),),
             (lambda: session_annotations_withdraw(session=annotator.sessions.get(), withdrawn=False),)],
        )
        run_in_threads(
            lambda job: job(),
            [(lambda: annotator_exclude(annotator=Annotator.objects.get(pk=annotator.pk), by=owner, reason="x"),),
             (lambda: annotator_include(annotator=Annotator.objects.get(pk=annotator.pk)),)],
        )
        excluded = Annotator.objects.get(pk=annotator.pk).excluded_at is not None
        withdrawn = set(Annotation.objects.filter(annotator=annotator).values_list("withdrawn", flat=True))
        assert withdrawn == {excluded}
        counted = Annotation.objects.filter(annotator=annotator, withdrawn=False, surplus=False).count()
        assert sum(ItemQuota.objects.filter(pool=pool).values_list("done", flat=True)) == counted
        if excluded:
            annotator_include(annotator=annotator)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_reopened_slot_goes_to_one_newcomer_while_the_annotator_is_included_again(study, pool, owner):
    for _ in range(5):
        (item,) = f.make_items(study, "IN", 1)
        ItemQuota.objects.filter(pool=pool, item=item).update(wanted=1)
        annotator = f.annotate_pool(pool)[0].annotator  # the only item with room is the new one
        annotator_exclude(annotator=annotator, by=owner, reason="first")
        newcomer = f.make_session(f.make_annotator(pool))
        run_in_threads(
            lambda job: job(),
            [(lambda a=annotator: annotator_include(annotator=Annotator.objects.get(pk=a.pk)),),
             (lambda s=newcomer: assignment_next(session=s),)],
        )
        quota = ItemQuota.objects.get(pool=pool, item=item)
        assert quota.done + quota.leased == 1  # one of them holds the slot, never both
        mine = Annotation.objects.get(annotator=annotator)
        assert not mine.withdrawn and mine.surplus == (quota.leased == 1)


def test_an_excluded_annotator_stays_blocked_until_included(full, owner):
    annotator, _ = full
    annotator_exclude(annotator=annotator, by=owner, reason="too fast")
    assert annotator_unblock(annotator=annotator) is False
    assert Annotator.objects.get(pk=annotator.pk).blocked_at is not None
    annotator_include(annotator=annotator)
    assert Annotator.objects.get(pk=annotator.pk).blocked_at is not None  # including does not unblock
    assert annotator_unblock(annotator=annotator) is True
    assert Annotator.objects.get(pk=annotator.pk).blocked_at is None


def test_the_migration_marks_the_sessions_withdrawn_before_it(full):
    from importlib import import_module

    from django.apps import apps

    annotator, _ = full
    Annotation.objects.filter(annotator=annotator).update(withdrawn=True)  # as a withdrawal left them
    import_module("annotation.migrations.0015_annotator_excluded").mark_withdrawn_sessions(apps, None)
    assert annotator.sessions.get().withdrawn_at is not None
    assert annotator_include(annotator=annotator) == 0  # not excluded: nothing changes

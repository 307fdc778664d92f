"""Reviews under real concurrency, on PostgreSQL: one review per annotation, one slot per flag."""

import pytest

from annotation.models import Review
from annotation.reviews.services import review_submit
from studies.models import ItemQuota
from tests.factories import AS_GIVEN, make_checker
from tests.factories import annotate_pool as annotate
from tests.helpers import run_in_threads

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.django_db(transaction=True),
]


def test_two_checkers_flagging_the_same_annotation_at_once_store_one_review_and_one_slot(study, pool, items):
    annotation = annotate(pool)[0]
    checkers = [make_checker(pool, f"checker-{n}") for n in range(4)]

    def flag(user):
        return review_submit(annotation=annotation, reviewer=user, outcome="flagged",
                             data={**AS_GIVEN, "overall": ["1"]})

    results = run_in_threads(flag, [(c,) for c in checkers])

    assert Review.objects.count() == 1
    assert sum(not r.duplicate for r in results) == 1
    kept = Review.objects.get()
    assert all(r.review.pk == kept.pk for r in results)
    assert ItemQuota.objects.get(item=annotation.item, pool=pool).wanted == 4


def test_a_double_click_accepting_stores_one_review(study, pool, items):
    annotation = annotate(pool)[0]
    checker = make_checker(pool, "checker-in")

    def accept():
        return review_submit(annotation=annotation, reviewer=checker, outcome="accepted", data=AS_GIVEN)

    results = run_in_threads(accept, [() for _ in range(3)])

    assert Review.objects.count() == 1
    assert sorted(r.duplicate for r in results) == [False, True, True]
    assert ItemQuota.objects.get(item=annotation.item, pool=pool).wanted == 3

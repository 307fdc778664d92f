"""The next annotation to review is drawn uniformly among those not reviewed yet."""

from collections import Counter

from annotation.reviews import selectors
from annotation.reviews.access import scope_for_reviewer
from tests.helpers import review as submit


def scope(checker, annotation):
    return scope_for_reviewer(checker, annotation.study_id, annotation.pool_id)


def test_every_unreviewed_annotation_can_be_drawn_and_about_equally_often(checker, annotated):
    submit(annotated[0], checker, "accepted")
    drawn = Counter(selectors.review_next(scope(checker, annotated[0])).pk for _ in range(600))
    assert set(drawn) == {a.pk for a in annotated[1:]}  # never the reviewed one
    assert min(drawn.values()) > 80  # 120 expected each; a sort-free draw that favoured one would fail


class Offsets:
    """Draws that give these offsets, in turn."""

    def __init__(self, *offsets):
        self.offsets = iter(offsets)

    def randrange(self, n):
        return next(self.offsets)


def test_a_draw_past_the_end_draws_again(checker, annotated):
    draws = Offsets(10**6, 0)  # as if annotations were reviewed between the count and the row
    assert selectors.review_next(scope(checker, annotated[0]), draws=draws) == min(annotated, key=lambda a: a.pk)


def test_nothing_left_gives_none(checker, annotated):
    for a in annotated:
        submit(a, checker, "accepted")
    assert selectors.review_next(scope(checker, annotated[0])) is None

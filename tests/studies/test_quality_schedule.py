"""Where a session's attention checks and gold items go: uniform over the places, never the same
item twice, never two side by side when avoidable, the same for the same session. Pure."""

from collections import Counter

import pytest

from studies.protocol.quality import Attention, Gold, Quality
from studies.protocol.schedule import (
    ATTENTION,
    GOLD,
    Inserted,
    Schedule,
    attention_gaps,
    schedule_rng,
    session_schedule,
    spread_gaps,
)

CHECKS = [f"check-{n}" for n in range(6)]
GOLDS = list(range(100, 140))
SEEDS = range(3000)


def quality(*, count=2, placement="random", every=10, rate=0.0):
    return Quality(attention=Attention(on=True, placement=placement, count=count, every=every), gold=Gold(rate=rate))


def chi_square(counts: Counter, cells: range) -> float:
    expected = sum(counts.values()) / len(cells)
    return sum((counts[c] - expected) ** 2 / expected for c in cells)


def gaps(schedule: Schedule, kind: str) -> list[int]:
    """The gap (ordinary items before it) of each insertion of ``kind``."""
    return [schedule.ordinary_before(i.position) for i in schedule.inserted if i.kind == kind]


def adjacent(schedule: Schedule) -> bool:
    positions = [i.position for i in schedule.inserted]
    return any(b == a + 1 for a, b in zip(positions, positions[1:]))


def test_the_same_session_gets_the_same_schedule():
    q = quality(count=3, rate=0.2)
    first = session_schedule(items=20, quality=q, rng=schedule_rng(41), checks=CHECKS, golds=GOLDS)
    again = session_schedule(items=20, quality=q, rng=schedule_rng(41), checks=CHECKS[::-1], golds=GOLDS[::-1])
    assert first == again  # the order the ids come in does not matter
    others = {session_schedule(items=20, quality=q, rng=schedule_rng(s), checks=CHECKS, golds=GOLDS) for s in range(20)}
    assert len(others) == 20


def test_the_rng_is_seeded_by_text_or_number_and_purpose():
    assert schedule_rng("session-7").random() == schedule_rng("session-7").random()
    assert schedule_rng(7).random() != schedule_rng(7, "gold").random()


def test_a_schedule_places_its_items_among_the_ordinary_ones():
    schedule = session_schedule(items=10, quality=quality(count=2, rate=0.2), rng=schedule_rng(3), checks=CHECKS,
                                golds=GOLDS)
    kinds = Counter(i.kind for i in schedule.inserted)
    assert kinds == {ATTENTION: 2, GOLD: 2} and schedule.length == 14 and schedule.short == 0
    for inserted in schedule.inserted:
        assert schedule.at(inserted.position) == inserted
    ordinary = [p for p in range(schedule.length) if schedule.at(p) is None]
    assert [schedule.ordinary_before(p) for p in ordinary] == list(range(10))


@pytest.mark.parametrize(("items", "count", "rate"), [(9, 1, 0.0), (9, 3, 0.0), (9, 2, 0.2), (19, 2, 0.1)])
def test_insertions_are_uniform_over_the_gaps(items, count, rate):
    checks, golds = Counter(), Counter()
    for seed in SEEDS:
        schedule = session_schedule(items=items, quality=quality(count=count, rate=rate), rng=schedule_rng(seed),
                                    checks=CHECKS, golds=GOLDS)
        checks.update(gaps(schedule, ATTENTION))
        golds.update(gaps(schedule, GOLD))
    cells = range(items + 1)
    # 95th percentile of chi-square with 9 degrees of freedom is 16.9, with 19 it is 30.1; loose bounds
    bound = 2.5 * items
    assert chi_square(checks, cells) < bound, checks
    if rate:
        assert chi_square(golds, cells) < bound, golds


def test_the_check_items_themselves_are_drawn_uniformly():
    drawn = Counter()
    for seed in SEEDS:
        schedule = session_schedule(items=10, quality=quality(count=2), rng=schedule_rng(seed), checks=CHECKS)
        drawn.update(i.item for i in schedule.inserted)
    assert set(drawn) == set(CHECKS)
    assert chi_square(drawn, CHECKS) < 20  # 5 degrees of freedom


def test_no_item_comes_twice_and_none_are_side_by_side_when_avoidable():
    for seed in range(500):
        schedule = session_schedule(items=12, quality=quality(count=4, rate=0.5), rng=schedule_rng(seed),
                                    checks=CHECKS, golds=GOLDS)
        ids = [i.item for i in schedule.inserted]
        assert len(ids) == len(set(ids)) == 10  # 4 checks and 6 gold items in 13 gaps
        assert not adjacent(schedule)
        assert schedule.inserted[0].position >= 0 and schedule.inserted[-1].position < schedule.length


def test_with_more_insertions_than_gaps_they_share_gaps_but_never_repeat():
    for seed in range(200):
        schedule = session_schedule(items=2, quality=quality(count=5), rng=schedule_rng(seed), checks=CHECKS)
        ids = [i.item for i in schedule.inserted]
        assert len(ids) == len(set(ids)) == 5
        assert sorted(Counter(gaps(schedule, ATTENTION)).values()) in ([1, 2, 2], [1, 1, 3])


def test_too_few_check_items_gives_fewer_checks_and_says_so():
    schedule = session_schedule(items=30, quality=quality(count=4), rng=schedule_rng(1), checks=["only", "only"])
    assert [i.item for i in schedule.inserted] == ["only"] and schedule.short == 3
    gold_short = session_schedule(items=30, quality=quality(count=2, rate=0.2), rng=schedule_rng(1),
                                  checks=CHECKS, golds=[1, 2])
    assert Counter(i.kind for i in gold_short.inserted)[GOLD] == 2 and gold_short.short == 4


def test_every_n_items_places_a_check_after_each_nth():
    schedule = session_schedule(items=20, quality=quality(placement="every", every=5), rng=schedule_rng(9),
                                checks=CHECKS)
    assert [i.position for i in schedule.inserted] == [5, 11, 17, 23]
    assert len({i.item for i in schedule.inserted}) == 4
    few = session_schedule(items=20, quality=quality(placement="every", every=5), rng=schedule_rng(9),
                           checks=CHECKS[:2])
    assert [i.position for i in few.inserted] == [5, 11] and few.short == 2  # the first places kept


def test_gold_items_keep_off_the_checks_places():
    for seed in range(300):
        schedule = session_schedule(items=10, quality=quality(placement="every", every=3, rate=0.3),
                                    rng=schedule_rng(seed), checks=CHECKS, golds=GOLDS)
        assert gaps(schedule, ATTENTION) == [3, 6, 9]
        assert len(gaps(schedule, GOLD)) == 3 and not set(gaps(schedule, GOLD)) & {3, 6, 9}
        assert not adjacent(schedule)


def test_quality_control_off_inserts_nothing():
    assert session_schedule(items=10, quality=Quality(), rng=schedule_rng(1), checks=CHECKS, golds=GOLDS) == Schedule(
        items=10
    )
    assert session_schedule(items=0, quality=quality(rate=0.5), rng=schedule_rng(1), checks=CHECKS).inserted == ()
    assert attention_gaps(10, Attention(on=False, count=3), schedule_rng(1)) == []


def test_spread_gaps_are_distinct_sorted_and_avoid_those_taken():
    rng = schedule_rng(5)
    assert spread_gaps(4, 5, rng) == [0, 1, 2, 3, 4]
    assert spread_gaps(4, 2, rng, taken=[0, 1, 2]) == [3, 4]
    drawn = spread_gaps(4, 3, rng, taken=[0, 1, 2, 3])
    assert 4 in drawn and len(drawn) == 3 and drawn == sorted(drawn)
    assert spread_gaps(4, 0, rng) == []


def test_inserted_is_a_plain_record():
    assert Inserted(position=3, kind=GOLD, item=101).item == 101

"""Honest-effort flags per annotator (``stats.annotators.effort``): pasted answers, leaving the page,
straight-lining, and the sessions too short to judge."""

from stats.annotators.effort import MIN_CHARS, MIN_RATINGS, effort_flags, mostly_pasted, straight_lined

KEYS = ["quality", "overall"]


def counts(pasted=0, typed=0, blurs=0, hidden_ms=0):
    return {"fields": {"why": {"pasted": pasted, "typed": typed, "keys": 0, "burst": pasted}}, "blurs": blurs,
            "hidden_ms": hidden_ms}


def test_an_answer_is_mostly_pasted_above_half_of_enough_characters():
    assert mostly_pasted({"pasted": 40, "typed": 10})
    assert not mostly_pasted({"pasted": 20, "typed": 20})  # half is not more than half
    assert not mostly_pasted({"pasted": MIN_CHARS - 1, "typed": 0})  # a pasted word or two is ordinary


def test_the_pasted_share_and_focus_losses_per_annotator():
    rows = [(1, 10, {}, counts(pasted=90, typed=10, blurs=2, hidden_ms=3000)),
            (1, 10, {}, counts(pasted=0, typed=100, blurs=0)),
            (1, 10, {}, None),  # no counts sent: not an item counted
            (2, 20, {}, counts(typed=50))]
    flags = effort_flags(rows, rating_keys=KEYS)
    one = flags[1]
    assert (one.pasted_answers, one.mostly_pasted, one.pasted_share) == (2, 1, 0.45)
    assert (one.items_counted, one.focus_losses_per_item, one.hidden_seconds) == (2, 1.0, 3.0)
    assert one.flagged
    assert flags[2].pasted_share == 0 and not flags[2].flagged


def test_a_session_with_the_same_rating_throughout_is_straight_lined():
    same = [(1, 10, {"quality": 1, "overall": 3}, None) for _ in range(3)]
    varied = [(1, 11, {"quality": 1, "overall": n}, None) for n in (3, 3, 4)]
    flags = effort_flags(same + varied, rating_keys=KEYS)[1]
    assert (flags.sessions_judged, flags.sessions_straight) == (2, 1)
    assert flags.flagged


def test_a_session_with_too_few_ratings_is_not_judged():
    assert straight_lined([("overall", 3)] * (MIN_RATINGS - 1)) is None
    assert straight_lined([("overall", 3)] * MIN_RATINGS) is True
    rows = [(1, 10, {"quality": 1, "overall": 3}, None), (1, 10, {"quality": 1, "overall": 3}, None)]
    flags = effort_flags(rows, rating_keys=KEYS)[1]
    assert (flags.sessions_judged, flags.sessions_straight, flags.flagged) == (0, 0, False)


def test_skips_and_other_questions_are_not_ratings():
    rows = [(1, 10, {"_skip": "unclear"}, None)] * 6 + [(1, 10, {"why": "x"}, None)] * 6
    assert effort_flags(rows, rating_keys=KEYS)[1].sessions_judged == 0

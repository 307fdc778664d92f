"""The majority's preference between an item's images: what each design's answer says of a pair,
the tally per (group, item, pair), ties and level votes, checked against a count by hand."""

from collections import Counter
from itertools import combinations

import pytest

from stats.comparisons import answer_pairs, majority_preferences


def test_a_pairwise_answer_orders_its_one_pair_and_a_tie_is_a_tie():
    assert answer_pairs("pairs", ("1", "2", "left")) == [("1", "2", "a")]
    assert answer_pairs("pairs", ("1", "2", "right")) == [("2", "1", "a")]
    assert answer_pairs("pairs", ("2", "1", "tie")) == [("2", "1", "tie")]


def test_a_best_worst_answer_orders_the_pairs_it_implies_and_no_other():
    pairs = {(a, b) for a, b, _ in answer_pairs("best_worst", (("1", "2", "3", "4"), "2", "4"))}
    assert pairs == {("2", "1"), ("2", "3"), ("2", "4"), ("1", "4"), ("3", "4")}  # 1 and 3: left open


def test_a_ranking_orders_every_pair():
    pairs = answer_pairs("rankings", (("1", "2", "3"), ("3", "1", "2")))
    assert {(a, b) for a, b, _ in pairs} == {("3", "1"), ("3", "2"), ("1", "2")}


def test_an_unknown_design_is_refused():
    with pytest.raises(ValueError, match="unknown design 'elo'"):
        answer_pairs("elo", ("1", "2", "left"))


def test_the_majority_is_chosen_with_its_votes_ties_and_margin():
    answers = [("IN", 7, "pairs", ("1", "2", "left"))] * 3 + [("IN", 7, "pairs", ("2", "1", "left")),
                                                               ("IN", 7, "pairs", ("1", "2", "tie"))]
    (p,), undecided = majority_preferences(answers).rows, majority_preferences(answers).undecided
    assert (p.group, p.item, p.chosen, p.rejected) == ("IN", 7, "1", "2") and undecided == 0
    assert (p.chosen_votes, p.rejected_votes, p.ties, p.answers) == (3, 1, 1, 5)
    assert p.margin == pytest.approx(2 / 5)


def test_level_votes_are_no_preference_but_are_counted():
    answers = [("IN", 1, "pairs", ("1", "2", "left")), ("IN", 1, "pairs", ("1", "2", "right")),
               ("IN", 2, "pairs", ("1", "2", "tie"))]
    found = majority_preferences(answers)
    assert found.rows == () and found.undecided == 2


def test_each_country_keeps_its_own_preference():
    answers = [("IN", 1, "pairs", ("1", "2", "left"))] * 2 + [("JP", 1, "pairs", ("1", "2", "right"))] * 2
    rows = majority_preferences(answers).rows
    assert [(p.group, p.chosen, p.rejected) for p in rows] == [("IN", "1", "2"), ("JP", "2", "1")]


def test_the_tally_matches_a_count_by_hand_over_mixed_designs():
    rankings = [("1", "2", "3", "4"), ("2", "1", "4", "3"), ("1", "3", "2", "4"), ("4", "1", "2", "3")]
    answers = [("IN", 9, "rankings", (("1", "2", "3", "4"), r)) for r in rankings]
    answers += [("IN", 9, "best_worst", (("1", "2", "3", "4"), "3", "1"))]
    wins: Counter = Counter()
    for ranking in rankings:
        wins.update((ranking[a], ranking[b]) for a, b in combinations(range(4), 2))
    wins.update([("3", "1"), ("3", "2"), ("3", "4"), ("2", "1"), ("4", "1")])  # the best–worst answer's pairs
    expected = {}
    for a, b in combinations("1234", 2):
        if wins[(a, b)] != wins[(b, a)]:
            chosen, rejected = (a, b) if wins[(a, b)] > wins[(b, a)] else (b, a)
            expected[(chosen, rejected)] = (wins[(chosen, rejected)], wins[(rejected, chosen)])
    found = majority_preferences(answers)
    assert {(p.chosen, p.rejected): (p.chosen_votes, p.rejected_votes) for p in found.rows} == expected
    assert found.undecided == 6 - len(expected)


def test_images_are_ranked_within_each_set_the_answers_link():
    from stats.comparisons import set_rankings

    answers = [("IN", "p1-1-2", "pairs", ("a", "b", "left")), ("IN", "p1-1-3", "pairs", ("a", "c", "left")),
               ("IN", "p1-2-3", "pairs", ("b", "c", "tie")), ("IN", "p2-1-2", "pairs", ("x", "y", "right")),
               ("JP", "p1-1-2", "pairs", ("a", "b", "right")), ("JP", "p1-1-3", "pairs", ("a", "c", "right")),
               ("JP", "p1-2-3", "pairs", ("b", "c", "left"))]
    scores = set_rankings(answers)
    india = {s.thing: s for s in scores if s.group == "IN"}
    assert set(india) == {"a", "b", "c"}  # x and y: one pair, its preference says it all
    assert india["a"].rank == 1 and india["b"].score == pytest.approx(india["c"].score)
    assert india["a"].items == ("p1-1-2", "p1-1-3", "p1-2-3") and (india["b"].wins, india["b"].ties) == (0, 1)
    assert sum(s.score for s in india.values()) == pytest.approx(0, abs=1e-9)
    japan = {s.thing: s.rank for s in scores if s.group == "JP"}
    assert japan == {"b": 1, "c": 2, "a": 3}


def test_two_sets_of_one_group_are_ranked_apart():
    from stats.comparisons import set_rankings

    answers = [("IN", f"{p}-{i}", "rankings", ((f"{p}1", f"{p}2", f"{p}3"), (f"{p}3", f"{p}2", f"{p}1")))
               for p in "uv" for i in range(2)]
    scores = set_rankings(answers)
    assert sorted({(s.set, s.items) for s in scores}) == [(1, ("u-0", "u-1")), (2, ("v-0", "v-1"))]
    assert {s.thing: s.rank for s in scores if s.set == 2} == {"v3": 1, "v2": 2, "v1": 3}

"""Best–worst scaling and rankings (stats.comparisons.best_worst): counting scores by hand, the
implied pairs and rank-breaking against the pairwise fit, planted truths, the screen position's
sway, and the refusals. Pure, no database."""

import json
import re

import numpy as np
import pytest

from stats.comparisons import best_worst, bradley_terry, rankings

STRENGTHS = np.array([-1.0, -0.6, -0.2, 0.1, 0.4, 0.8])
NAMES = [f"m{i}" for i in range(len(STRENGTHS))]


def simulate_best_worst(n=3000, *, per_trial=4, seed=0, first_edge=0.0):
    """Trials of ``per_trial`` things: best by the MaxDiff model (Gumbel utilities), worst the lowest
    of the rest; the first screen position's utility raised by ``first_edge`` for the best."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        shown = rng.choice(len(STRENGTHS), per_trial, replace=False)
        utility = STRENGTHS[shown] + rng.gumbel(size=per_trial)
        utility[0] += first_edge
        best = int(np.argmax(utility))
        badness = -STRENGTHS[shown] + rng.gumbel(size=per_trial)
        badness[best] = -np.inf
        rows.append(([NAMES[i] for i in shown], NAMES[shown[best]], NAMES[shown[int(np.argmax(badness))]]))
    return rows


def simulate_rankings(n=2000, *, per_trial=4, seed=0):
    """Rankings by the Plackett–Luce model: Gumbel utilities sorted."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        shown = rng.choice(len(STRENGTHS), per_trial, replace=False)
        order = shown[np.argsort(-(STRENGTHS[shown] + rng.gumbel(size=per_trial)))]
        rows.append(([NAMES[i] for i in shown], [NAMES[i] for i in order]))
    return rows


# --- best–worst ----------------------------------------------------------------------------------

TINY = [
    (["a", "b", "c"], "a", "c"),
    (["b", "c", "d"], "b", "d"),
    (["a", "b", "d"], "b", "a"),
    (["a", "c", "d"], "a", "d"),
]


def test_the_counting_score_is_best_minus_worst_over_shown():
    fit = best_worst(TINY, n_resamples=0)
    counts = {t.thing: t.counts for t in fit.things}
    assert counts["a"] == {"shown": 3, "best": 2, "worst": 1, "count_score": pytest.approx(1 / 3)}
    assert counts["b"] == {"shown": 3, "best": 2, "worst": 0, "count_score": pytest.approx(2 / 3)}
    assert counts["c"] == {"shown": 3, "best": 0, "worst": 1, "count_score": pytest.approx(-1 / 3)}
    assert counts["d"] == {"shown": 3, "best": 0, "worst": 2, "count_score": pytest.approx(-2 / 3)}
    assert fit.trials == 4 and fit.design == "best_worst"


def test_the_fit_is_the_pairwise_fit_of_the_implied_pairs():
    # best beats every other shown; every other shown beats the worst: 2K − 3 pairs per trial
    implied = [
        ("a", "b", "left"), ("a", "c", "left"), ("b", "c", "left"),
        ("b", "c", "left"), ("b", "d", "left"), ("c", "d", "left"),
        ("b", "a", "left"), ("b", "d", "left"), ("d", "a", "left"),
        ("a", "c", "left"), ("a", "d", "left"), ("c", "d", "left"),
    ]
    pairs = bradley_terry(implied, n_resamples=0, penalty=0.1)
    fit = best_worst(TINY, n_resamples=0, penalty=0.1)
    for thing in "abcd":
        assert fit.scored(thing).score == pytest.approx(pairs.score(thing).score, abs=1e-9)
        assert fit.scored(thing).rank == pairs.score(thing).rank


def test_the_implied_pairs_fit_orders_a_planted_truth():
    fit = best_worst(simulate_best_worst(), n_resamples=200)
    assert [t.thing for t in fit.things] == NAMES[::-1]
    assert [t.rank for t in fit.things] == list(range(1, 7))
    assert abs(sum(t.score for t in fit.things)) < 1e-9
    assert all(t.ci_low < t.score < t.ci_high for t in fit.things)
    counting = [t.counts["count_score"] for t in fit.things]
    assert counting == sorted(counting, reverse=True)  # the counting scores agree
    assert fit.thin is None and fit.note is None


def test_its_intervals_resample_whole_trials_from_the_seed():
    rows = simulate_best_worst(400)
    first, again = best_worst(rows, n_resamples=100, seed=3), best_worst(rows, n_resamples=100, seed=3)
    assert first.as_dict() == again.as_dict()
    assert best_worst(rows, n_resamples=100, seed=4).as_dict() != first.as_dict()
    assert all(t.ci_low is None for t in best_worst(rows, n_resamples=0).things)


def test_a_planted_first_position_bias_of_the_best_choice_is_found():
    fit = best_worst(simulate_best_worst(2000, first_edge=1.0), n_resamples=0)
    best = fit.positions["best"]
    assert best.positions[0].share > 0.4 and best.positions[0].expected == pytest.approx(0.25)
    assert best.p_value < 1e-6 and best.n == 2000


def test_no_position_bias_is_found_where_none_was_planted():
    fit = best_worst(simulate_best_worst(2000), n_resamples=0)
    assert fit.positions["best"].p_value > 0.05 and fit.positions["worst"].p_value > 0.05


def test_the_position_shares_count_by_hand_with_trials_of_different_sizes():
    rows = [(["a", "b"], "a", "b"), (["a", "b", "c"], "c", "a"), (["b", "c", "a"], "b", "a")]
    best = best_worst(rows, n_resamples=0).positions["best"]
    assert [(p.position, p.chosen, p.shown) for p in best.positions] == [(1, 2, 3), (2, 0, 3), (3, 1, 2)]
    expected = [1 / 2 + 1 / 3 + 1 / 3, 1 / 2 + 1 / 3 + 1 / 3, 2 / 3]  # Σ 1/K over trials showing the position
    assert [p.expected * p.shown for p in best.positions] == pytest.approx(expected)
    assert best.chi2 == pytest.approx(sum((o - e) ** 2 / e for o, e in zip([2, 0, 1], expected)))


def test_it_takes_trials_as_tuples_or_numpy_arrays_alike():
    as_arrays = [(np.array(shown), np.str_(best), np.str_(worst)) for shown, best, worst in TINY]
    as_tuples = [(tuple(shown), best, worst) for shown, best, worst in TINY]
    assert best_worst(as_arrays, n_resamples=20).as_dict() == best_worst(as_tuples, n_resamples=20).as_dict()
    ranked = [(np.array(["a", "b"]), np.array(["b", "a"]))]
    assert rankings(ranked, n_resamples=0).scored("b").rank == 1


def test_as_dict_is_plain_json():
    result = best_worst(TINY, n_resamples=20).as_dict()
    assert json.loads(json.dumps(result, allow_nan=False)) == result
    assert set(result["things"]["a"]) == {"shown", "best", "worst", "count_score", "score", "ci_low", "ci_high", "rank"}
    assert set(result["position_bias"]) == {"best", "worst"}


@pytest.mark.parametrize("row, problem", [
    ((["a", "b", "c"], "a", "a"), "row 2: best and worst are the same thing 'a'"),
    ((["a", "b", "c"], "z", "a"), "row 2: best 'z' is not among the things shown"),
    ((["a", "b", "c"], "a", "z"), "row 2: worst 'z' is not among the things shown"),
    ((["a"], "a", "a"), "row 2: fewer than 2 things shown (1)"),
    ((["a", "b", "a"], "a", "b"), "row 2: shown names a more than once"),
    (("abc", "a", "b"), "row 2: shown must be a sequence of things, not 'abc'"),
    ((["a", "", "c"], "a", "c"), "row 2: an empty name among the things shown"),
    ((["a", "b"], "a"), "row 2: expected (shown, best, worst), got (['a', 'b'], 'a')"),
])
def test_it_refuses_a_bad_trial_naming_its_row(row, problem):
    with pytest.raises(ValueError) as refused:
        best_worst([(["a", "b", "c"], "a", "c"), row])
    assert str(refused.value) == problem


# --- rankings ------------------------------------------------------------------------------------

def test_rankings_are_the_pairwise_fit_of_every_higher_over_every_lower():
    rows = [(["a", "b", "c"], ["c", "a", "b"]), (["b", "c", "d"], ["b", "d", "c"]), (["a", "d"], ["d", "a"])]
    broken = [("c", "a", "left"), ("c", "b", "left"), ("a", "b", "left"),
              ("b", "d", "left"), ("b", "c", "left"), ("d", "c", "left"),
              ("d", "a", "left")]
    fit, pairs = rankings(rows, n_resamples=0), bradley_terry(broken, n_resamples=0)
    for thing in "abcd":
        assert fit.scored(thing).score == pytest.approx(pairs.score(thing).score, abs=1e-9)
    assert fit.scored("c").counts == {"shown": 2, "first": 1, "mean_place": 2.0}
    assert fit.scored("a").counts == {"shown": 2, "first": 0, "mean_place": 2.0}
    assert fit.scored("d").counts == {"shown": 2, "first": 1, "mean_place": 1.5}


def test_rankings_order_a_planted_truth_with_intervals():
    fit = rankings(simulate_rankings(), n_resamples=200)
    assert [t.thing for t in fit.things] == NAMES[::-1]
    assert all(t.ci_low < t.score < t.ci_high for t in fit.things)
    assert fit.positions["first"].p_value > 0.05 and fit.design == "rankings"


def test_rankings_note_things_never_ranked_together():
    fit = rankings([(["a", "b"], ["a", "b"]), (["c", "d"], ["d", "c"])], n_resamples=0)
    assert fit.thin == "the comparison graph is not connected" and "cut off" in fit.note


@pytest.mark.parametrize("row, problem", [
    ((["a", "b", "c"], ["a", "b"]), "row 1: the ranking ['a', 'b'] is not an order of the things shown"),
    ((["a", "b", "c"], ["a", "b", "z"]), "row 1: the ranking ['a', 'b', 'z'] is not an order"),
    ((["a", "b", "c"], ["a", "b", "b"]), "row 1: the ranking ['a', 'b', 'b'] is not an order"),
    ((["a", "b", "c"], "abc"), "row 1: the ranking must be a sequence of things, not 'abc'"),
    ((["a"], ["a"]), "row 1: fewer than 2 things shown (1)"),
])
def test_it_refuses_a_ranking_that_is_not_an_order_of_the_things_shown(row, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        rankings([row])


def test_it_refuses_options_it_cannot_use():
    with pytest.raises(ValueError, match="n_resamples cannot be negative"):
        rankings([(["a", "b"], ["a", "b"])], n_resamples=-1)
    with pytest.raises(ValueError, match="penalty must be positive"):
        best_worst(TINY, penalty=-1)

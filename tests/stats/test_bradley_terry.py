"""Bradley–Terry scores of paired comparisons (stats.comparisons.bradley_terry): the fit against
choix's, ties by halving, simulated studies with known strengths, ranks, intervals, position bias,
and the refusals. Pure, no database."""

import json

import numpy as np
import pandas as pd
import pytest

from stats.comparisons import bradley_terry

STRENGTHS = np.array([-1.2, -0.7, -0.3, 0.0, 0.2, 0.5, 0.9, 1.4])  # log-strengths, mean 0.1
NAMES = [f"model-{i}" for i in range(len(STRENGTHS))]


def simulate(n=4000, *, strengths=STRENGTHS, seed=1, tie_share=0.0, left_edge=0.0):
    """(left, right, winner) rows: random distinct pairs, the left one winning with Bradley–Terry's
    chance (log-odds shifted by ``left_edge`` for a left bias), a share of them declared ties."""
    rng = np.random.default_rng(seed)
    k = len(strengths)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    p_left = 1 / (1 + np.exp(strengths[right] - strengths[left] - left_edge))
    winner = np.where(rng.random(n) < p_left, "left", "right")
    winner = np.where(rng.random(n) < tie_share, "tie", winner)
    return [(NAMES[a], NAMES[b], str(w)) for a, b, w in zip(left, right, winner)]


def scores(fit, names=NAMES):
    return np.array([fit.score(name).score for name in names])


def choix_scores(rows, alpha):
    """choix's penalised ML fit of rows that are all decisive, centred, in NAMES' order."""
    choix = pytest.importorskip("choix")
    index = {name: i for i, name in enumerate(NAMES)}
    data = [(index[a], index[b]) if w == "left" else (index[b], index[a]) for a, b, w in rows]
    fitted = choix.opt_pairwise(len(NAMES), data, alpha=alpha, tol=1e-12)
    return fitted - fitted.mean()


# --- the fit -------------------------------------------------------------------------------------

def test_it_gives_choix_scores_on_decisive_comparisons():
    # choix's objective is NLL + alpha Σ s² (its code; its docs say a prior of variance 1/alpha);
    # ours is NLL + penalty/2 Σ s², so the same fit is choix's alpha = penalty / 2.
    rows = simulate(600)
    for penalty in (0.01, 0.5):
        fit = bradley_terry(rows, penalty=penalty, n_resamples=0)
        assert np.abs(scores(fit) - choix_scores(rows, penalty / 2)).max() < 1e-6


def test_a_tie_is_half_a_win_each_way_as_choix_fits_it():
    # Every comparison twice, a tie as one win each way: choix minimises 2·NLL + alpha Σ s², ours
    # NLL + penalty/2 Σ s² (a tie: half a win each way), the same optimum when alpha = penalty.
    rows = simulate(600, tie_share=0.3, seed=2)
    assert sum(w == "tie" for _, _, w in rows) > 100
    doubled = []
    for a, b, w in rows:
        doubled += [(a, b, "left"), (a, b, "right")] if w == "tie" else [(a, b, w)] * 2
    fit = bradley_terry(rows, penalty=0.02, n_resamples=0)
    assert np.abs(scores(fit) - choix_scores(doubled, 0.02)).max() < 1e-6


def test_a_tie_weighs_as_much_as_a_win_each_way_at_half_weight():
    # Doubling every comparison (a tie as one win each way) and the penalty leaves the optimum.
    rows = simulate(300, tie_share=0.4, seed=3)
    doubled = []
    for a, b, w in rows:
        doubled += [(a, b, "left"), (b, a, "left")] if w == "tie" else [(a, b, w)] * 2
    halved = bradley_terry(rows, penalty=0.1, n_resamples=0)
    as_wins = bradley_terry(doubled, penalty=0.2, n_resamples=0)
    assert np.abs(scores(halved) - scores(as_wins)).max() < 1e-9


def test_scores_are_centred_log_strengths():
    fit = bradley_terry(simulate(2000), n_resamples=0)
    assert abs(scores(fit).mean()) < 1e-12
    assert np.corrcoef(scores(fit), STRENGTHS)[0, 1] > 0.99


def test_a_simulated_study_recovers_the_order_and_its_intervals_cover_the_truth():
    truth = STRENGTHS - STRENGTHS.mean()
    covered, intervals = 0, 0
    for seed in range(60):
        fit = bradley_terry(simulate(3000, seed=seed), n_resamples=200, seed=seed)
        low = np.array([fit.score(n).ci_low for n in NAMES])
        high = np.array([fit.score(n).ci_high for n in NAMES])
        assert (low <= scores(fit)).all() and (scores(fit) <= high).all()
        covered += int(((low <= truth) & (truth <= high)).sum())
        intervals += len(NAMES)
        if seed == 0:
            assert [t.thing for t in fit.things] == NAMES[::-1]  # best first
            assert [t.rank for t in fit.things] == list(range(1, 9))
    assert 0.9 <= covered / intervals <= 0.99  # 95% intervals (0.935 here; percentile intervals run a little short)


def test_a_thing_that_won_every_comparison_gets_a_finite_score():
    rows = [("best", other, "left") for other in "abc"] * 5 + [("a", "b", "left"), ("b", "c", "right")]
    fit = bradley_terry(rows, n_resamples=50)
    best = fit.score("best")
    assert best.rank == 1 and np.isfinite(best.score) and np.isfinite(best.ci_high)
    assert (best.wins, best.losses, best.comparisons) == (15, 0, 15)
    # the penalty is what holds it: a stronger one pulls it in
    assert bradley_terry(rows, penalty=1.0, n_resamples=0).score("best").score < best.score


def test_equal_scores_share_the_smaller_rank():
    # a and b each beat c twice and tie with each other: equal by symmetry
    rows = [("a", "c", "left"), ("c", "a", "right")] * 2 + [("b", "c", "left")] * 2 + [("a", "b", "tie")]
    rows += [("c", "b", "right")] * 2
    fit = bradley_terry(rows, n_resamples=0)
    assert fit.score("a").score == pytest.approx(fit.score("b").score, abs=1e-12)
    assert (fit.score("a").rank, fit.score("b").rank, fit.score("c").rank) == (1, 1, 3)


def test_it_counts_wins_losses_ties_and_win_rates_with_ties_halved():
    rows = [("a", "b", "left"), ("b", "a", "left"), ("a", "b", "tie"), ("a", "c", "right")]
    fit = bradley_terry(rows, n_resamples=0)
    a = fit.score("a")
    assert (a.wins, a.losses, a.ties, a.comparisons) == (1, 2, 1, 4)
    rates = {(w.thing, w.over): (w.rate, w.n) for w in fit.win_rates}
    assert rates[("a", "b")] == (pytest.approx(0.5), 3)  # 1 win + half a tie of 3
    assert rates[("b", "a")] == (pytest.approx(0.5), 3)
    assert rates[("c", "a")] == (1.0, 1) and rates[("a", "c")] == (0.0, 1)
    assert ("b", "c") not in rates  # never compared
    assert fit.comparisons == 4


# --- intervals and the bootstrap -----------------------------------------------------------------

def test_the_same_seed_gives_the_same_intervals():
    rows = simulate(500)
    first, again = bradley_terry(rows, n_resamples=100, seed=7), bradley_terry(rows, n_resamples=100, seed=7)
    other = bradley_terry(rows, n_resamples=100, seed=8)
    assert first.as_dict() == again.as_dict()
    assert first.as_dict()["things"] != other.as_dict()["things"]


def test_no_resamples_give_no_intervals():
    fit = bradley_terry(simulate(200), n_resamples=0)
    assert all(t.ci_low is None and t.ci_high is None for t in fit.things)
    assert all(t["ci_low"] is None for t in fit.as_dict()["things"].values())


def test_narrower_intervals_from_more_comparisons():
    def width(n):
        fit = bradley_terry(simulate(n), n_resamples=200)
        return np.mean([t.ci_high - t.ci_low for t in fit.things])

    assert width(4000) < width(400) / 2


# --- thin data -----------------------------------------------------------------------------------

def test_a_disconnected_graph_keeps_its_scores_with_a_note_naming_the_cut_off_things():
    rows = [("a", "b", "left"), ("b", "c", "left"), ("a", "c", "tie"), ("x", "y", "left")]
    fit = bradley_terry(rows, n_resamples=20)
    assert fit.thin == "the comparison graph is not connected"
    assert "{x, y} cut off from {a, b, c}" in fit.note and "compare only within a set" in fit.note
    assert len(fit.things) == 5 and fit.as_dict()["note"] == fit.note
    assert fit.score("x").score == pytest.approx(-fit.score("y").score)  # each set centred on its own


def test_a_connected_graph_has_no_note():
    fit = bradley_terry(simulate(200), n_resamples=0)
    assert fit.thin is None and fit.note is None


def test_no_comparisons_are_too_thin():
    fit = bradley_terry([], n_resamples=10)
    assert fit.things == () and fit.comparisons == 0
    assert fit.thin == fit.note == "fewer than 2 things compared (0): no scores"
    assert fit.position_bias.left_share is None and fit.position_bias.p_value is None


# --- position bias -------------------------------------------------------------------------------

def test_a_planted_left_bias_is_found():
    bias = bradley_terry(simulate(2000, left_edge=0.6, tie_share=0.1), n_resamples=0).position_bias
    assert bias.left_share > 0.6 and bias.ci_low > 0.5 and bias.p_value < 1e-6
    assert 1700 < bias.n < 1900  # ties left out


def test_no_left_bias_is_found_where_none_was_planted():
    bias = bradley_terry(simulate(2000), n_resamples=0).position_bias
    assert abs(bias.left_share - 0.5) < 0.03 and bias.ci_low < 0.5 < bias.ci_high and bias.p_value > 0.05


def test_the_position_bias_is_the_left_share_with_a_wilson_interval_and_an_exact_test():
    rows = [("a", "b", "left")] * 7 + [("a", "b", "right")] * 3 + [("a", "b", "tie")] * 5
    bias = bradley_terry(rows, n_resamples=0).position_bias
    assert (bias.n, bias.left_wins, bias.left_share) == (10, 7, 0.7)
    z, p, n = 1.959963984540054, 0.7, 10  # Wilson (1927)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (bias.ci_low, bias.ci_high) == (pytest.approx(centre - half), pytest.approx(centre + half))
    assert bias.p_value == pytest.approx(2 * (120 + 45 + 10 + 1) / 1024)  # P(X ≥ 7) + P(X ≤ 3), X ~ Bin(10, ½)


# --- input and output ----------------------------------------------------------------------------

def test_a_dataframe_gives_the_same_fit_as_its_rows():
    rows = simulate(300, tie_share=0.2)
    frame = pd.DataFrame(rows, columns=["left", "right", "winner"]).assign(extra=1)
    assert bradley_terry(frame, n_resamples=30).as_dict() == bradley_terry(rows, n_resamples=30).as_dict()


def test_as_dict_is_plain_json():
    rows = [(np.str_("a"), np.str_("b"), "left"), ("b", "c", "tie"), ("c", "a", "right")]
    result = bradley_terry(rows, n_resamples=10).as_dict()
    assert set(result) == {"comparisons", "things", "win_rates", "position_bias", "note"}
    assert json.loads(json.dumps(result, allow_nan=False)) == result
    assert all(type(name) is str for name in result["things"])


@pytest.mark.parametrize("row, problem", [
    (("a", "b", "won"), "row 2: winner 'won' is not left, right or tie"),
    (("a", "a", "left"), "row 2: left and right are the same thing 'a'"),
    (("", "b", "left"), "row 2: left is empty"),
    (("a", None, "tie"), "row 2: right is empty"),
    (("a", "b"), "row 2: expected (left, right, winner), got ('a', 'b')"),
    ((["a"], "b", "left"), "row 2: left ['a'] cannot name a thing"),
    (("a", "b", ["left"]), "row 2: winner ['left'] is not left, right or tie"),
])
def test_it_refuses_a_bad_row_naming_it(row, problem):
    with pytest.raises(ValueError) as refused:
        bradley_terry([("a", "b", "left"), row, ("b", "a", "tie")])
    assert str(refused.value) == problem


def test_it_names_every_bad_row():
    with pytest.raises(ValueError, match=r"row 1: .*; row 3: .*; and 2 more"):
        bradley_terry([("a", "a", "left"), ("a", "b", "left")] + [("a", "b", "x")] * 6)


def test_it_refuses_a_frame_without_the_columns():
    with pytest.raises(ValueError, match="no column.* winner"):
        bradley_terry(pd.DataFrame({"left": ["a"], "right": ["b"], "won": ["left"]}))


@pytest.mark.parametrize("options, problem", [
    ({"n_resamples": -1}, "n_resamples cannot be negative"),
    ({"confidence": 1.0}, "confidence must be between 0 and 1"),
    ({"penalty": 0.0}, "penalty must be positive"),
])
def test_it_refuses_options_it_cannot_use(options, problem):
    with pytest.raises(ValueError, match=problem):
        bradley_terry([("a", "b", "left")], **options)

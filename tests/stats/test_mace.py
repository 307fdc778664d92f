"""MACE (stats.gold.mace): simulated good annotators and spammers, crowd-kit's MACE (EM) on the same
data as the reference implementation, and our Dawid–Skene beside it. Pure, no database."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from stats.gold import dawid_skene, mace

# The chance each annotator knows the answer; the last four are spammers: two always give the same
# label, two answer at random.
COMPETENCE = [0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.0, 0.0, 0.05, 0.1]
GOOD, SPAMMERS = range(6), range(6, 10)


def simulate(competence=COMPETENCE, *, items=400, labels=4, per_item=3, seed=1):
    """(task, worker, label) rows, ``per_item`` workers per item; a worker knows the truth with
    chance their competence, else answers by their strategy (workers 6 and 7 always label 0 and 1,
    the rest draw from a random spread over the labels); and the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, labels, items)
    strategies = rng.dirichlet(np.ones(labels), size=len(competence))
    strategies[6], strategies[7] = np.eye(labels)[0], np.eye(labels)[1]
    rows = []
    for t in range(items):
        for w in rng.choice(len(competence), per_item, replace=False):
            knows = rng.random() < competence[w]
            rows.append((t, f"w{w}", int(truth[t] if knows else rng.choice(labels, p=strategies[w]))))
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    return frame.sort_values("worker", kind="stable").reset_index(drop=True), truth


def crowdkit_mace(frame):
    """crowd-kit's MACE (EM, its defaults otherwise) as {worker: competence}, {task: label}.

    crowd-kit indexes some of its tables in order of first appearance and others sorted, so names
    are coded first in order of first appearance (then both orders are the same). Its restarts all
    start from the same point (each draws from ``random_state`` afresh), so one is enough."""
    MACE = pytest.importorskip("crowdkit.aggregation").MACE

    coded, names = frame.copy(), {}
    for column in ("task", "worker", "label"):
        coded[column], names[column] = pd.factorize(frame[column])
    fit = MACE(method="em", n_restarts=1, n_iter=50, random_state=0)
    labels = fit.fit_predict(coded)
    competence = dict(zip(names["worker"], fit.spamming_[:, 1]))
    return competence, {names["task"][t]: names["label"][label] for t, label in labels.items()}


def competences(fit):
    c = fit.competence_of()
    return np.array([c[f"w{w}"] for w in range(len(COMPETENCE))])


def test_it_ranks_every_good_annotator_above_every_spammer():
    frame, truth = simulate()
    fit = mace(frame)
    c = competences(fit)
    assert c[list(GOOD)].min() > c[list(SPAMMERS)].max() + 0.3
    assert c[list(SPAMMERS)].max() < 0.2
    assert stats.spearmanr(c, COMPETENCE).statistic > 0.9
    labels = fit.label_of()
    assert np.mean([labels[t] == truth[t] for t in labels]) > 0.85


@pytest.mark.filterwarnings("ignore")  # crowd-kit's own pandas deprecations
@pytest.mark.parametrize(("labels", "seed"), [(4, 1), (2, 2), (6, 3)])
def test_it_agrees_with_crowdkit_mace(labels, seed):
    frame, _ = simulate(labels=labels, seed=seed)
    fit = mace(frame)
    competence, labels = crowdkit_mace(frame)
    ours = fit.competence_of()
    for worker, theirs in competence.items():
        assert ours[worker] == pytest.approx(theirs, abs=0.02)
    ours_labels = fit.label_of()
    assert np.mean([ours_labels[t] == labels[t] for t in labels]) >= 0.95


def test_dawid_skene_ranks_the_spammers_last_too_but_mace_sees_them_as_spammers():
    frame, _ = simulate()
    by_mace, by_ds = competences(mace(frame)), competences(dawid_skene(frame))
    assert by_ds[list(GOOD)].min() > by_ds[list(SPAMMERS)].max()
    assert stats.spearmanr(by_mace, by_ds).statistic > 0.8
    # Dawid–Skene's competence is the chance of the right label, which a spammer gets by luck now
    # and then; MACE's is the chance of not spamming.
    assert by_ds[list(SPAMMERS)].mean() > by_mace[list(SPAMMERS)].mean() + 0.1


def test_its_posteriors_are_those_its_competence_and_strategies_imply():
    frame, _ = simulate(items=60)
    fit = mace(frame, restarts=3)
    theta, labels = fit.competence_of(), fit.labels
    row = {u: i for i, u in enumerate(fit.units["unit"])}
    for task, ratings in list(frame.groupby("task"))[:10]:
        likelihood = np.ones(len(labels))
        for _, worker, given in ratings.itertuples(index=False):
            a = labels.index(given)
            spam = (1 - theta[worker]) * fit.strategies[worker][a]
            likelihood *= spam + theta[worker] * (np.arange(len(labels)) == a)
        assert fit.posteriors[row[task]] == pytest.approx(likelihood / likelihood.sum(), abs=1e-9)


def test_a_unanimous_pair_of_annotators_is_trusted_on_a_two_unit_example():
    rows = [("u1", "a", "x"), ("u1", "b", "x"), ("u2", "a", "y"), ("u2", "b", "y")]
    fit = mace(rows)
    assert fit.label_of() == {"u1": "x", "u2": "y"}
    assert all(p > 0.99 for p in fit.units["probability"])
    assert fit.units["ratings"].tolist() == [2, 2]
    assert fit.annotators["items"].tolist() == [2, 2]


def test_the_same_seed_gives_the_same_fit_and_the_best_restart_is_kept():
    frame, _ = simulate(items=100)
    first, again = mace(frame, seed=7), mace(frame, seed=7)
    assert first.competence_of() == again.competence_of()
    assert first.restart == again.restart
    single = [mace(frame, seed=7, restarts=1).log_likelihood]
    assert first.log_likelihood >= max(single) - 1e-9


def test_labels_keep_the_order_given_and_a_label_never_given_gets_a_column():
    fit = mace([("u1", "a", "x"), ("u1", "b", "x"), ("u2", "a", "x")], labels=["y", "x", "z"])
    assert fit.labels == ["y", "x", "z"]
    assert fit.posteriors.shape == (2, 3)
    assert fit.strategies["a"].shape == (3,)


def test_a_missing_label_is_not_a_rating():
    fit = mace([("u1", "a", "x"), ("u1", "b", None), ("u2", "b", float("nan")), ("u2", "a", "y")])
    assert fit.units["ratings"].tolist() == [1, 1]
    assert fit.annotators["annotator"].tolist() == ["a"]


def test_no_ratings_give_an_empty_fit():
    fit = mace([])
    assert fit.units.empty and fit.annotators.empty
    assert fit.label_of() == {} and fit.competence_of() == {}


def test_it_refuses_a_label_outside_the_labels_given():
    with pytest.raises(ValueError, match="'z' is not in labels"):
        mace([("u1", "a", "z")], labels=["x", "y"])


@pytest.mark.parametrize("option", [{"restarts": 0}, {"max_iter": 0}, {"short": 0}])
def test_it_refuses_no_restarts_or_no_steps(option):
    with pytest.raises(ValueError, match="at least 1"):
        mace([("u1", "a", "x")], **option)


@pytest.mark.parametrize("tol", [1e-6, 1e-2])  # every run to the last step; runs converging at different steps
def test_the_restarts_stepped_side_by_side_give_the_fit_they_give_one_after_another(monkeypatch, tol):
    import importlib

    module = importlib.import_module("stats.gold.mace")

    frame, _ = simulate(items=300)
    monkeypatch.setattr(module, "SIDE_BY_SIDE", 10**9)
    together = mace(frame, seed=3, tol=tol)
    monkeypatch.setattr(module, "SIDE_BY_SIDE", 0)
    apart = mace(frame, seed=3, tol=tol)
    assert (together.log_likelihood, together.iterations, together.restart) == (
        apart.log_likelihood, apart.iterations, apart.restart)
    assert np.array_equal(together.posteriors, apart.posteriors)
    pd.testing.assert_frame_equal(together.annotators, apart.annotators, check_exact=True)
    pd.testing.assert_frame_equal(together.units, apart.units, check_exact=True)


@pytest.mark.parametrize("side_by_side", [10**9, 0])
def test_short_runs_pick_the_restart_and_only_the_best_goes_on(monkeypatch, side_by_side):
    """With ``short``, every restart runs that many steps and the best goes on to ``max_iter``: the
    fit every restart run to the end gives, in far fewer steps."""
    import importlib

    module = importlib.import_module("stats.gold.mace")
    frame, _ = simulate(items=300)
    monkeypatch.setattr(module, "SIDE_BY_SIDE", side_by_side)
    steps = []
    real = module._e_step
    monkeypatch.setattr(module, "_e_step", lambda r, *a: steps.append(r.runs) or real(r, *a))

    every = mace(frame, seed=3, tol=0)
    assert sum(steps) == 10 * 50 + 10  # each restart to the end, and one last E-step each
    steps.clear()
    short = mace(frame, seed=3, tol=0, short=5)

    assert sum(steps) == 10 * 5 + 10 + 45 + 1
    assert short.iterations == 50 and not short.converged
    assert abs(short.log_likelihood - every.log_likelihood) <= 1e-3 * frame["task"].nunique()
    assert (short.units["label"].to_numpy() == every.units["label"].to_numpy()).mean() > 0.99
    np.testing.assert_allclose(short.annotators["competence"], every.annotators["competence"], atol=0.03)


def test_short_runs_as_long_as_the_whole_fit_change_nothing():
    frame, _ = simulate(items=100)
    whole, short = mace(frame, seed=3), mace(frame, seed=3, short=50)
    assert (whole.log_likelihood, whole.restart, whole.iterations) == (short.log_likelihood, short.restart,
                                                                        short.iterations)


def test_a_converged_short_run_is_kept_as_it_is():
    frame, _ = simulate(items=100)
    fit = mace(frame, seed=3, short=40, tol=1e-2)  # converges within the short runs
    assert fit.converged and fit.iterations < 40

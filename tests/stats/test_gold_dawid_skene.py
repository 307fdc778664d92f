"""Dawid–Skene (stats.gold.dawid_skene): simulated annotators of known competence, and crowd-kit's
DawidSkene on the same data as the reference implementation. Pure, no database."""

import numpy as np
import pandas as pd
import pytest

from stats.gold import dawid_skene


def simulate(accuracies, *, items=300, labels=3, rate=0.7, seed=0):
    """(task, worker, label) rows: each worker rates each item with chance ``rate`` and answers the
    truth with chance their accuracy, else another label at random; and the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, labels, items)
    rows = []
    for t in range(items):
        for w, accuracy in enumerate(accuracies):
            if rng.random() < rate:
                wrong = [k for k in range(labels) if k != truth[t]]
                rows.append((t, f"w{w}", int(truth[t] if rng.random() < accuracy else rng.choice(wrong))))
    return pd.DataFrame(rows, columns=["task", "worker", "label"]), truth


ACCURACIES = [0.9, 0.8, 0.7, 0.55, 0.45, 0.4, 0.35]  # a hard setting: most workers are poor


def majority(frame):
    counts = frame.groupby(["task", "label"]).size().unstack(fill_value=0)
    return counts.idxmax(axis=1)  # the smallest label on a tie


def test_it_recovers_the_competence_ordering_of_simulated_annotators():
    frame, _ = simulate(ACCURACIES)
    fit = dawid_skene(frame)
    competence = fit.competence_of()
    estimated = [competence[f"w{w}"] for w in range(len(ACCURACIES))]
    assert estimated[:5] == sorted(estimated[:5], reverse=True)  # 0.9 > 0.8 > 0.7 > 0.55 > 0.45
    for est, true in zip(estimated, ACCURACIES, strict=True):
        assert est == pytest.approx(true, abs=0.08)
    assert fit.converged and fit.iterations < 100
    items = dict(zip(fit.annotators["annotator"], fit.annotators["items"], strict=True))
    assert items["w0"] == frame[frame["worker"] == "w0"]["task"].nunique()


def test_it_beats_the_majority_vote_on_a_hard_setting():
    frame, truth = simulate(ACCURACIES)
    labels = dawid_skene(frame).label_of()
    mv = majority(frame)
    ds_accuracy = np.mean([labels[t] == truth[t] for t in mv.index])
    mv_accuracy = np.mean([mv[t] == truth[t] for t in mv.index])
    assert ds_accuracy > mv_accuracy + 0.05


def test_it_is_deterministic_and_gives_probabilities():
    frame, _ = simulate(ACCURACIES, items=80, seed=3)
    a, b = dawid_skene(frame), dawid_skene(frame.sample(frac=1, random_state=1))
    assert a.label_of() == b.label_of()
    assert np.allclose(a.posteriors.sum(axis=1), 1)
    assert ((a.units["probability"] > 0) & (a.units["probability"] <= 1)).all()


def test_unanimous_annotators_are_fully_competent():
    rows = [(u, w, lab) for u, lab in enumerate("xyxxy") for w in ("p", "q", "r")]
    fit = dawid_skene(rows, labels=["x", "y"])
    assert fit.label_of() == dict(enumerate("xyxxy"))
    assert all(c == pytest.approx(1) for c in fit.competence_of().values())
    assert fit.priors == pytest.approx([0.6, 0.4])


def test_missing_labels_are_left_out_and_no_ratings_give_an_empty_fit():
    fit = dawid_skene([(1, "p", "x"), (1, "q", None), (2, "p", "y")])
    assert list(fit.units["ratings"]) == [1, 1]
    empty = dawid_skene([])
    assert empty.units.empty and empty.annotators.empty


@pytest.mark.filterwarnings("ignore")  # crowd-kit's own pandas deprecations
def test_it_agrees_with_crowd_kit():
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    frame, _ = simulate(ACCURACIES, seed=7)
    fit = dawid_skene(frame)
    reference = crowdkit.DawidSkene(n_iter=100).fit(frame)
    labels = fit.label_of()
    agree = np.mean([labels[t] == reference.labels_[t] for t in reference.labels_.index])
    assert agree >= 0.99
    priors, errors = reference.priors_, reference.errors_
    for worker, competence in fit.competence_of().items():
        theirs = sum(priors[c] * errors.loc[(worker, c), c] for c in priors.index)
        assert competence == pytest.approx(theirs, abs=0.01)

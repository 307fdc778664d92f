"""The sample-size planner: simulated studies reproduce the pilot's (or the prior's) alpha, their
spread matches the pilot's own bootstrap interval at the pilot's size, it narrows with items and
annotators, and each choice's Prolific cost is counted as the page says."""

import numpy as np
import pytest

from stats.agreement import alpha
from stats.planner import Prices, cost, pilot_model, plan, prior_model, simulated_alphas
from tests.stats.rated import rated_units

DOMAIN = [1, 2, 3, 4, 5]


def pilot(n, agree):
    return rated_units(np.random.default_rng(1), n, agree)


def test_units_that_always_get_one_answer_agree_perfectly_in_every_simulated_study():
    shares = np.eye(5)  # five units, each always given its own value
    alphas = simulated_alphas(shares, "nominal", np.arange(5.0), raters=3, items=40, simulations=50,
                              rng=np.random.default_rng(0))
    assert np.allclose(alphas, 1.0)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_the_pilot_model_reproduces_the_pilots_alpha(level):
    counts = pilot(80, 0.6)
    observed = alpha(counts, level, DOMAIN, n_resamples=0).alpha
    model = pilot_model(counts, level, DOMAIN, observed)
    assert model.source == "pilot"
    assert model.fitted_alpha == pytest.approx(observed, abs=0.03)


def test_the_simulated_spread_at_the_pilots_size_is_the_pilots_own_bootstrap_interval():
    counts = pilot(100, 0.6)
    figures = alpha(counts, "ordinal", DOMAIN, n_resamples=2000)
    model = pilot_model(counts, "ordinal", DOMAIN, figures.alpha)
    (row,) = plan(model, "ordinal", DOMAIN, raters=[4], items=[100], simulations=400)
    assert row["width"] == pytest.approx(figures.ci_high - figures.ci_low, rel=0.3)
    assert row["alpha"] == pytest.approx(figures.alpha, abs=0.05)


def test_the_interval_narrows_with_items_and_with_annotators():
    counts = pilot(60, 0.5)
    model = pilot_model(counts, "ordinal", DOMAIN, alpha(counts, "ordinal", DOMAIN, n_resamples=0).alpha)
    grid = {(r["raters"], r["items"]): r["width"] for r in plan(model, "ordinal", DOMAIN, raters=[2, 10],
                                                                 items=[50, 800], simulations=150)}
    assert grid[(2, 800)] < grid[(2, 50)] / 2
    assert grid[(10, 50)] < grid[(2, 50)]
    assert grid[(10, 800)] == min(grid.values())


@pytest.mark.parametrize(("level", "stated"), [("nominal", 0.3), ("ordinal", 0.5), ("interval", 0.7)])
def test_a_stated_prior_gives_studies_with_that_alpha(level, stated):
    model = prior_model(level, DOMAIN, stated)
    assert model.source == "prior"
    assert model.fitted_alpha == pytest.approx(stated, abs=0.05)
    (row,) = plan(model, level, DOMAIN, raters=[3], items=[200], simulations=150)
    assert row["alpha"] == pytest.approx(stated, abs=0.06)


def test_the_cost_of_a_choice():
    # 200 items × 5 answers / 10 per session = 100 sessions; 10% excluded (paid): 112 paid;
    # 10% returned: 125 places; rewards 112 × £1.50; fee a third; VAT a fifth of the fee.
    assert cost(200, 5, 10, Prices(reward=150, fee_rate=1 / 3, vat_rate=0.2, returns=0.1, exclusions=0.1)) == {
        "sessions": 100, "paid": 112, "places": 125, "rewards": 16800, "fees": 5600, "vat": 1120, "total": 23520,
    }
    assert cost(3, 2, 4, Prices(reward=100, returns=0, exclusions=0))["sessions"] == 2  # a part session is a session


@pytest.mark.parametrize(("call", "message"), [
    (lambda: cost(10, 3, 5, Prices(reward=100, returns=1.0)), "between 0 and 1"),
    (lambda: prior_model("ordinal", DOMAIN, 1.0), "between 0 and 1"),
    (lambda: prior_model("ordinal", DOMAIN, 0.5, [1, 0]), "5 non-negative numbers"),
    (lambda: pilot_model(np.array([[2, 0, 0, 0, 0]]), "ordinal", DOMAIN, 0.5), "at least 2 units"),
    (lambda: pilot_model(np.array([[2, 0, 0, 0, 0]] * 5), "ordinal", DOMAIN, 0.5), "do not vary"),
    (lambda: plan(prior_model("nominal", DOMAIN, 0.5), "nominal", DOMAIN, raters=[1]), "at least 2 annotators"),
    (lambda: plan(prior_model("nominal", DOMAIN, 0.5), "rank", DOMAIN), "unknown level"),
])
def test_bad_choices_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()

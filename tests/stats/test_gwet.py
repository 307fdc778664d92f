"""Gwet's AC1 and AC2 against irrCAC, a published value, a naive implementation from the book, and
the refusal paths."""

import itertools
import math

import numpy as np
import pytest

from stats.agreement import GWET_WEIGHTS, REASON_FEW_UNITS, REASON_SINGLE_CATEGORY, Gwet, alpha, fleiss_kappa, gwet
from stats.agreement.base import STABLE_UNITS
from stats.agreement.gwet import gwet_weights

NAN = np.nan

# irrCAC's raw_4raters (Gwet 2014; the data of Krippendorff's 2011 worked example): 4 raters, 12
# units, values 1-5, missing ratings, unit 12 rated once. Rows are raters, columns units.
RAW_4RATERS = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, NAN],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)

# irrCAC's raw_5observers (Gwet 2014): 5 observers, 15 units, values 0-3, missing ratings.
RAW_5OBSERVERS = np.array(
    [
        [1, 1, 2, NAN, 0, 0, 1, 1, 2, 2, NAN, 0, 1, 3, 1],
        [1, 1, 3, 0, 0, 0, 0, NAN, 2, 1, 1, 0, 2, 3, 1],
        [2, 0, 3, 0, 0, 0, 2, 2, 2, 1, 0, 0, 2, 2, 1],
        [NAN, 1, 3, NAN, NAN, NAN, NAN, 0, NAN, 1, 0, 0, 2, 2, NAN],
        [2, NAN, NAN, 0, 0, 0, 1, NAN, 2, NAN, NAN, NAN, NAN, 3, 1],
    ]
)

# Our own: 25 units, 1 to 6 ratings each (4 units rated once), on an unevenly spaced scale.
OWN = [
    [1, 0, 0, 1, 0], [1, 3, 0, 1, 0], [2, 1, 0, 0, 0], [0, 2, 0, 1, 1], [0, 1, 0, 0, 0], [0, 1, 1, 0, 0],
    [4, 0, 0, 0, 1], [2, 0, 1, 0, 2], [1, 0, 0, 0, 1], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [5, 0, 1, 0, 0],
    [3, 1, 0, 0, 0], [1, 2, 0, 0, 1], [3, 1, 0, 0, 0], [2, 0, 1, 1, 0], [0, 2, 0, 1, 0], [0, 3, 0, 0, 0],
    [1, 0, 1, 0, 0], [1, 0, 0, 0, 0], [2, 2, 1, 0, 1], [3, 1, 0, 0, 0], [2, 0, 0, 0, 1], [2, 0, 0, 2, 0],
    [0, 4, 0, 0, 1],
]
OWN_DOMAIN = [1.0, 2.0, 4.0, 7.0, 10.0]

# Our own, sparse: 40 units of 1 to 3 ratings (13 rated once), 3 values.
SPARSE = [
    [2, 0, 0], [2, 0, 0], [3, 0, 0], [1, 0, 0], [0, 0, 1], [3, 0, 0], [0, 0, 1], [1, 1, 0], [3, 0, 0], [0, 0, 1],
    [1, 0, 1], [2, 0, 1], [2, 1, 0], [1, 1, 0], [2, 0, 1], [1, 0, 0], [1, 1, 1], [2, 1, 0], [1, 0, 0], [0, 1, 2],
    [0, 1, 2], [0, 0, 1], [1, 0, 0], [2, 0, 1], [2, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0], [3, 0, 0], [2, 0, 1],
    [0, 1, 1], [1, 2, 0], [0, 0, 1], [1, 0, 0], [1, 0, 1], [0, 0, 1], [2, 0, 0], [1, 0, 0], [1, 1, 1], [0, 0, 2],
]


def counts_of(raw, domain):
    """Raters × units ratings (NaN missing) as a units × values counts matrix."""
    return np.stack([(raw == v).sum(axis=0) for v in domain], axis=1)


D4, D5 = [1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0]
DATA = {
    "4raters": (counts_of(RAW_4RATERS, D4), D4),
    # A declared scale wider than the values used: q = 6, not the 5 observed.
    "4raters_domain6": (counts_of(RAW_4RATERS, D4 + [6.0]), D4 + [6.0]),
    "5observers": (counts_of(RAW_5OBSERVERS, D5), D5),
    "own": (np.array(OWN), OWN_DOMAIN),
    "sparse": (np.array(SPARSE), [0.0, 1.0, 2.0]),
}

# Computed by irrCAC 0.4.4 (PyPI, Python; in a throwaway venv, not a dependency), as
#   CAC(ratings, weights=W, categories=DOMAIN, confidence_level=C, digits=12).gwet()["est"]
# with ratings the units × raters frame of each dataset (the counts above expanded back into
# ratings for OWN and SPARSE), W "identity" for none, and categories always given. Columns:
# coefficient_value, pa, pe, se, confidence_interval (low, high).
IRRCAC = {
    ("4raters", "none", 0.95): (0.775444068127, 0.818181818182, 0.190321180556, 0.142949950641, 0.460813348132, 1.0),
    ("4raters", "none", 0.90): (0.775444068127, 0.818181818182, 0.190321180556, 0.142949950641, 0.518722421937, 1.0),
    ("4raters", "linear", 0.95): (0.858739136433, 0.939393939394, 0.570963541667, 0.117329021881, 0.600499700425, 1.0),
    ("4raters", "quadratic", 0.95): (
        0.914000723552, 0.975378787879, 0.713704427083, 0.103962244645, 0.685181365879, 1.0
    ),
    ("4raters", "ordinal", 0.95): (0.898939769908, 0.968181818182, 0.68515625, 0.106903523815, 0.663646700429, 1.0),
    ("4raters_domain6", "none", 0.95): (
        0.785526781226, 0.818181818182, 0.152256944444, 0.138696938523, 0.480256877789, 1.0
    ),
    ("4raters_domain6", "linear", 0.95): (
        0.890237366459, 0.951515151515, 0.558275462963, 0.105447619629, 0.658148720489, 1.0
    ),
    ("5observers", "none", 0.95): (
        0.496622054873, 0.615555555556, 0.236270781893, 0.121973368005, 0.235015198894, 0.758228910851
    ),
    ("5observers", "linear", 0.95): (
        0.689639422886, 0.860740740741, 0.551298491084, 0.0876907591, 0.501561450115, 0.877717395656
    ),
    ("5observers", "quadratic", 0.95): (
        0.830433572655, 0.946172839506, 0.68256003658, 0.058246405165, 0.705507458239, 0.95535968707
    ),
    ("5observers", "ordinal", 0.95): (
        0.785341793553, 0.924814814815, 0.649744650206, 0.068187570829, 0.639093999358, 0.931589587749
    ),
    ("own", "none", 0.95): (0.178881338075, 0.325396825397, 0.178434, 0.074526628991, 0.025065935698, 0.332696740452),
    ("own", "linear", 0.95): (
        0.243974285113, 0.642680776014, 0.5273716, 0.138480191815, -0.041834783587, 0.529783353813
    ),
    ("own", "quadratic", 0.95): (
        0.247267968687, 0.737095825985, 0.650733377778, 0.189779867709, -0.144418427304, 0.638954364678
    ),
    ("own", "ordinal", 0.95): (
        0.165156492015, 0.701428571429, 0.6423624, 0.182314961406, -0.211123094594, 0.541436078623
    ),
    ("sparse", "none", 0.95): (
        0.176772279558, 0.41975308642, 0.29515625, 0.124376449628, -0.074802834739, 0.428347393855
    ),
    ("sparse", "quadratic", 0.95): (
        0.239106892298, 0.688271604938, 0.5903125, 0.167815155965, -0.100331298524, 0.57854508312
    ),
}


@pytest.mark.parametrize(("dataset", "weights", "confidence"), IRRCAC)
def test_it_matches_irrcac(dataset, weights, confidence):
    counts, domain = DATA[dataset]
    result = gwet(counts, domain, weights=weights, confidence=confidence)
    value, pa, pe, se, low, high = IRRCAC[dataset, weights, confidence]
    assert result.value == pytest.approx(value, abs=1e-11)
    assert result.percent_agreement == pytest.approx(pa, abs=1e-11)
    assert result.chance_agreement == pytest.approx(pe, abs=1e-11)
    assert result.se == pytest.approx(se, abs=1e-11)
    # The interval less tightly: the oracle's scipy (1.12) has Student's t quantile to ~8 digits only.
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high), abs=1e-8)
    assert result.name == ("ac1" if weights == "none" else "ac2")


def test_it_reproduces_the_published_ac1_of_the_4raters_example():
    # The Python irrCAC's documentation (the docstring of irrCAC.raw, 0.4.4): CAC(raw_4raters()).gwet()
    # gives AC1 0.77544, 95% interval (0.46081, 1), se 0.14295, pa 0.81818, pe 0.19032.
    result = gwet(DATA["4raters"][0], D4)
    assert round(result.value, 5) == 0.77544
    assert (round(result.ci_low, 5), result.ci_high) == (0.46081, 1.0)
    assert (round(result.se, 5), round(result.percent_agreement, 5)) == (0.14295, 0.81818)
    assert round(result.chance_agreement, 5) == 0.19032
    assert (result.n_units, result.n_units_paired, result.n_ratings) == (12, 11, 41)


def test_it_reproduces_the_published_ac1_of_the_3x3_abstractors_table():
    # R irrCAC's overview vignette: gwet.ac1.table(cont3x3abstractors) gives AC1 0.8493305 for 2
    # raters and 100 units (rows rater A, columns rater B: 13 0 0 / 0 20 7 / 0 4 56). Its standard
    # error (0.0432) is the two-rater table formula, not the linearisation over units used here.
    counts = [[2, 0, 0]] * 13 + [[0, 2, 0]] * 20 + [[0, 1, 1]] * (7 + 4) + [[0, 0, 2]] * 56
    result = gwet(counts)
    assert round(result.value, 7) == 0.8493305
    assert result.percent_agreement == pytest.approx(0.89)
    assert result.se == pytest.approx(0.0432, abs=5e-4)


def naive(counts, domain, weights, confidence=0.95):
    """AC from the book, unit by unit and pair of ratings by pair: (value, pa, pe, se, low, high)."""
    from scipy import stats

    q = len(domain)
    w = gwet_weights(domain, weights)
    units = [[k for k in range(q) for _ in range(int(row[k]))] for row in counts]
    units = [u for u in units if u]
    n = len(units)
    paired = [u for u in units if len(u) >= 2]

    def agreement(u):  # the mean weight over ordered pairs of two different ratings of the unit
        pairs = list(itertools.permutations(u, 2))
        return sum(w[a, b] for a, b in pairs) / len(pairs)

    pi = [sum(u.count(k) / len(u) for u in units) / n for k in range(q)]
    scale = w.sum() / (q * (q - 1))
    pa = sum(agreement(u) for u in paired) / len(paired)
    pe = scale * sum(p * (1 - p) for p in pi)
    ac = (pa - pe) / (1 - pe)
    total = 0.0
    for u in units:
        pa_i, pe_term = (agreement(u), pe) if len(u) >= 2 else (0.0, 0.0)
        ac_i = n / len(paired) * (pa_i - pe_term) / (1 - pe)
        pe_i = scale * sum(u.count(k) / len(u) * (1 - pi[k]) for k in range(q))
        total += (ac_i - 2 * (1 - ac) * (pe_i - pe) / (1 - pe) - ac) ** 2
    se = math.sqrt(total / (n * (n - 1)))
    t = stats.t.ppf((1 + confidence) / 2, n - 1)
    return ac, pa, pe, se, max(-1, ac - t * se), min(1, ac + t * se)


@pytest.mark.parametrize("weights", GWET_WEIGHTS)
@pytest.mark.parametrize("seed", range(4))
def test_it_matches_a_naive_implementation_on_random_data(weights, seed):
    rng = np.random.default_rng(seed)
    q = int(rng.integers(2, 7))
    domain = np.sort(rng.choice(20, size=q, replace=False)).astype(float)
    truth = rng.integers(0, q, size=60)
    counts = np.zeros((60, q), dtype=int)
    for unit, true in enumerate(truth):
        for _ in range(rng.integers(0, 6)):  # 0 to 5 ratings: empty, single and paired units
            counts[unit, true if rng.random() < 0.6 else rng.integers(0, q)] += 1
    result = gwet(counts, domain, weights=weights, confidence=0.9)
    got = (result.value, result.percent_agreement, result.chance_agreement, result.se, result.ci_low, result.ci_high)
    assert got == pytest.approx(naive(counts, domain, weights, 0.9), abs=1e-12)


def test_it_resists_the_kappa_paradox():
    # 2 raters, 100 units, 90% agreement on a skewed scale: 90 units both "yes", 10 split.
    counts = [[2, 0]] * 90 + [[1, 1]] * 10
    ac1 = gwet(counts)
    assert ac1.percent_agreement == pytest.approx(0.9)
    assert ac1.value == pytest.approx((0.9 - 0.095) / (1 - 0.095))  # p_e = 2 · 0.95 · 0.05 / 1
    assert ac1.value > 0.85
    assert fleiss_kappa(counts).kappa < 0.05
    assert alpha(counts, "nominal", n_resamples=0).alpha < 0.05


def test_units_without_ratings_change_nothing_and_single_ratings_count_only_in_pi():
    counts, domain = DATA["own"]
    padded = np.vstack([counts, np.zeros((5, 5), dtype=int)])
    assert gwet(padded, domain, weights="linear") == gwet(counts, domain, weights="linear")
    paired_only = counts[counts.sum(axis=1) >= 2]
    with_singles, without = gwet(counts, domain), gwet(paired_only, domain)
    assert with_singles.percent_agreement == pytest.approx(without.percent_agreement)
    assert with_singles.chance_agreement != pytest.approx(without.chance_agreement)
    assert (with_singles.n_units, with_singles.n_units_paired, without.n_units) == (25, 21, 21)


@pytest.mark.parametrize("weights", GWET_WEIGHTS)
def test_column_order_does_not_matter_with_a_numeric_domain(weights):
    counts, domain = DATA["own"]
    order = [3, 0, 4, 2, 1]
    shuffled = gwet(counts[:, order], [domain[i] for i in order], weights=weights)
    assert shuffled.as_dict() == pytest.approx(gwet(counts, domain, weights=weights).as_dict())


def test_ordinal_weights_take_a_labelled_scale_in_its_order():
    counts, _ = DATA["own"]
    labelled = gwet(counts, ["none", "little", "some", "much", "all"], weights="ordinal")
    assert labelled.value == pytest.approx(gwet(counts, weights="ordinal").value)


def test_the_weights_are_irrcacs():
    assert gwet_weights([1, 2, 3], "none").tolist() == np.eye(3).tolist()
    assert gwet_weights([0, 1, 4], "linear")[0].tolist() == pytest.approx([1, 0.75, 0])
    assert gwet_weights([0, 1, 4], "quadratic")[0].tolist() == pytest.approx([1, 1 - 1 / 16, 0])
    assert gwet_weights([0, 1, 4, 9], "ordinal")[0].tolist() == pytest.approx([1, 5 / 6, 1 / 2, 0])


def test_as_dict_holds_every_figure():
    result = gwet(DATA["4raters"][0], D4, weights="quadratic")
    d = result.as_dict()
    assert d["name"] == "ac2" and d["weights"] == "quadratic" and d["confidence"] == 0.95
    assert set(d) == set(Gwet.__dataclass_fields__)


@pytest.mark.parametrize(
    "counts",
    [np.zeros((0, 3), dtype=int), [[2, 0, 0]], [[2, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 0, 0], [0, 3, 0]]],
)
def test_fewer_than_two_paired_units_have_no_value(counts):
    result = gwet(counts, weights="linear")
    assert result.value is None and result.reason == REASON_FEW_UNITS
    assert result.se is None and result.ci_low is None and result.thin


def test_a_single_value_domain_has_no_value():
    result = gwet([[2], [3]])
    assert result.value is None and result.reason == REASON_SINGLE_CATEGORY


def test_one_value_used_by_everyone_is_perfect_agreement():
    result = gwet([[3, 0], [2, 0], [4, 0]])
    assert (result.value, result.chance_agreement, result.se, result.ci_low, result.ci_high) == (1, 0, 0, 1, 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weights": "cubic"}, "unknown weights"),
        ({"weights": "linear", "value_domain": ["a", "b", "c"]}, "numeric"),
        ({"weights": "quadratic", "value_domain": [1, None, 3]}, "numeric"),
        ({"weights": "linear", "value_domain": [1, 2, 2]}, "duplicate"),
        ({"weights": "linear", "value_domain": [1, 2, float("inf")]}, "finite"),
        ({"value_domain": [1, 2]}, "columns"),
        ({"confidence": 1}, "confidence"),
        ({"confidence": 0}, "confidence"),
    ],
)
def test_it_refuses_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gwet([[2, 0, 0], [1, 1, 0], [0, 0, 2]], **kwargs)


@pytest.mark.parametrize("counts", [[1, 2, 3], [[[1, 2]]], [[1, -1], [2, 0]], [[1.5, 0], [2, 0]]])
def test_it_refuses_what_is_not_a_counts_matrix(counts):
    with pytest.raises(ValueError):
        gwet(counts)


def test_ten_units_are_thin():
    result = gwet([[3, 0], [0, 3]] * 5)
    assert result.value == 1 and result.thin.startswith("only 10 units")


def test_two_hundred_agreeing_units_are_not_thin():
    rng = np.random.default_rng(7)
    counts = np.zeros((200, 4), dtype=int)
    for unit in range(200):
        true = rng.integers(0, 4)
        counts[unit, true] = 3
        counts[unit, rng.integers(0, 4) if rng.random() < 0.2 else true] += 1
    result = gwet(counts, weights="quadratic")
    assert result.n_units_paired == 200 >= STABLE_UNITS
    assert result.value > 0.8 and result.ci_high - result.ci_low < 0.4
    assert result.thin == ""


def test_it_runs_on_a_large_matrix():
    # Not timed: the code is matrix products over units × values, no loop over units.
    rng = np.random.default_rng(0)
    counts = rng.multinomial(10, [0.4, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05], size=100_000)
    result = gwet(counts, weights="ordinal")
    assert result.n_units_paired == 100_000 and math.isfinite(result.se)

"""Krippendorff's alpha from value counts, checked against the krippendorff package's own API."""

import krippendorff
import numpy as np
import pytest

from exports.agreement import REASON_FEW_UNITS, REASON_NO_VARIATION, alpha

NAN = np.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders, 12 units,
# values 1-5, missing data. Rows are coders A-D, columns units 1-12.
K2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
DOMAIN = [1, 2, 3, 4, 5]


def to_value_counts(reliability_data, domain):
    """Units × values counts of a raters × units matrix (NaN = missing)."""
    data = np.asarray(reliability_data, dtype=float)
    return np.stack([(data == v).sum(axis=0) for v in domain], axis=1)


def test_it_reproduces_krippendorffs_2011_worked_example():
    counts = to_value_counts(K2011, DOMAIN)
    result = alpha(counts, "nominal", DOMAIN)
    assert round(result.alpha, 3) == 0.743
    # Unit 12 has a single value: it cannot be paired. 11 units, 40 pairable values (m_u summed).
    assert result.n_units == 11
    assert result.n_ratings == 40
    assert round(alpha(counts, "interval", DOMAIN).alpha, 3) == 0.849
    assert round(alpha(counts, "ordinal", DOMAIN).alpha, 3) == 0.815


def test_it_matches_a_case_computed_by_hand():
    # Two units, two values. Unit 1: a, a; unit 2: a, b.
    # Coincidences: o_aa = 2/(2-1) = 2 from unit 1; unit 2 gives o_ab = o_ba = 1. n_a = 3, n_b = 1, n = 4.
    # D_o = (o_ab + o_ba) / n = 2/4 = 0.5; D_e = 2 * n_a * n_b / (n (n-1)) = 6/12 = 0.5. alpha = 1 - 1 = 0.
    result = alpha([[2, 0], [1, 1]], "nominal")
    assert result.alpha == pytest.approx(0.0, abs=1e-12)
    assert (result.n_units, result.n_ratings) == (2, 4)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", range(5))
def test_it_agrees_with_the_reliability_data_api_on_random_data_with_missing_values(level, seed):
    rng = np.random.default_rng(seed)
    domain = [0, 0.5, 1] if seed % 2 else [1, 2, 3, 4, 5]
    raters, units = 12, 60
    data = rng.choice(domain, size=(raters, units)).astype(float)
    # Agreement above chance: half of the ratings copy the unit's first rating.
    copy = rng.random((raters, units)) < 0.5
    data[copy] = np.broadcast_to(data[0], (raters, units))[copy]
    data[rng.random((raters, units)) < 0.7] = NAN  # most ratings missing, as with 3 of many raters
    expected = krippendorff.alpha(reliability_data=data, value_domain=domain, level_of_measurement=level)
    result = alpha(to_value_counts(data, domain), level, domain)
    assert result.alpha == pytest.approx(expected, abs=1e-9)
    per_unit = (~np.isnan(data)).sum(axis=0)
    assert result.n_units == int((per_unit >= 2).sum())
    assert result.n_ratings == int(per_unit[per_unit >= 2].sum())


def test_it_accepts_string_values_for_nominal_fields():
    counts = [[2, 0], [0, 2], [1, 1], [2, 0]]
    data = [["yes", "no", "yes", "yes"], ["yes", "no", "no", "yes"]]
    expected = krippendorff.alpha(reliability_data=data, value_domain=["yes", "no"], level_of_measurement="nominal")
    assert alpha(counts, "nominal", ["yes", "no"]).alpha == pytest.approx(expected, abs=1e-12)


def test_it_ignores_values_nobody_used():
    counts = to_value_counts(K2011, DOMAIN)
    wider = np.hstack([counts, np.zeros((12, 2), dtype=int)])
    assert alpha(wider, "nominal", DOMAIN + [6, 7]).alpha == pytest.approx(alpha(counts, "nominal", DOMAIN).alpha)
    assert alpha(wider, "ordinal", DOMAIN + [6, 7]).alpha == pytest.approx(alpha(counts, "ordinal", DOMAIN).alpha)


def test_it_refuses_fewer_than_two_pairable_units():
    result = alpha([[2, 1], [1, 0], [0, 0]], "nominal")
    assert result.alpha is None
    assert result.reason == REASON_FEW_UNITS
    assert (result.n_units, result.n_ratings) == (1, 3)


def test_it_refuses_data_without_variation():
    result = alpha([[3, 0], [2, 0], [0, 0]], "ordinal")
    assert result.alpha is None
    assert result.reason == REASON_NO_VARIATION
    assert (result.n_units, result.n_ratings) == (2, 5)


def test_it_handles_no_units_and_no_values():
    assert alpha(np.zeros((0, 3), dtype=int), "nominal").reason == REASON_FEW_UNITS
    assert alpha(np.zeros((4, 0), dtype=int), "nominal", []).reason == REASON_FEW_UNITS


def test_it_refuses_a_domain_that_does_not_fit():
    with pytest.raises(ValueError, match="columns"):
        alpha([[1, 1]], "nominal", [1, 2, 3])
    with pytest.raises(ValueError, match="level"):
        alpha([[1, 1]], "circular")

"""RAVENEA's quality check in figures, against kappas computed by hand. Pure: no database."""

import json

import pytest

from stats.review_agreement import ReviewedField, ReviewRow, field_kappa, review_agreement

CAPTION = ReviewedField("caption_correct", "Caption correct?", "nominal", ("yes", "no"))
QUALITY = ReviewedField("quality", "Image quality", "ordinal", ("0", "0.5", "1"))


def triples(pairs):
    return [(unit, a, c) for unit, (a, c) in enumerate(pairs)]


def test_nominal_kappa_is_unweighted_and_matches_the_hand_computation():
    # 5 yes/yes, 1 yes/no, 3 no/no, 1 no/yes: p_o = 0.8; both raters say yes 6 times in 10, so
    # p_e = 0.6² + 0.4² = 0.52 and kappa = (0.8 − 0.52) / (1 − 0.52) = 7/12.
    pairs = [("yes", "yes")] * 5 + [("yes", "no")] + [("no", "no")] * 3 + [("no", "yes")]
    k = field_kappa(CAPTION, triples(pairs))
    assert k.weights == "none"
    assert k.kappa == pytest.approx(7 / 12, abs=1e-12)
    assert k.label_agreement == pytest.approx(0.8)
    assert (k.n_labels, k.n_units) == (10, 10)


def test_ordinal_kappa_is_linearly_weighted_over_the_choices_in_order():
    # Positions (annotator, checker): (0,0) (1,1) (2,2) (2,1) (0,1) (1,1). Linear disagreement |i − j|:
    # observed 2/6; annotator margins 1/3 each, checker 1/6, 4/6, 1/6, expected 7/9;
    # kappa = 1 − (1/3) / (7/9) = 4/7 (unweighted it would be 1/2).
    tokens = ("0", "0.5", "1")
    pairs = [(tokens[a], tokens[c]) for a, c in [(0, 0), (1, 1), (2, 2), (2, 1), (0, 1), (1, 1)]]
    k = field_kappa(QUALITY, triples(pairs))
    assert k.weights == "linear"
    assert k.kappa == pytest.approx(4 / 7, abs=1e-12)
    assert k.label_agreement == pytest.approx(4 / 6)


def test_interval_fields_are_weighted_quadratically():
    f = ReviewedField("score", "Score", "interval", ("1", "2", "3"))
    # Positions (0,0) (2,2) (0,1) (1,2) (2,0): observed Σ(i − j)²/5 = (1 + 1 + 4)/5 = 1.2. Both margins are
    # (.4, .2, .4): expected = 4·(.4·.2·1) + 2·(.4·.4·4) = 0.32 + 1.28 = 1.6; kappa = 1 − 1.2/1.6 = 0.25.
    pairs = [(f.categories[a], f.categories[c]) for a, c in [(0, 0), (2, 2), (0, 1), (1, 2), (2, 0)]]
    k = field_kappa(f, triples(pairs))
    assert k.weights == "quadratic"
    assert k.kappa == pytest.approx(0.25, abs=1e-12)


def test_labels_outside_the_choices_are_left_out_and_counted():
    k = field_kappa(CAPTION, triples([("yes", "yes"), ("no", "no"), ("maybe", "yes"), ("yes", None)]))
    assert k.out_of_domain == 1
    assert k.n_labels == 2  # the pair with a missing checker label is dropped by kappa itself
    assert k.kappa == pytest.approx(1.0)


def test_a_field_nobody_reviewed_has_no_kappa_and_says_why():
    k = field_kappa(CAPTION, [])
    assert k.kappa is None and k.reason
    assert k.n_labels == 0


def rows():
    """India: 3 accepted, 1 flagged (its caption label changed); Japan: 2 accepted."""
    def row(country, name, accepted, given, checked, unit):
        return ReviewRow(country, name, accepted, [("caption_correct", unit, given, checked)])

    return [
        row("IN", "India", True, "yes", "yes", 1),
        row("IN", "India", True, "no", "no", 2),
        row("IN", "India", True, "yes", "yes", 3),
        row("IN", "India", False, "yes", "no", 4),
        row("JP", "Japan", True, "no", "no", 5),
        row("JP", "Japan", True, "yes", "yes", 6),
    ]


def test_acceptance_rate_overall_and_per_country():
    result = review_agreement(rows(), [CAPTION])
    assert (result.overall.n_reviews, result.overall.n_accepted, result.overall.n_flagged) == (6, 5, 1)
    assert result.overall.acceptance_rate == pytest.approx(5 / 6)
    india, japan = result.countries
    assert (india.country_name, india.acceptance_rate) == ("India", 0.75)
    assert (japan.country_name, japan.acceptance_rate) == ("Japan", 1.0)


def test_kappa_per_country_uses_only_that_countrys_reviews():
    result = review_agreement(rows(), [CAPTION])
    india = result.countries[0]
    # India: (yes,yes) (no,no) (yes,yes) (yes,no): p_o = 3/4; annotator yes 3/4, checker yes 1/2:
    # p_e = 3/4·1/2 + 1/4·1/2 = 1/2; kappa = (3/4 − 1/2) / (1/2) = 1/2.
    assert india.fields[0].kappa == pytest.approx(0.5)
    assert result.countries[1].fields[0].kappa == pytest.approx(1.0)
    # Overall: 5 of 6 equal; annotator yes 4/6, checker yes 3/6: p_e = 4/6·3/6 + 2/6·3/6 = 1/2; kappa = 2/3.
    assert result.overall.fields[0].kappa == pytest.approx(2 / 3)


def test_as_dict_is_json_and_names_the_weights():
    data = review_agreement(rows(), [CAPTION, QUALITY]).as_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["n_reviews"] == 6 and data["acceptance_rate"] == pytest.approx(5 / 6)
    assert ["ordinal", "linear"] in data["weights"] and ["nominal", "none"] in data["weights"]
    assert [f["key"] for f in data["overall"]["fields"]] == ["caption_correct", "quality"]
    assert [c["country"] for c in data["countries"]] == ["IN", "JP"]


def test_no_rows_give_no_reviews():
    result = review_agreement([], [CAPTION])
    assert result.n_reviews == 0 and result.overall.acceptance_rate is None and result.countries == []

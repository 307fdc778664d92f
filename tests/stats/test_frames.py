"""Rows as frames (``stats.frames``), and the reports that take either: a frame of columns (what
the analysis passes) must give exactly what the same rows as tuples give."""

import math

import numpy as np
import pandas as pd
import pytest

from stats.frames import as_frame, distinct, numeric, only
from stats.reports import criteria_spearman, error_type_shares, human_scores, word_frequency
from stats.reports.common import number


def test_as_frame_reads_tuples_and_renames_a_frames_columns():
    rows = [(1, "IN", 0.5), (2, None, 1)]
    read = as_frame(rows, ["item", "country", "value"])
    assert read["item"].tolist() == [1, 2] and read["value"].tolist() == [0.5, 1]
    assert read["country"].iloc[0] == "IN" and read["country"].isna().tolist() == [False, True]
    frame = pd.DataFrame({"a": [1], "b": ["JP"], "c": [2.0], "extra": [0]})
    assert list(as_frame(frame, ["item", "country", "value"]).columns) == ["item", "country", "value"]


def test_as_frame_refuses_a_frame_with_too_few_columns():
    with pytest.raises(ValueError, match="expected the columns"):
        as_frame(pd.DataFrame({"item": [1]}), ["item", "country"])


def test_only_keeps_the_rows_of_the_items_given():
    frame = pd.DataFrame({"item": [1, 2, 3]})
    assert only(frame, None)["item"].tolist() == [1, 2, 3]
    assert only(frame, [3, 1])["item"].tolist() == [1, 3]


def test_distinct_codes_unhashable_values_by_their_json():
    codes, values = distinct(pd.Series([["a"], {"x": 1}, ["a"], None, {"x": 1}], dtype=object))
    assert codes.tolist() == [0, 1, 0, 2, 1]
    assert values == [["a"], {"x": 1}, None]


def test_distinct_codes_hashable_values_in_order_of_first_appearance():
    codes, values = distinct(pd.Series([("b",), ("a",), ("b",)], dtype=object))
    assert codes.tolist() == [0, 1, 0]
    assert values == [("b",), ("a",)]


def test_numeric_keeps_floats_and_converts_anything_else():
    floats = numeric(pd.Series([1.0, math.inf, np.nan]), number)
    assert floats.iloc[0] == 1.0 and floats.iloc[1:].isna().all()
    mixed = numeric(pd.Series(["2", True, None, 3], dtype=object), number)
    assert mixed.iloc[0] == 2.0 and mixed.iloc[3] == 3.0
    assert mixed.iloc[1:3].isna().all()  # True is not a number here


# --- the reports: a frame gives what tuples give -------------------------------------------------

RNG = np.random.default_rng(7)
N = 400
ITEMS = RNG.integers(1, 60, N)
COUNTRIES = RNG.choice(np.array(["IN", "JP", None], dtype=object), N)
ALIGNMENT = RNG.choice([0.0, 0.5, 1.0, np.nan], N)
TYPES = [tuple(t) if t else None for t in RNG.choice(
    np.array([("explicit",), ("implicit",), ("explicit", "implicit"), (), ("implicit", "explicit")], dtype=object), N)]
WORDS = [tuple(w) if w else None for w in RNG.choice(
    np.array([("Lantern",), ("lantern", "dusk"), (), (" Meal ",), ("square", "square")], dtype=object), N)]
QUALITY = RNG.choice([0.0, 0.5, 1.0], N)
OVERALL = RNG.integers(1, 6, N).astype(float)


def tuples(*columns):
    return list(zip(ITEMS.tolist(), COUNTRIES.tolist(), *columns, strict=True))


def frame(**columns):
    return pd.DataFrame({"item": ITEMS, "country": COUNTRIES, **columns})


def test_error_type_shares_from_a_frame_equal_those_from_tuples():
    from_rows = error_type_shares(tuples(ALIGNMENT.tolist(), [list(t) if t else None for t in TYPES]))
    from_frame = error_type_shares(frame(alignment=ALIGNMENT, types=pd.Series(TYPES, dtype=object)))
    assert from_frame.as_dict() == from_rows.as_dict()
    assert from_rows.overall["sub_perfect"] > 0 and from_rows.missing > 0


def test_word_frequency_from_a_frame_equals_that_from_tuples():
    from_rows = word_frequency(tuples([list(w) if w else None for w in WORDS]), stopwords=["dusk"])
    from_frame = word_frequency(frame(words=pd.Series(WORDS, dtype=object)), stopwords=["dusk"])
    assert from_frame.as_dict() == from_rows.as_dict()
    top = {w: n for w, n, _ in from_rows.overall["top"]}
    assert "dusk" not in top and top["lantern"] > 0 and "meal" in top


def test_criteria_spearman_from_a_frame_equals_that_from_tuples():
    from_rows = criteria_spearman(tuples(ALIGNMENT.tolist(), QUALITY.tolist(), OVERALL.tolist()))
    from_frame = criteria_spearman(frame(alignment=ALIGNMENT, quality=QUALITY, overall=OVERALL))
    assert from_frame.as_dict() == from_rows.as_dict()


def test_human_scores_from_a_frame_equal_those_from_tuples():
    from_rows = human_scores(tuples(OVERALL.tolist()), only_items=range(1, 30))
    from_frame = human_scores(frame(value=OVERALL), only_items=range(1, 30))
    assert from_frame.as_dict() == from_rows.as_dict()
    assert all(row[0] < 30 for row in from_rows.rows)

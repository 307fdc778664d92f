"""The one JSON-safe value helper (``stats.jsonsafe.plain``) that the agreement, the correlation
and the reports turn numpy/pandas keys and numbers into result values with."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from stats.agreement import cohen_kappa
from stats.jsonsafe import plain


@pytest.mark.parametrize("value, expected", [
    (np.int64(3), 3), (np.float32(0.5), 0.5), (np.float64(2.25), 2.25), (np.bool_(True), True), (np.str_("IN"), "IN"),
    (3, 3), ("IN", "IN"), (0.5, 0.5), ((1, 2), (1, 2)),
])
def test_it_unwraps_numpy_scalars_and_keeps_plain_values(value, expected):
    out = plain(value)
    assert out == expected and type(out) is type(expected)


@pytest.mark.parametrize("value", [None, math.nan, np.nan, np.float32("nan"), np.float64("nan"), pd.NA])
def test_it_turns_what_json_cannot_hold_into_none(value):
    assert plain(value) is None


def test_the_agreement_reports_its_categories_as_plain_values():
    kappa = cohen_kappa(np.array([1, 2, 2, 1]), np.array([1, 2, 1, 1]), categories=[np.int64(1), np.int64(2), np.nan])
    assert kappa.categories == [1, 2, None]
    json.dumps(kappa.as_dict(), allow_nan=False)

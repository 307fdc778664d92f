"""Agreement coefficients. Pure: numpy, plain data in and out. See docs/agreement.md.

- ``alpha``: Krippendorff's alpha (nominal, ordinal, interval, ratio) from a units × values count
  matrix, any number of raters, missing data, with a bootstrap confidence interval over units.
- ``gwet``: Gwet's AC1 (nominal) and AC2 (linear, quadratic, ordinal weights) from a units × values
  count matrix, any number of raters, missing data, with a standard error and a t interval.
- ``cohen_kappa`` (unweighted, linear, quadratic) for two raters; ``checker_kappa`` for a checker
  against the annotators they reviewed; ``fleiss_kappa``; ``percent_agreement``.
- ``pool_differences`` (``stats.agreement.differences``): alpha and the mean rating compared
  between every pair of pools and each pool against the rest.
- ``icc``: the six Shrout–Fleiss intraclass correlations of a units × raters matrix, with intervals;
  ``icc_oneway``: ICC(1,1) and ICC(1,k) from a count matrix, where each unit has its own raters.

A value-counts matrix has one row per unit (an item as rated in one pool) and one column per value
of the field's domain; a cell is how many annotators gave that value to that unit. Unlike a
raters × units matrix it does not grow with the number of annotators, and missing ratings are
simply absent from the counts.
"""

from .base import (
    AC_WEIGHTS,
    ICC_LEVELS,
    LEVELS,
    REASON_ALL_RESAMPLES_UNDEFINED,
    REASON_FEW_UNITS,
    REASON_NO_PAIRS,
    REASON_NO_RESAMPLES,
    REASON_NO_UNITS,
    REASON_NO_VARIATION,
    REASON_SINGLE_CATEGORY,
    STABLE_UNITS,
    WEIGHTS,
    WIDE_INTERVAL,
    thin_data,
)
from .gwet import GWET_WEIGHTS, Gwet, gwet, gwet_weights
from .icc import ICC, ICC_FORMS, ICCForm, icc, icc_oneway
from .kappa import (
    CheckerKappa,
    Fleiss,
    Kappa,
    PercentAgreement,
    checker_kappa,
    cohen_kappa,
    fleiss_kappa,
    percent_agreement,
)
from .krippendorff_alpha import Alpha, alpha, coincidences, mid_ranks, ratio_differences

__all__ = [
    "AC_WEIGHTS", "GWET_WEIGHTS", "ICC_LEVELS", "STABLE_UNITS", "WIDE_INTERVAL", "Gwet", "gwet", "gwet_weights",
    "thin_data", "LEVELS", "REASON_ALL_RESAMPLES_UNDEFINED", "REASON_FEW_UNITS", "REASON_NO_PAIRS",
    "REASON_NO_RESAMPLES",
    "REASON_NO_UNITS", "REASON_NO_VARIATION", "REASON_SINGLE_CATEGORY", "WEIGHTS",
    "ICC_FORMS", "Alpha", "CheckerKappa", "Fleiss", "ICC", "ICCForm", "Kappa", "PercentAgreement",
    "alpha", "checker_kappa", "coincidences", "cohen_kappa", "fleiss_kappa", "icc", "icc_oneway",
    "mid_ranks", "percent_agreement",
    "ratio_differences",
]

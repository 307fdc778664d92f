"""Automatic metrics against human scores, beside the human–human baseline. Pure: no Django.

Two steps, both over plain data:

1. ``parse_metric_csv`` (``upload``) reads the researcher's upload (a header, then one score per
   line: item id, optional country, metric name, score) into ``MetricScores``, or refuses the
   whole file naming the lines at fault; lines naming items the study does not have are left
   out and reported (count and examples), not fatal. See ``upload`` for the exact rules.

2. ``metric_correlations(human, metrics)`` (``metrics``): for each metric, Pearson, Spearman and
   Kendall's tau-b between the metric's score and the human score of each unit, with 95% confidence intervals
   (Fisher z for Pearson; for Spearman and Kendall a percentile bootstrap over units, seeded, up to
   ``BOOTSTRAP_MAX_UNITS`` units, the large-sample intervals of Bonett & Wright and of Fieller,
   Hartley & Pearson above), and the human–human baseline: each rater against the mean of the
   *other* raters on the same units (leave one out; every rater at once, ``grouped``), summarised
   over raters, so a metric can be judged against how well one human predicts the others.

A unit is an item (``per_country=False``, CulturalFrames: each prompt belongs to one country), or an
(item, country) pair (``per_country=True``, CAIRE: every image is rated by every country). Its human
score is the mean over its raters, a rater who rated a unit twice counting once (their mean).

A coefficient that cannot be computed (too few units, no variation) is None with a ``reason``;
nothing here raises on thin data. Every float in ``as_dict`` output is finite or None (jsonb takes
no NaN). The coefficients and the bootstrap are in ``estimates``.
"""

from .estimates import (
    BOOTSTRAP_MAX_UNITS,
    METHODS,
    Coefficient,
    bonett_wright_interval,
    bootstrap_statistics,
    coefficients,
    correlate,
    fieller_interval,
    fisher_interval,
    resample_statistics,
    rng_for,
    sign_matrix,
)
from .grouped import GroupedCorrelations, grouped_correlations
from .metrics import (
    Baseline,
    MetricCorrelations,
    MetricResult,
    RaterSummary,
    human_frame,
    metric_correlations,
    rater_baseline,
    summarise_raters,
)
from .upload import MetricCSVError, MetricScores, parse_metric_csv

__all__ = [
    "BOOTSTRAP_MAX_UNITS", "METHODS", "Baseline", "Coefficient", "GroupedCorrelations", "MetricCSVError",
    "MetricCorrelations", "MetricResult", "MetricScores", "RaterSummary", "bonett_wright_interval",
    "bootstrap_statistics", "coefficients", "correlate", "fieller_interval", "fisher_interval", "grouped_correlations",
    "human_frame", "metric_correlations", "parse_metric_csv", "rater_baseline", "resample_statistics", "rng_for",
    "sign_matrix", "summarise_raters",
]

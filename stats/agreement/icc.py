"""The six Shrout–Fleiss (1979) intraclass correlations with McGraw–Wong (1996) F intervals: from a
units × raters matrix (two-way, crossed raters) or from a units × values count matrix (one-way, a
different crowd per unit). See docs/agreement.md for the formulas and when each form applies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from .base import REASON_FEW_UNITS, REASON_NO_VARIATION, counts_matrix, thin_data

# ICC(1,1), ICC(2,1), ICC(3,1), ICC(1,k), ICC(2,k), ICC(3,k); 2 = absolute agreement, 3 = consistency.
ICC_FORMS = ("icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k")
TWO_WAY = ("icc2", "icc3", "icc2k", "icc3k")

REASON_NOT_CROSSED = (
    "the raters are not crossed with the units (fewer than 2 units were rated by every rater, or fewer "
    "than 2 raters): the two-way forms need one complete units × raters matrix"
)
REASON_NOT_CROSSED_COUNTS = (
    "the annotators are not crossed with the items (different annotators rated each item): only the "
    "one-way ICC(1), Shrout–Fleiss' case 1, applies to this design"
)
REASON_UNITS_EQUAL = "the units' mean ratings do not differ (between-units mean square 0): ICC(·,k) is undefined"
REASON_ONLY_RATERS = "the ratings differ only by rater (between-units and residual mean squares 0): undefined"

# A mean square below this share of the total one is rounding error: it is taken as 0.
RELATIVE_ZERO = 1e-12


@dataclass(frozen=True)
class ICCForm:
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    f: float | None = None  # the F statistic of its test against 0 (None when infinite: no error variance)
    df1: float | None = None
    df2: float | None = None
    p_value: float | None = None
    reason: str = ""  # why value is None


@dataclass(frozen=True)
class ICC:
    forms: dict[str, ICCForm]  # every key of ICC_FORMS, always present
    n_units: int  # units used
    n_raters: int  # raters with a rating; 0 from icc_oneway (the counts do not know raters)
    n_ratings: int
    k: float  # raters per unit (for one-way unbalanced: k0)
    n_units_dropped: int = 0  # units of the input left out (a missing rating in two-way, < 2 ratings in one-way)
    design: str = ""  # "crossed" (complete two-way), "one-way" (different raters per unit)
    confidence: float = 0.95
    reason: str = ""  # why nothing could be computed
    thin: str = ""  # base.thin_data(n_units, icc1's ci_low, ci_high)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: self.forms[name].value for name in ICC_FORMS}
        out["forms"] = {name: asdict(self.forms[name]) for name in ICC_FORMS}
        for name in ("n_units", "n_raters", "n_ratings", "k", "n_units_dropped", "design", "confidence"):
            out[name] = getattr(self, name)
        return out | {"reason": self.reason, "thin": self.thin}


def icc(ratings: Any, *, confidence: float = 0.95) -> ICC:
    """All six ICCs of ``ratings`` (units × raters, NaN = missing).

    The two-way forms read the units rated by every rater (the others are dropped, as pingouin's
    ``nan_policy='omit'``, and counted in ``n_units_dropped``). With fewer than 2 such units or 2
    raters, they are None (the raters are not crossed with the units) and ICC(1,1), ICC(1,k) come from
    the one-way ANOVA of all the ratings instead (``design`` "one-way").
    """
    _check_confidence(confidence)
    x = np.asarray(ratings, dtype=float)
    if x.ndim != 2:
        raise ValueError("ratings must be a 2-D matrix: units × raters")
    x = x[:, ~np.isnan(x).all(axis=0)]  # a rater who rated nothing is no rater
    complete = ~np.isnan(x).any(axis=1)
    n, k = int(complete.sum()), x.shape[1]
    if n >= 2 and k >= 2:
        return _two_way(x[complete], int((~complete).sum()), confidence)
    present = ~np.isnan(x)
    m = present.sum(axis=1)
    keep = m >= 2
    kept, n_i = x[keep], m[keep].astype(float)
    means = np.nansum(kept, axis=1) / n_i if len(n_i) else n_i
    ssw = float(np.nansum((kept - means[:, None]) ** 2))
    varied = len(n_i) > 0 and np.nanmax(kept) > np.nanmin(kept)
    sizes = {"n_raters": k, "n_units_dropped": int((~keep).sum())}
    return _one_way(n_i, means, ssw, varied, REASON_NOT_CROSSED, confidence, sizes)


def icc_oneway(value_counts: Any, value_domain: Sequence[Any], *, confidence: float = 0.95) -> ICC:
    """ICC(1,1) and ICC(1,k) from a units × values count matrix (a cell: how many raters gave
    ``value_domain[j]`` to the unit), the raters differing per unit: the unbalanced one-way random
    ANOVA with k0 = (N − Σ n_i² / N) / (n − 1). Units with fewer than 2 ratings are left out; the
    two-way forms are None (the annotators are not crossed with the items)."""
    _check_confidence(confidence)
    counts = counts_matrix(value_counts)
    try:
        domain = np.asarray(value_domain, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("value_domain must be numbers") from None
    if domain.shape != (counts.shape[1],):
        raise ValueError(f"value_domain has {domain.size} values but value_counts has {counts.shape[1]} columns")
    m = counts.sum(axis=1)
    keep = m >= 2
    kept, n_i = counts[keep].astype(float), m[keep].astype(float)
    used = kept.sum(axis=0)
    if used.sum():
        domain = domain - used @ domain / used.sum()  # centred: fewer digits lost in the squares
    means = kept @ domain / n_i if len(n_i) else n_i
    ssw = float((kept * (domain[None, :] - means[:, None]) ** 2).sum())
    varied = bool((used > 0).sum() >= 2)
    sizes = {"n_raters": 0, "n_units_dropped": int((~keep).sum())}
    return _one_way(n_i, means, ssw, varied, REASON_NOT_CROSSED_COUNTS, confidence, sizes)


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")


def _one_way(
    n_i: np.ndarray, means: np.ndarray, ssw: float, varied: bool, not_crossed: str, confidence: float,
    sizes: dict[str, int],
) -> ICC:
    """ICC(1,1) and ICC(1,k) of the units with ``n_i`` (≥ 2) ratings each, their ``means`` and the
    within-units sum of squares ``ssw``; the two-way forms None with the reason ``not_crossed``."""
    n, total = len(n_i), float(n_i.sum())
    k0 = float((total - (n_i**2).sum() / total) / (n - 1)) if n >= 2 else float(n_i.mean() if n else 0.0)
    fields: dict[str, Any] = {"n_units": n, "n_ratings": int(total), "k": k0, "design": "one-way"} | sizes
    if n < 2 or not varied:
        return _nothing(REASON_FEW_UNITS if n < 2 else REASON_NO_VARIATION, confidence, fields)
    grand = float(n_i @ means / total)
    msr = float(n_i @ (means - grand) ** 2) / (n - 1)
    msw = ssw / (total - n)
    msr, msw = _zeroed(msr, msw)
    single, average = _f_forms(msr, msw, k0, n - 1, total - n, confidence)
    forms = {"icc1": single, "icc1k": average} | {name: ICCForm(None, reason=not_crossed) for name in TWO_WAY}
    return _result(forms, confidence, fields)


def _two_way(x: np.ndarray, dropped: int, confidence: float) -> ICC:
    """All six ICCs of the complete units × raters matrix ``x`` (n ≥ 2, k ≥ 2)."""
    n, k = x.shape
    fields: dict[str, Any] = {
        "n_units": n, "n_raters": k, "n_ratings": n * k, "k": float(k), "n_units_dropped": dropped,
        "design": "crossed",
    }
    if not x.max() > x.min():
        return _nothing(REASON_NO_VARIATION, confidence, fields)
    grand = x.mean()
    rows, cols = x.mean(axis=1) - grand, x.mean(axis=0) - grand
    ssr, ssc = k * float(rows @ rows), n * float(cols @ cols)
    sse = float((((x - grand) - rows[:, None] - cols[None, :]) ** 2).sum())
    df1, df_error = n - 1, (n - 1) * (k - 1)
    msr, msc, mse, msw = _zeroed(ssr / df1, ssc / (k - 1), sse / df_error, (ssc + sse) / (n * (k - 1)))
    icc1, icc1k = _f_forms(msr, msw, k, df1, n * (k - 1), confidence)
    icc3, icc3k = _f_forms(msr, mse, k, df1, df_error, confidence)
    icc2, icc2k = _absolute_forms(msr, msc, mse, n, k, icc3, confidence)
    forms = {"icc1": icc1, "icc2": icc2, "icc3": icc3, "icc1k": icc1k, "icc2k": icc2k, "icc3k": icc3k}
    return _result(forms, confidence, fields)


def _zeroed(*mean_squares: float) -> tuple[float, ...]:
    """The mean squares, each below ``RELATIVE_ZERO`` of the largest set to 0 (rounding error)."""
    tiny = RELATIVE_ZERO * max(mean_squares)
    return tuple(0.0 if ms <= tiny else ms for ms in mean_squares)


def _f_forms(
    msr: float, mserr: float, k: float, df1: float, df2: float, confidence: float
) -> tuple[ICCForm, ICCForm]:
    """ICC(1 or 3, 1) and ICC(1 or 3, k): (MSR − MS) / (MSR + (k − 1) MS) and (MSR − MS) / MSR with the
    error mean square ``mserr`` (MSW for case 1, MSE for case 3), and their intervals from F = MSR / MS."""
    test: dict[str, Any] = {"df1": float(df1), "df2": float(df2)}
    if msr == mserr == 0:  # case 3 when the raters' means differ and nothing else does
        return ICCForm(None, reason=REASON_ONLY_RATERS, **test), ICCForm(None, reason=REASON_ONLY_RATERS, **test)
    tail = (1 - confidence) / 2
    single_value = (msr - mserr) / (msr + (k - 1) * mserr)
    average_value = (msr - mserr) / msr if msr > 0 else None
    if mserr == 0:  # F infinite: the interval's limit is (1, 1)
        test |= {"p_value": 0.0, "ci_low": 1.0, "ci_high": 1.0}
        return ICCForm(single_value, **test), ICCForm(average_value, **test)
    f = msr / mserr
    f_low = f / float(stats.f.ppf(1 - tail, df1, df2))
    f_high = f * float(stats.f.ppf(1 - tail, df2, df1))
    test |= {"f": f, "p_value": float(stats.f.sf(f, df1, df2))}
    single = ICCForm(single_value, (f_low - 1) / (f_low + k - 1), (f_high - 1) / (f_high + k - 1), **test)
    if average_value is None:
        return single, ICCForm(None, reason=REASON_UNITS_EQUAL, **test)
    return single, ICCForm(average_value, 1 - 1 / f_low, 1 - 1 / f_high, **test)


def _absolute_forms(
    msr: float, msc: float, mse: float, n: int, k: int, icc3: ICCForm, confidence: float
) -> tuple[ICCForm, ICCForm]:
    """ICC(2,1) and ICC(2,k), absolute agreement, with McGraw and Wong's interval on Satterthwaite's
    degrees of freedom (the F test is case 3's)."""
    test: dict[str, Any] = {"f": icc3.f, "df1": icc3.df1, "df2": icc3.df2, "p_value": icc3.p_value}
    single_den = msr + (k - 1) * mse + k * (msc - mse) / n
    average_den = msr + (msc - mse) / n
    if min(abs(single_den), abs(average_den)) <= RELATIVE_ZERO * max(msr, msc, mse):  # MSR = 0 and MSC ≤ MSE
        return ICCForm(None, reason=REASON_UNITS_EQUAL, **test), ICCForm(None, reason=REASON_UNITS_EQUAL, **test)
    single_value, average_value = (msr - mse) / single_den, (msr - mse) / average_den
    df1, df_error = n - 1, (n - 1) * (k - 1)
    a = n * (1 + (k - 1) * single_value) - k * single_value
    if mse == 0:  # the limit of v as F_j = MSC / MSE grows without bound
        v = df_error / df1
    else:
        fj = msc / mse
        v = df_error * (k * single_value * fj + a) ** 2 / (df1 * (k * single_value * fj) ** 2 + a**2)
    tail = (1 - confidence) / 2
    f_upper, f_lower = float(stats.f.ppf(1 - tail, df1, v)), float(stats.f.ppf(1 - tail, v, df1))
    rest = k * msc + (k * n - k - n) * mse
    low = n * (msr - f_upper * mse) / (f_upper * rest + n * msr)
    high = n * (f_lower * msr - mse) / (rest + n * f_lower * msr)
    single = ICCForm(single_value, low, high, **test)
    average = ICCForm(average_value, k * low / (1 + low * (k - 1)), k * high / (1 + high * (k - 1)), **test)
    return single, average


def _result(forms: dict[str, ICCForm], confidence: float, fields: dict[str, Any]) -> ICC:
    """An ICC of ``forms``, every number a plain float and every one not finite None."""
    clean = {name: _plain(forms[name]) for name in ICC_FORMS}
    icc1 = clean["icc1"]
    thin = thin_data(fields["n_units"], icc1.ci_low, icc1.ci_high)
    return ICC(forms=clean, confidence=confidence, thin=thin, **fields)


def _plain(form: ICCForm) -> ICCForm:
    numbers = {name: getattr(form, name) for name in ("value", "ci_low", "ci_high", "f", "df1", "df2", "p_value")}
    finite: dict[str, Any] = {
        name: float(x) if x is not None and np.isfinite(x) else None for name, x in numbers.items()
    }
    if form.value is not None and finite["value"] is None:
        return ICCForm(**(finite | {"reason": "not finite"}))
    return ICCForm(**finite, reason=form.reason)


def _nothing(reason: str, confidence: float, fields: dict[str, Any]) -> ICC:
    forms = {name: ICCForm(None, reason=reason) for name in ICC_FORMS}
    return ICC(forms=forms, confidence=confidence, reason=reason, thin=thin_data(fields["n_units"]), **fields)

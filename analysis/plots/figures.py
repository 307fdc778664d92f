"""The analysis result (``AnalysisRun.result``, as ``analysis.services`` writes it) as figures: which
chart each table of the analysis page gets, and from which figures. Pure: no Django.

Each function takes the part of the result a template holds and returns an SVG string, or a list
of them for small multiples; "" (or []) when there is nothing to plot. A missing key reads as no
data, so a result written by an older version draws what it can.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stats.summary import HEAD

from .charts import Bar, Bin, Cell, Estimate, Reference, Stack, bar_chart, dot_plot, heatmap, histogram, stacked_bars
from .svg import fmt, fmt_tick

ALPHA_REFERENCES = (
    Reference(0, "0"),
    Reference(0.667, "tentative 0.667", "end"),
    Reference(0.8, "0.8 reliable", "start"),
)
ERROR_CATEGORIES = (("explicit_only", "explicit only"), ("implicit_only", "implicit only"), ("both", "both"),
                    ("unspecified", "unspecified"))
METHODS = (("pearson", "Pearson r"), ("spearman", "Spearman ρ"), ("kendall", "Kendall τb"))
SHOWN = HEAD  # as many words or systems as the tables list


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _country(value: Any) -> str:
    return "no country" if value in (None, "") else str(value)


# --- agreement --------------------------------------------------------------------------------


def _alpha_row(label: str, figures: Mapping[str, Any], **kw: Any) -> Estimate:
    value = figures.get("alpha")
    if value is None:
        note = figures.get("reason") or ""
    else:
        note = f"{figures.get('n_units', 0)} units, {figures.get('n_ratings', 0)} ratings"
    return Estimate(label, value, figures.get("ci_low"), figures.get("ci_high"), note=note, **kw)


def field_alpha(f: Mapping[str, Any]) -> str:
    """A field's alpha with its bootstrap interval: all pools, each pool, each item attribute value."""
    rows = [_alpha_row("All pools", f.get("overall") or {}, strong=True)]
    rows += [_alpha_row(p.get("country_name") or _country(p.get("country")), p) for p in f.get("pools") or ()]
    for attribute, values in (f.get("by") or {}).items():
        rows += [_alpha_row("(none)" if v.get("value") in (None, "") else str(v["value"]), v, group=f"By {attribute}")
                 for v in values]
    return dot_plot(
        rows,
        title=f"Krippendorff's alpha of {f.get('label') or f.get('key')} ({f.get('key')}), {f.get('level')} level",
        lead="Alpha with its 95% bootstrap interval, for all pools, each pool and each item attribute; "
        "reference lines at 0 (chance agreement), 0.667 (tentative conclusions) and 0.8 (reliable).",
        symbol="α",
        references=ALPHA_REFERENCES,
    )


# --- distributions ----------------------------------------------------------------------------


def human_scores(res: Mapping[str, Any]) -> list[str]:
    """CAIRE: per country, the histogram of its (item, country) human scores, on shared axes, as
    the analysis binned them (none when nothing was rated)."""
    stored = res.get("histogram")
    if not stored:
        return []
    edges = stored["edges"]
    counts = {_country(c["country"]): c["counts"] for c in stored["countries"]}
    tallest = max(max(c) for c in counts.values())
    labels = [f"{fmt_tick(a)}–{fmt_tick(b)}" for a, b in zip(edges, edges[1:])]
    return [
        histogram(
            [Bin(label, n, f"{country}, mean {label}: {n} (item, country) pair{_s(n)}")
             for label, n in zip(labels, tallies, strict=True)],
            title=f"Human scores of {country}",
            lead=f"Histogram of the human score (the mean of the country's ratings) of each item rated in {country}.",
            y_max=tallest,
            heading=f"{country} ({sum(tallies)} pairs)",
            x_label="human score (mean rating)",
            unit="(item, country) pairs",
        )
        for country, tallies in counts.items()
    ]


def document_scores(score: Mapping[str, Any]) -> str:
    """RAVENEA: how many (item, document) pairs have each combined score (their mean, rounded)."""
    counts = {int(b["score"]): int(b["pairs"]) for b in score.get("histogram") or ()}
    if not counts:
        return ""

    def signed(s: int) -> str:
        return f"+{s}" if s > 0 else fmt(s, 0)

    scores = range(min(counts), max(counts) + 1)
    bins = [Bin(signed(s), counts.get(s, 0), f"mean score {signed(s)}: {counts.get(s, 0)} (item, document) pairs")
            for s in scores]
    mean = score.get("mean")
    return histogram(
        bins,
        title="Combined score per (item, document)",
        heading="Combined score per (item, document)",
        lead="Histogram of the combined score of each (item, document) pair, the mean over its annotators, rounded"
        + (f"; the mean is {fmt(mean, 2)}." if mean is not None else "."),
        x_label="combined score (mean, rounded)",
        unit="(item, document) pairs",
    )


def box_agreement(res: Mapping[str, Any]) -> str:
    """GlobalRG: the histogram of each image's mean pairwise IoU (the report has no countries)."""
    edges = [k / 10 for k in range(11)]
    counts = res.get("iou_histogram") or []  # binned by the analysis
    if not any(counts):
        return ""
    labels = [f"{fmt_tick(a)}–{fmt_tick(b)}" for a, b in zip(edges, edges[1:])]
    threshold, share = res.get("threshold"), res.get("share_at_threshold")
    lead = "Histogram of the mean IoU of the boxes of each image drawn on by two annotators or more"
    if share is not None:
        lead += f"; over all pairs, {fmt(share)} are at IoU ≥ {threshold}."
    return histogram(
        [Bin(label, n, f"mean IoU {label}: {n} image{_s(n)}") for label, n in zip(labels, counts)],
        title="Mean pairwise IoU per image", heading="Mean pairwise IoU per image", lead=lead,
        x_label="mean pairwise IoU", unit="images",
    )


# --- shares, counts and rates per country -----------------------------------------------------


def error_types(res: Mapping[str, Any]) -> str:
    """CulturalFrames: the error types of sub-perfect ratings, all countries and each, as stacked shares."""
    groups = [(res.get("overall") or {}, True), *((g, False) for g in res.get("countries") or ())]
    shown = [(k, name) for k, name in ERROR_CATEGORIES
             if k != "unspecified" or any((g.get("counts") or {}).get(k) for g, _ in groups)]
    stacks = [
        Stack(
            "All countries" if total else _country(g.get("country")),
            [(g.get("counts") or {}).get(k, 0) for k, _ in shown],
            g.get("sub_perfect") or 0,
            strong=total,
            note="no sub-perfect rating",
        )
        for g, total in groups
    ]
    return stacked_bars(
        stacks, [name for _, name in shown],
        title="Sub-perfect alignment ratings by error type",
        lead="Of the ratings below a perfect alignment, the share by the error types ticked, all countries and each.",
        unit="sub-perfect",
    )


def highlighted_words(g: Mapping[str, Any], label: str) -> str:
    """CulturalFrames: how often each of the most highlighted words was highlighted."""
    bars = [
        Bar(str(word), times, str(times), f"“{word}”: highlighted {times} time{_s(times)} in {n} annotation{_s(n)}")
        for word, times, n in (g.get("top") or ())[:SHOWN]
    ]
    return bar_chart(bars, title=f"Most highlighted words: {label}", heading=label,
                     lead=f"The words highlighted as not depicted well most often ({label}), by times highlighted.")


def caption_wins(g: Mapping[str, Any], label: str) -> str:
    """RAVENEA: each system's caption win rate (wins of the answers that showed it)."""
    bars = [
        Bar(str(s.get("system")), s.get("win_rate"), f"{fmt(s['win_rate'])} ({s.get('wins')} of {s.get('shown')})"
            if s.get("win_rate") is not None else "", note="never shown")
        for s in (g.get("systems") or ())[:SHOWN]
    ]
    return bar_chart(bars, title=f"Caption win rates: {label}", heading=label, max_value=1,
                     lead=f"Each system's win rate ({label}): the answers choosing its caption, of those showing it.")


def answer_agreement(res: Mapping[str, Any]) -> str:
    """CulturalVQA: the mean agreement among a country's answers to a question, all countries and each."""
    groups = [(res.get("overall") or {}, True), *((g, False) for g in res.get("countries") or ())]
    bars = []
    for g, total in groups:
        mean, questions = g.get("mean_agreement"), g.get("questions", 0)
        bars.append(Bar(
            "All countries" if total else _country(g.get("country")), mean,
            f"{fmt(mean)} ({questions} question{_s(questions)})" if mean is not None else "",
            note="no question with two answers", strong=total,
        ))
    return bar_chart(bars, title="Answer agreement per country", max_value=1,
                     lead="The mean share of matching pairs of answers to a question, for all countries and each.")


# --- correlations -----------------------------------------------------------------------------


def criteria_spearman(res: Mapping[str, Any]) -> list[str]:
    """CulturalFrames: Spearman's rho between each pair of criteria (over annotations), all countries and each."""
    criteria = [str(k) for k in res.get("criteria") or ()]
    groups = [("All countries", res.get("overall") or ()),
              *((_country(c.get("country")), c.get("pairs") or ()) for c in res.get("countries") or ())]
    out = []
    for label, pairs in groups:
        cells: list[list[Cell | None]] = [[None] * len(criteria) for _ in criteria]
        for p in pairs:
            a, b = str(p.get("a")), str(p.get("b"))
            if a not in criteria or b not in criteria:
                continue
            ann, means = p.get("annotations") or {}, p.get("item_means") or {}
            rho = ann.get("value")
            hover = f"{label}, {a} × {b}: " + (f"ρ = {fmt(rho)} over {ann.get('n')} annotations" if rho is not None else
                                                 f"undefined ({ann.get('reason') or 'no value'})")
            if means.get("value") is not None:
                hover += f"; over item means ρ = {fmt(means['value'])} (n = {means.get('n')})"
            i, j = criteria.index(a), criteria.index(b)
            cells[i][j] = cells[j][i] = Cell(rho, hover)
        svg = heatmap(criteria, criteria, cells, title=f"Spearman's rho between criteria: {label}", heading=label,
                      lead=f"Spearman's rho between each pair of criteria over the annotations ({label}); "
                           "blue is positive, red negative, darker is stronger.")
        if svg:
            out.append(svg)
    return out


def _coefficient(label: str, c: Mapping[str, Any], base: Mapping[str, Any] | None, **kw: Any) -> Estimate:
    value = c.get("value")
    note = (c.get("reason") or "") if value is None else f"n = {c.get('n')}"
    band = None
    if base and base.get("mean") is not None:
        band = (base.get("ci_low"), base["mean"], base.get("ci_high"))
    return Estimate(label, value, c.get("ci_low"), c.get("ci_high"), note=note, band=band,
                    band_label="Human–human baseline (mean over raters)", **kw)


def metric(x: Mapping[str, Any], m: Mapping[str, Any]) -> str:
    """One metric against the human score: each coefficient with its interval, per country when the
    unit is (item, country), each drawn over the human–human baseline band of the same coefficient."""
    baseline = m.get("baseline") or {}
    summary = baseline.get("summary") or {}
    per_country = bool((m.get("settings") or {}).get("per_country")) and bool(x.get("countries"))
    by_country = {c.get("country"): c.get("summary") or {} for c in baseline.get("countries") or ()}
    rows = []
    for method, name in METHODS:
        overall = (x.get("coefficients") or {}).get(method) or {}
        if not per_country:
            rows.append(_coefficient(name, overall, summary.get(method)))
            continue
        rows.append(_coefficient("All countries", overall, summary.get(method), group=name, strong=True))
        for c in x.get("countries") or ():
            coefficient = (c.get("coefficients") or {}).get(method) or {}
            base = by_country.get(c.get("country"), {}).get(method)
            rows.append(_coefficient(_country(c.get("country")), coefficient, base, group=name))
    return dot_plot(
        rows,
        title=f"{x.get('metric')} against the human score",
        heading=str(x.get("metric")),
        lead=f"Pearson, Spearman and Kendall correlations of {x.get('metric')} with the human score, with 95% intervals"
        + (", for all countries and each" if per_country else "")
        + "; the shaded band behind each row is the human–human baseline of the same coefficient and its interval.",
        floor=0,
        references=(Reference(0, "0"),),
    )


__all__ = ["answer_agreement", "box_agreement", "caption_wins", "criteria_spearman", "document_scores",
           "error_types", "field_alpha", "highlighted_words", "human_scores", "metric"]


# --- comparisons --------------------------------------------------------------------------------


def comparison_ranks(c: Mapping[str, Any]) -> str:
    """A comparison field's models ranked per country (and over all pools): each model's fitted
    score (centred log-strength) with its bootstrap interval, one group per country, best first."""
    rows = []
    groups = [("All pools", c.get("overall") or {})]
    groups += [(p.get("country_name") or _country(p.get("country")), p) for p in c.get("pools") or ()]
    for name, fit in groups:
        things = sorted((fit.get("things") or {}).items(), key=lambda kv: (kv[1].get("rank") or 0, kv[0]))
        if not things:
            rows.append(Estimate(name, None, note=fit.get("error") or "no answers", group=name))
        rows += [Estimate(f"{t.get('rank')}. {thing}", t.get("score"), t.get("ci_low"), t.get("ci_high"), group=name,
                          strong=t.get("rank") == 1)
                 for thing, t in things]
    design = {"pairs": "Bradley–Terry fit of the pairwise choices (ties as half a win each way)",
              "best_worst": "Bradley–Terry fit of the pairs best–worst choices imply",
              "rankings": "Bradley–Terry fit of the pairs the rankings imply"}.get(c.get("design") or "", "")
    return dot_plot(
        rows,
        title=f"Models ranked on {c.get('label') or c.get('key')} ({c.get('key')}), per country",
        lead=f"Each model's score (log-strength, centred at 0: higher is preferred more often) with its 95% "
        f"bootstrap interval, over all pools and per country; {design}.",
        symbol="s",
        floor=-1.0,
        ceiling=1.0,
        references=(Reference(0, "0 average"),),
    )

"""The SVG plots of the analysis page (``analysis.plots``): well-formed, escaped, one mark per figure
with its exact value on hover, undefined figures as labelled gaps, nothing drawn from nothing.
Pure: no database."""

import xml.etree.ElementTree as ET

import pytest

from analysis.plots import (
    Bar,
    Bin,
    Cell,
    Estimate,
    Stack,
    bar_chart,
    dot_plot,
    figures,
    heatmap,
    histogram,
    stacked_bars,
)
from analysis.plots.charts import LABELS

NS = {"s": "http://www.w3.org/2000/svg"}
HOSTILE = '<script>alert("x")</script> & Co'


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on anything that is not well-formed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("role") == "img" and root.get("width") == "100%"
    assert root.get("viewBox").startswith("0 0 ")
    title, desc = list(root)[:2]
    assert title.tag.endswith("title") and title.text and desc.tag.endswith("desc") and desc.text
    return root


def marks(root: ET.Element, cls: str = "plot-mark") -> list[ET.Element]:
    return [g for g in root.iter("{http://www.w3.org/2000/svg}g") if cls in (g.get("class") or "").split()]


def hover(g: ET.Element) -> str:
    return g.find("s:title", NS).text


def texts(root: ET.Element) -> list[str]:
    return [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]


ALPHAS = [
    Estimate("All pools", 0.712, 0.601, 0.802, strong=True),
    Estimate("India", 0.5, 0.31, 0.66),
    Estimate("Japan", None, note="fewer than 2 units"),
    Estimate("model-a", -0.35, -0.61, 0.05, group="By model"),
]


def alpha_plot(rows=ALPHAS):
    return dot_plot(rows, title="Alpha", symbol="α", references=figures.ALPHA_REFERENCES)


# --- dot plot ---------------------------------------------------------------------------------


def test_a_dot_plot_has_one_mark_per_defined_row_with_its_figures_on_hover():
    root = parse(alpha_plot())
    shown = marks(root)
    assert len(shown) == 3 == len(list(root.iter("{http://www.w3.org/2000/svg}circle")))
    assert hover(shown[0]) == "All pools: α = 0.712, 95% interval [0.601, 0.802]"
    assert hover(shown[2]) == "model-a: α = −0.350, 95% interval [−0.610, 0.050]"
    assert "By model" in texts(root)  # the group heading
    assert "0.712 [0.601, 0.802]" in texts(root)  # the figure beside its row


def test_an_undefined_alpha_is_a_labelled_gap_not_a_point():
    root = parse(alpha_plot())
    (gap,) = marks(root, "plot-gap")
    assert hover(gap) == "Japan: undefined (fewer than 2 units)"
    assert gap.find("s:text", NS).text == "undefined: fewer than 2 units"
    assert gap.find("s:circle", NS) is None and gap.find("s:line", NS) is None
    assert "Japan undefined (fewer than 2 units)" in parse(alpha_plot()).find("s:desc", NS).text


def test_the_axis_runs_from_the_lowest_interval_to_one_with_the_reliability_lines():
    root = parse(alpha_plot())
    axis = next(line for line in root.iter("{http://www.w3.org/2000/svg}line") if line.get("class") == "plot-axis")
    start, end = float(axis.get("x1")), float(axis.get("x2"))
    ci = next(m for m in marks(root) if hover(m).startswith("model-a")).find("s:line", NS)
    assert start < float(ci.get("x1")) < float(ci.get("x2")) < end  # −0.61 is inside, not clamped to the edge
    refs = [line for line in root.iter("{http://www.w3.org/2000/svg}line") if line.get("class") == "plot-ref"]
    assert len(refs) == 3
    assert {"0", "tentative 0.667", "0.8 reliable"} <= set(texts(root))
    ticks = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "plot-tick"]
    assert ticks[-1] == "1"


def test_the_axis_reaches_minus_0_2_even_when_every_alpha_is_high():
    root = parse(alpha_plot([Estimate("All pools", 0.9, 0.85, 0.95)]))
    ticks = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "plot-tick"]
    assert ticks[0] == "−0.2" and ticks[-1] == "1"


def test_a_hostile_label_is_escaped_everywhere():
    rows = [Estimate(HOSTILE, 0.4, 0.3, 0.5), Estimate("ok", None, note=HOSTILE)]
    svg = dot_plot(rows, title=HOSTILE, lead=HOSTILE)
    assert "<script" not in svg and "&lt;script&gt;" in svg
    root = parse(svg)
    assert root.find("s:title", NS).text == HOSTILE  # escaped, not mangled: the text reads back whole
    assert hover(marks(root)[0]).startswith(HOSTILE)
    assert hover(marks(root, "plot-gap")[0]) == f"ok: undefined ({HOSTILE})"


def test_a_band_draws_a_baseline_behind_its_row_with_a_legend():
    rows = [Estimate("Pearson r", 0.4, 0.2, 0.6, band=(0.7, 0.75, 0.8), band_label="Human–human baseline")]
    root = parse(dot_plot(rows, title="Metric", floor=0))
    (band,) = marks(root, "plot-reference")
    assert hover(band) == "Human–human baseline: 0.750 [0.700, 0.800]"
    assert "Human–human baseline: mean and 95% interval" in texts(root)


@pytest.mark.parametrize("rows", [[], [Estimate("All pools", None, note="no variation")]])
def test_no_defined_estimate_draws_no_plot(rows):
    assert alpha_plot(rows) == ""


# --- bars, stacks, histograms, heatmaps -------------------------------------------------------


def test_bars_have_one_mark_each_and_gaps_for_undefined_figures():
    bars = [Bar("All countries", 0.48, strong=True), Bar("IN", 0.57, "0.567 (10 questions)"),
            Bar("ET", None, note="no pair")]
    root = parse(bar_chart(bars, title="Agreement", max_value=1))
    assert [hover(m) for m in marks(root)] == ["All countries: 0.480", "IN: 0.567 (10 questions)"]
    assert len(list(root.iter("{http://www.w3.org/2000/svg}rect"))) == 2
    assert hover(marks(root, "plot-gap")[0]) == "ET: undefined (no pair)"


def test_stacked_bars_share_each_whole_and_say_the_counts():
    stacks = [Stack("All countries", [6, 3, 1], 10, strong=True), Stack("IN", [2, 0, 2], 4),
              Stack("JP", [0, 0, 0], 0, note="none")]
    root = parse(stacked_bars(stacks, ["explicit only", "implicit only", "both"], title="Error types"))
    assert [hover(m) for m in marks(root)] == [
        "All countries · explicit only: 6 of 10 (60.0%)", "All countries · implicit only: 3 of 10 (30.0%)",
        "All countries · both: 1 of 10 (10.0%)", "IN · explicit only: 2 of 4 (50.0%)", "IN · both: 2 of 4 (50.0%)",
    ]
    assert {"explicit only", "implicit only", "both", "60%"} <= set(texts(root))
    assert len(marks(root, "plot-gap")) == 1


def test_a_histogram_has_a_mark_per_non_empty_bin():
    root = parse(histogram([Bin("1", 2), Bin("2", 0), Bin("3", 7)], title="Scores", unit="pairs"))
    assert [hover(m) for m in marks(root)] == ["1: 2 pairs", "3: 7 pairs"]
    assert {"1", "2", "3"} <= set(texts(root))


def test_a_heatmap_writes_each_value_in_its_cell():
    cells = [[None, Cell(0.41, "a × b"), Cell(None, "a × c: constant")],
             [Cell(0.41, "a × b"), None, Cell(-0.7, "b × c")],
             [Cell(None, "a × c: constant"), Cell(-0.7, "b × c"), None]]
    root = parse(heatmap(["a", "b", "c"], ["a", "b", "c"], cells, title="Spearman"))
    assert len(marks(root)) == 4 and len(marks(root, "plot-gap")) == 2
    assert texts(root).count("0.41") == 2 and texts(root).count("−0.70") == 2
    shaded = [r.get("class") for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert "plot-heat-n3" in shaded and "plot-heat-p2" in shaded


@pytest.mark.parametrize("draw", [
    lambda: bar_chart([], title="x"),
    lambda: bar_chart([Bar("a", None)], title="x"),
    lambda: stacked_bars([Stack("a", [0, 0], 0)], ["x", "y"], title="x"),
    lambda: histogram([Bin("a", 0)], title="x"),
    lambda: heatmap(["a"], ["a"], [[None]], title="x"),
])
def test_nothing_to_draw_draws_nothing(draw):
    assert draw() == ""


# --- from the analysis result -----------------------------------------------------------------


def figures_of(alpha, low=None, high=None, reason=""):
    return {"alpha": alpha, "ci_low": low, "ci_high": high, "reason": reason, "n_units": 5, "n_ratings": 15}


FIELD = {
    "key": "alignment", "label": "Does the image match?", "level": "ordinal", "type": "scale",
    "overall": figures_of(0.6, 0.5, 0.7),
    "pools": [{"country": "IN", "country_name": "India", **figures_of(0.7, 0.6, 0.8)},
              {"country": "JP", "country_name": "Japan", **figures_of(None, reason="fewer than 2 units")}],
    "by": {"model": [{"value": "model-a", **figures_of(0.5, 0.2, 0.7)}, {"value": "", **figures_of(0.1, -0.9, 0.6)}]},
}


def test_a_field_plots_all_pools_each_pool_and_each_attribute_value():
    root = parse(figures.field_alpha(FIELD))
    assert [hover(m).split(":")[0] for m in marks(root)] == ["All pools", "India", "model-a", "(none)"]
    assert hover(marks(root, "plot-gap")[0]) == "Japan: undefined (fewer than 2 units)"
    assert "By model" in texts(root)
    assert root.find("s:title", NS).text == "Krippendorff's alpha of Does the image match? (alignment), ordinal level"
    ci = marks(root)[3].find("s:line", NS)
    assert float(ci.get("x1")) > LABELS  # −0.9 widened the axis instead of being cut off


def test_human_scores_are_one_histogram_per_country_on_shared_axes():
    histogram = {"edges": [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5],
                 "countries": [{"country": "IN", "counts": [1, 0, 0, 0, 0, 0, 0, 2]},
                               {"country": "JP", "counts": [0, 0, 0, 1, 0, 0, 0, 0]}]}
    svgs = figures.human_scores({"histogram": histogram})
    assert len(svgs) == 2
    india, japan = (parse(s) for s in svgs)
    assert [hover(m) for m in marks(india)] == ["IN, mean 1–1.5: 1 (item, country) pair",
                                                "IN, mean 4.5–5: 2 (item, country) pairs"]
    assert [hover(m) for m in marks(japan)] == ["JP, mean 2.5–3: 1 (item, country) pair"]

    def tick(root):
        return [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("text-anchor") == "end"]

    assert tick(india) == tick(japan)  # one count axis for every country
    assert figures.human_scores({"rows": [], "histogram": None}) == []


def test_document_scores_fill_the_scores_between():
    score = {"histogram": [{"score": -2, "pairs": 1}, {"score": 2, "pairs": 4}], "mean": 1.2}
    root = parse(figures.document_scores(score))
    assert [hover(m) for m in marks(root)] == ["mean score −2: 1 (item, document) pairs",
                                               "mean score +2: 4 (item, document) pairs"]
    assert {"−2", "−1", "0", "+1", "+2"} <= set(texts(root))


def test_error_types_stack_all_countries_and_each_and_show_unspecified_only_when_any():
    def group(country, e, i, b, u=0):
        return {"country": country, "sub_perfect": e + i + b + u,
                "counts": {"explicit_only": e, "implicit_only": i, "both": b, "unspecified": u}}

    res = {"overall": group(None, 3, 2, 1), "countries": [group("IN", 2, 1, 1), group("JP", 1, 1, 0)]}
    root = parse(figures.error_types(res))
    assert "unspecified" not in texts(root) and "All countries" in texts(root)
    assert len(marks(root)) == 3 + 3 + 2
    res["countries"][1] = group("JP", 1, 1, 0, u=2)
    assert "unspecified" in texts(parse(figures.error_types(res)))


def test_criteria_spearman_is_a_symmetric_heatmap_per_group():
    pair = {"a": "alignment", "b": "overall", "annotations": {"value": 0.5, "n": 9},
            "item_means": {"value": 0.8, "n": 3}}
    undefined = {**pair, "annotations": {"value": None, "n": 2, "reason": "too few"}}
    res = {"criteria": ["alignment", "quality", "overall"], "overall": [pair],
           "countries": [{"country": "IN", "pairs": [undefined]}]}
    svgs = figures.criteria_spearman(res)
    assert len(svgs) == 1  # India has no defined rho: no heatmap of blanks
    root = parse(svgs[0])
    assert [hover(m) for m in marks(root)] == [
        "All countries, alignment × overall: ρ = 0.500 over 9 annotations; over item means ρ = 0.800 (n = 3)"] * 2


def test_a_metric_is_plotted_per_country_over_its_baseline():
    coefficient = {"value": 0.3, "ci_low": 0.1, "ci_high": 0.5, "n": 40}
    summary = {m: {"mean": 0.8, "ci_low": 0.75, "ci_high": 0.85} for m in ("pearson", "spearman", "kendall")}
    constant = {m: {"value": None, "reason": "constant", "n": 2} for m in summary}
    x = {"metric": "clip", "coefficients": dict.fromkeys(summary, coefficient),
         "countries": [{"country": "IN", "coefficients": constant}]}
    baseline = {"summary": summary, "countries": [{"country": "IN", "summary": summary}]}
    m = {"settings": {"per_country": True}, "baseline": baseline}
    root = parse(figures.metric(x, m))
    assert len(marks(root)) == 3 and len(marks(root, "plot-gap")) == 3 and len(marks(root, "plot-reference")) == 6
    assert {"Pearson r", "Spearman ρ", "Kendall τb", "clip"} <= set(texts(root))
    assert hover(marks(root)[0]) == "All countries: 0.300, 95% interval [0.100, 0.500] (n = 40)"


def test_box_agreement_answers_and_wins_plot_their_figures():
    box = parse(figures.box_agreement({"iou_histogram": [0, 0, 0, 1, 0, 0, 0, 0, 0, 2],
                                       "threshold": 0.5, "share_at_threshold": 0.5}))
    assert [hover(m) for m in marks(box)] == ["mean IoU 0.3–0.4: 1 image", "mean IoU 0.9–1: 2 images"]
    answers = parse(figures.answer_agreement({
        "overall": {"mean_agreement": 0.5, "questions": 4},
        "countries": [{"country": "ET", "mean_agreement": None, "questions": 0}],
    }))
    assert hover(marks(answers)[0]) == "All countries: 0.500 (4 questions)"
    assert hover(marks(answers, "plot-gap")[0]) == "ET: undefined (no question with two answers)"
    wins = parse(figures.caption_wins({"systems": [{"system": "GPT", "win_rate": 0.6, "wins": 6, "shown": 10}]}, "IN"))
    assert hover(marks(wins)[0]) == "GPT: 0.600 (6 of 10)"
    words = parse(figures.highlighted_words({"top": [["naan", 3, 2], ["<b>", 1, 1]]}, "IN"))
    assert [hover(m) for m in marks(words)] == ["“naan”: highlighted 3 times in 2 annotations",
                                                "“<b>”: highlighted 1 time in 1 annotation"]

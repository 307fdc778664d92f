"""The chart forms of the analysis page, each a function of plain rows returning an SVG string.

Every function returns "" when there is nothing to draw. Each drawn figure is one ``<g
class="plot-mark">`` with a ``<title>`` (the exact figures, shown on hover); an undefined figure
is a ``<g class="plot-gap">``: a labelled gap, never a point at zero. Pure: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .svg import FONT, Scale, c, clip, document, finite, fmt, fmt_interval, fmt_tick, mark, summary, text, ticks

WIDE = 720  # viewBox width of the row charts (dot plots, bars, stacked bars)
SMALL = 360  # viewBox width of the small multiples (histograms, heatmaps)
ROW = 22  # height of one row
LABELS = 176  # the label column of the row charts; the plot starts here
LABEL_CHARS = 26
HEADING = 20  # height of a visible heading


def _line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    return f'<line class="{cls}" x1="{c(x1)}" y1="{c(y1)}" x2="{c(x2)}" y2="{c(y2)}"/>'


def _rect(x: float, y: float, w: float, h: float, cls: str) -> str:
    return f'<rect class="{cls}" x="{c(x)}" y="{c(y)}" width="{c(max(w, 0))}" height="{c(max(h, 0))}"/>'


def _heading(heading: str) -> list[str]:
    return [text(0, 14, clip(heading, 70), "plot-heading")] if heading else []


def _x_axis(x: Scale, grid: Sequence[float], top: float, bottom: float, label=fmt_tick) -> list[str]:
    """Faint gridlines at the ticks over the rows, the axis line and the tick labels under it."""
    out = [_line(x(t), top, x(t), bottom, "plot-grid") for t in grid]
    out.append(_line(x.start, bottom, x.end, bottom, "plot-axis"))
    out += [text(x(t), bottom + 15, label(t), "plot-tick", "middle") for t in grid]
    return out


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def _row_label(y: float, label: str, strong: bool) -> str:
    return text(LABELS - 8, y + 4, clip(label, LABEL_CHARS), "plot-label" + (" plot-strong" if strong else ""), "end")


def _gap(x: float, y: float, label: str, note: str) -> str:
    shown = "undefined" + (f": {clip(note, 60)}" if note else "")
    hover = f"{label}: undefined" + (f" ({note})" if note else "")
    return mark(hover, text(x, y + 4, shown, "plot-gap-text"), "plot-gap")


# --- dot plot of estimates with intervals -------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """One row of a dot plot. ``value`` None draws a gap labelled with ``note`` (why it is undefined);
    rows sharing a ``group`` are drawn under its heading. ``band`` (low, mid, high) is a reference
    drawn behind the row, such as a baseline and its interval (low and high may be None)."""

    label: str
    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""
    group: str = ""
    strong: bool = False
    band: tuple[float | None, float, float | None] | None = None
    band_label: str = ""


@dataclass(frozen=True)
class Reference:
    """A labelled vertical line across a dot plot (a threshold); ``anchor`` places its label."""

    x: float
    label: str
    anchor: str = "middle"  # where the label sits: "middle" of the line, "start" right of it, "end" left of it


def _grouped(rows: Sequence[Estimate]) -> list[str | Estimate]:
    """The rows with a group heading (a str) before each run of rows of a new group."""
    out: list[str | Estimate] = []
    current = ""
    for row in rows:
        if row.group and row.group != current:
            out.append(row.group)
        current = row.group
        out.append(row)
    return out


def _band(x: Scale, y: float, row: Estimate) -> str:
    low, mid, high = row.band
    body = ""
    if low is not None and high is not None:
        body = _rect(x(low), y - ROW / 2 + 2, x(high) - x(low), ROW - 4, "plot-band")
    body += _line(x(mid), y - ROW / 2 + 1, x(mid), y + ROW / 2 - 1, "plot-band-mid")
    return mark(f"{row.band_label}: {fmt(mid)} {fmt_interval(low, high)}".strip(), body, "plot-reference")


def dot_plot(
    rows: Iterable[Estimate],
    *,
    title: str,
    lead: str = "",
    symbol: str = "",
    floor: float = -0.2,
    ceiling: float = 1.0,
    references: Sequence[Reference] = (),
    heading: str = "",
) -> str:
    """Each estimate as a dot with its interval as a line, one row each, on a shared x axis from
    min(``floor``, the lowest figure) to max(``ceiling``, the highest)."""
    rows = list(rows)
    if not any(r.value is not None for r in rows):
        return ""
    spread = finite(v for r in rows for v in (r.value, r.low, r.high, *(r.band or ())))
    lo, hi, grid = ticks(min(floor, *spread), max(ceiling, *spread), 7, widen=False)
    lines = _grouped(rows)
    banded = next((r for r in rows if r.band is not None), None)
    top = (HEADING if heading else 0) + (18 if banded else 0) + (20 if references else 6)
    bottom = top + len(lines) * ROW
    x = Scale(lo, hi, LABELS, WIDE - 160)
    body = [*_heading(heading), *_x_axis(x, grid, top, bottom)]
    if banded:  # a legend for the bands, above the reference labels
        legend = top - (38 if references else 24)
        body.append(_rect(LABELS, legend, 24, 12, "plot-band"))
        body.append(_line(LABELS + 12, legend, LABELS + 12, legend + 12, "plot-band-mid"))
        body.append(text(LABELS + 30, legend + 10, f"{banded.band_label}: mean and 95% interval", "plot-legend"))
    for ref in references:
        if lo <= ref.x <= hi:
            body.append(_line(x(ref.x), top - 4, x(ref.x), bottom, "plot-ref"))
            nudge = {"start": 3, "end": -3}.get(ref.anchor, 0)
            body.append(text(x(ref.x) + nudge, top - 7, ref.label, "plot-ref-label", ref.anchor))
    parts = []
    for i, line in enumerate(lines):
        y = top + i * ROW + ROW / 2
        if isinstance(line, str):
            body.append(text(0, y + 4, clip(line, 60), "plot-group"))
            continue
        body.append(_row_label(y, line.label, line.strong))
        if line.band is not None and line.band[1] is not None:
            body.append(_band(x, y, line))
        if line.value is None:
            body.append(_gap(x.start + 4, y, line.label, line.note))
            body.append(text(WIDE - 148, y + 4, "—", "plot-value"))
            parts.append(f"{line.label} undefined" + (f" ({line.note})" if line.note else ""))
            continue
        interval = fmt_interval(line.low, line.high)
        shapes = ""
        if interval:
            shapes += _line(x(line.low), y, x(line.high), y, "plot-ci")
            shapes += "".join(_line(x(e), y - 4, x(e), y + 4, "plot-ci") for e in (line.low, line.high))
        shapes += f'<circle class="plot-dot" cx="{c(x(line.value))}" cy="{c(y)}" r="4.5"/>'
        figure = f"{symbol} = {fmt(line.value)}" if symbol else fmt(line.value)
        hover = f"{line.label}: {figure}" + (f", 95% interval {interval}" if interval else "")
        hover += f" ({line.note})" if line.note else ""
        body.append(mark(hover, shapes, "plot-mark plot-strong" if line.strong else "plot-mark"))
        body.append(text(WIDE - 148, y + 4, f"{fmt(line.value)} {interval}".strip(), "plot-value"))
        parts.append(f"{line.label} {fmt(line.value)} {interval}".strip())
    return document(WIDE, bottom + 24, title, summary(lead, parts), body)


# --- horizontal bars --------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """One bar from zero. ``text`` is shown at its end (the value by default), ``hover`` on hover;
    ``low``/``high`` an interval drawn as a whisker; ``value`` None draws a gap labelled ``note``."""

    label: str
    value: float | None
    text: str = ""
    hover: str = ""
    low: float | None = None
    high: float | None = None
    note: str = ""
    strong: bool = False


def bar_chart(
    bars: Iterable[Bar], *, title: str, lead: str = "", max_value: float = 0, heading: str = "", percent: bool = False
) -> str:
    """Horizontal bars, one row each, on an axis from 0 to max(``max_value``, the longest bar)."""
    bars = list(bars)
    if not any(b.value is not None for b in bars):
        return ""
    longest = max(finite(v for b in bars for v in (b.value, b.high)))
    lo, hi, grid = ticks(0, max(max_value, longest, 1e-9), 5, integers=not percent and float(longest).is_integer())
    top = (HEADING if heading else 0) + 6
    bottom = top + len(bars) * ROW
    x = Scale(lo, hi, LABELS, WIDE - 120)
    body = [*_heading(heading), *_x_axis(x, grid, top, bottom, _percent if percent else fmt_tick)]
    parts = []
    for i, bar in enumerate(bars):
        y = top + i * ROW + ROW / 2
        body.append(_row_label(y, bar.label, bar.strong))
        if bar.value is None:
            body.append(_gap(x.start + 4, y, bar.label, bar.note))
            parts.append(f"{bar.label} undefined" + (f" ({bar.note})" if bar.note else ""))
            continue
        shown = bar.text or fmt(bar.value)
        shapes = _rect(x.start, y - 7, x(bar.value) - x.start, 14, "plot-bar")
        end = x(bar.value)
        if bar.low is not None and bar.high is not None:
            shapes += _line(x(bar.low), y, x(bar.high), y, "plot-ci")
            end = max(end, x(bar.high))
        shapes += text(end + 6, y + 4, shown, "plot-value")
        cls = "plot-mark plot-strong" if bar.strong else "plot-mark"
        body.append(mark(bar.hover or f"{bar.label}: {shown}", shapes, cls))
        parts.append(f"{bar.label} {shown}")
    return document(WIDE, bottom + 24, title, summary(lead, parts), body)


# --- stacked bars of shares -------------------------------------------------------------------


@dataclass(frozen=True)
class Stack:
    """One row of stacked bars: the count of each category out of ``whole``."""

    label: str
    parts: Sequence[int]
    whole: int
    strong: bool = False
    note: str = ""  # shown when ``whole`` is 0


def stacked_bars(
    stacks: Iterable[Stack], categories: Sequence[str], *, title: str, lead: str = "", heading: str = "", unit: str = ""
) -> str:
    """Each row's categories as shares of its whole, stacked left to right, with a legend."""
    stacks = list(stacks)
    if not any(s.whole for s in stacks):
        return ""
    top = (HEADING if heading else 0) + 26
    bottom = top + len(stacks) * ROW
    x = Scale(0, 1, LABELS, WIDE - 120)
    body = [*_heading(heading), *_x_axis(x, [0, 0.25, 0.5, 0.75, 1], top, bottom, _percent)]
    legend_x = LABELS
    for k, name in enumerate(categories):
        body.append(_rect(legend_x, top - 20, 12, 12, f"plot-seg-{k}"))
        body.append(text(legend_x + 16, top - 10, name, "plot-legend"))
        legend_x += 16 + len(name) * FONT * 0.6 + 18
    parts = []
    for i, stack in enumerate(stacks):
        y = top + i * ROW + ROW / 2
        body.append(_row_label(y, stack.label, stack.strong))
        if not stack.whole:
            body.append(_gap(x.start + 4, y, stack.label, stack.note))
            parts.append(f"{stack.label} none" + (f" ({stack.note})" if stack.note else ""))
            continue
        left, shares = 0, []
        for k, (name, n) in enumerate(zip(categories, stack.parts, strict=True)):
            share = n / stack.whole
            width = x(left + share) - x(left)
            shapes = _rect(x(left), y - 8, width, 16, f"plot-seg-{k}")
            if width >= 34:
                shapes += text(x(left) + width / 2, y + 4, f"{round(share * 100)}%", "plot-seg-text", "middle")
            if n:
                body.append(mark(f"{stack.label} · {name}: {n} of {stack.whole} ({fmt(share * 100, 1)}%)", shapes))
            left += share
            shares.append(f"{name} {round(share * 100)}%")
        body.append(text(WIDE - 112, y + 4, f"{stack.whole} {unit}".strip(), "plot-value"))
        parts.append(f"{stack.label}: " + ", ".join(shares) + f" of {stack.whole}")
    return document(WIDE, bottom + 24, title, summary(lead, parts), body)


# --- histogram --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bin:
    label: str
    count: int
    hover: str = ""


def histogram(
    bins: Iterable[Bin],
    *,
    title: str,
    lead: str = "",
    y_max: int = 0,
    heading: str = "",
    x_label: str = "",
    unit: str = "",
) -> str:
    """Vertical bars, one per bin, on a count axis from 0 to max(``y_max``, the tallest bin)."""
    bins = list(bins)
    if not any(b.count for b in bins):
        return ""
    left, right, top = 34, SMALL - 8, (HEADING if heading else 0) + 14
    bottom = top + 110
    _, hi, grid = ticks(0, max(y_max, *(b.count for b in bins)), 4, integers=True)
    y = Scale(0, hi, bottom, top)
    width = (right - left) / len(bins)
    body = [*_heading(heading)]
    body += [_line(left, y(t), right, y(t), "plot-grid") for t in grid]
    body += [text(left - 5, y(t) + 4, fmt_tick(t), "plot-tick", "end") for t in grid]
    body.append(_line(left, bottom, right, bottom, "plot-axis"))
    every = max(1, math.ceil(max(len(b.label) for b in bins) * FONT * 0.55 / width))
    parts = []
    for i, b in enumerate(bins):
        x0 = left + i * width
        shapes = _rect(x0 + 1, y(b.count), width - 2, bottom - y(b.count), "plot-bar")
        if b.count and len(bins) <= 16:
            shapes += text(x0 + width / 2, y(b.count) - 3, str(b.count), "plot-count", "middle")
        if b.count:
            body.append(mark(b.hover or f"{b.label}: {b.count} {unit}".strip(), shapes))
        if i % every == 0:
            body.append(text(x0 + width / 2, bottom + 14, b.label, "plot-tick", "middle"))
        parts.append(f"{b.label}: {b.count}")
    if x_label:
        body.append(text((left + right) / 2, bottom + 30, x_label, "plot-axis-label", "middle"))
    lead = f"{lead} Counts of {unit}." if unit else lead
    return document(SMALL, bottom + (36 if x_label else 22), title, summary(lead, parts), body, cls="plot-small")


# --- progress line ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    label: str
    value: int
    hover: str = ""


def progress_line(
    points: Sequence[Point], *, target: int, title: str, lead: str = "", heading: str = "", x_label: str = ""
) -> str:
    """A running total over time, one point per step, rising toward ``target`` (a dashed line);
    "" when the total never left zero."""
    if not points or not any(p.value for p in points):
        return ""
    left, right, top = 34, SMALL - 8, (HEADING if heading else 0) + 14
    bottom = top + 110
    _, hi, grid = ticks(0, max(target, *(p.value for p in points)), 4, integers=True)
    y = Scale(0, hi, bottom, top)
    step = (right - left) / max(1, len(points) - 1)
    body = [*_heading(heading)]
    body += [_line(left, y(t), right, y(t), "plot-grid") for t in grid]
    body += [text(left - 5, y(t) + 4, fmt_tick(t), "plot-tick", "end") for t in grid]
    body.append(_line(left, bottom, right, bottom, "plot-axis"))
    if target:
        body.append(_line(left, y(target), right, y(target), "plot-ref"))
        body.append(text(right, y(target) - 4, f"wanted {target}", "plot-ref-label", "end"))
    xy = [(left + i * step, y(p.value)) for i, p in enumerate(points)]
    path = " ".join(f"{'M' if i == 0 else 'L'}{c(px)},{c(py)}" for i, (px, py) in enumerate(xy))
    body.append(f'<path class="plot-line" d="{path}"/>')
    every = max(1, math.ceil(max(len(p.label) for p in points) * FONT * 0.55 / step)) if step else 1
    every = max(every, math.ceil(len(points) / 8))
    for i, (p, (px, py)) in enumerate(zip(points, xy)):
        dot = f'<circle class="plot-point" cx="{c(px)}" cy="{c(py)}" r="3"/>'
        body.append(mark(p.hover or f"{p.label}: {p.value}", dot))
        if (len(points) - 1 - i) % every == 0:
            body.append(text(px, bottom + 14, p.label, "plot-tick", "middle"))
    if x_label:
        body.append(text((left + right) / 2, bottom + 30, x_label, "plot-axis-label", "middle"))
    parts = [f"{p.label}: {p.value}" for p in points]
    return document(SMALL, bottom + (36 if x_label else 22), title, summary(lead, parts), body, cls="plot-small")


# --- heatmap ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One cell: ``value`` in [-1, 1] sets its shade; None with a ``hover`` is an undefined figure."""

    value: float | None
    hover: str
    text: str = ""


def _shade(value: float) -> str:
    return f"plot-heat-{'p' if value >= 0 else 'n'}{min(4, int(abs(value) * 5))}"


def heatmap(
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    cells: Sequence[Sequence[Cell | None]],
    *,
    title: str,
    lead: str = "",
    heading: str = "",
) -> str:
    """A matrix of shaded cells with the value written in each; a None cell is left blank."""
    if not any(cell is not None and cell.value is not None for row in cells for cell in row):
        return ""
    left, top = 100, (HEADING if heading else 0) + 20
    size = min(64.0, (SMALL - left - 4) / max(len(col_labels), 1))
    height = 30
    body = [*_heading(heading)]
    for j, label in enumerate(col_labels):
        body.append(text(left + j * size + size / 2, top - 6, clip(label, int(size / 6.5)), "plot-tick", "middle"))
    parts = []
    for i, (label, row) in enumerate(zip(row_labels, cells, strict=True)):
        y = top + i * height
        body.append(text(left - 6, y + height / 2 + 4, clip(label, 14), "plot-label", "end"))
        for j, cell in enumerate(row):
            x = left + j * size
            if cell is None:
                body.append(_rect(x + 1, y + 1, size - 2, height - 2, "plot-heat-none"))
                continue
            if cell.value is None:
                shapes = _rect(x + 1, y + 1, size - 2, height - 2, "plot-heat-na")
                shapes += text(x + size / 2, y + height / 2 + 4, "–", "plot-heat-text", "middle")
                body.append(mark(cell.hover, shapes, "plot-gap"))
                continue
            light = " plot-heat-light" if abs(cell.value) >= 0.6 else ""
            shapes = _rect(x + 1, y + 1, size - 2, height - 2, _shade(cell.value))
            figure = cell.text or fmt(cell.value, 2)
            shapes += text(x + size / 2, y + height / 2 + 4, figure, "plot-heat-text" + light, "middle")
            body.append(mark(cell.hover, shapes))
            parts.append(f"{label} × {col_labels[j]} {fmt(cell.value, 2)}")
    return document(SMALL, top + len(row_labels) * height + 6, title, summary(lead, parts), body, cls="plot-small")


__all__ = ["Bar", "Bin", "Cell", "Estimate", "Reference", "Stack", "bar_chart", "dot_plot", "heatmap",
           "histogram", "stacked_bars"]

"""What every chart shares: escaping, number formatting, axis ticks and the <svg> element. Pure.

Coordinates are in the units of a fixed viewBox; the element is ``width="100%"`` so it scales to
its container, and the page's stylesheet (``static/css/tessera.css``, the ``plot-*`` classes) gives
every mark its colour, so a chart follows the page and prints with it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence

from stats.binning import nice_step

FONT = 12  # the text size in viewBox units, as the stylesheet sets it (used to estimate widths)
MINUS = "\u2212"


def esc(value: object) -> str:
    """Any value as text safe inside an element or a quoted attribute."""
    return html.escape(str(value), quote=True)


def fmt(x: float, digits: int = 3) -> str:
    """A number as shown: fixed digits, a true minus sign, never "-0"."""
    text = f"{x:.{digits}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def fmt_tick(x: float) -> str:
    """An axis tick: as few digits as it needs (0, 0.2, 2.5, 1000)."""
    text = f"{x:.4f}".rstrip("0").rstrip(".")
    return fmt(float(text), len(text.split(".")[1]) if "." in text else 0)


def fmt_interval(low: float | None, high: float | None, digits: int = 3) -> str:
    return f"[{fmt(low, digits)}, {fmt(high, digits)}]" if low is not None and high is not None else ""


def c(x: float) -> str:
    """A coordinate: one decimal at most."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def clip(text: str, chars: int) -> str:
    """``text`` cut to ``chars`` characters with an ellipsis (the mark's hover text keeps it whole)."""
    return text if len(text) <= chars else text[: max(chars - 1, 1)] + "…"


def finite(values: Iterable[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def ticks(
    lo: float, hi: float, target: int = 5, *, integers: bool = False, widen: bool = True
) -> tuple[float, float, list[float]]:
    """(lo, hi) widened to whole steps (or, with ``widen=False``, to half steps), and the ticks
    (multiples of the step) between them."""
    step = nice_step(hi - lo, target)
    if integers:
        step = max(1.0, round(step))
    unit = step if widen else step / 2
    lo, hi = math.floor(lo / unit + 1e-9) * unit, math.ceil(hi / unit - 1e-9) * unit
    if hi <= lo:
        hi = lo + step
    first = math.ceil(lo / step - 1e-9)
    n = math.floor(hi / step + 1e-9) - first
    return round(lo, 10), round(hi, 10), [round((first + i) * step, 10) for i in range(n + 1)]


class Scale:
    """A linear map from data values to viewBox x (or y) coordinates."""

    def __init__(self, lo: float, hi: float, start: float, end: float):
        self.lo, self.hi, self.start, self.end = lo, hi, start, end

    def __call__(self, value: float) -> float:
        value = min(max(value, self.lo), self.hi)
        return self.start + (value - self.lo) / (self.hi - self.lo) * (self.end - self.start)


def text(x: float, y: float, content: str, cls: str = "", anchor: str = "start", extra: str = "") -> str:
    """A text element; ``content`` is escaped here."""
    klass = f' class="{cls}"' if cls else ""
    align = f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text x="{c(x)}" y="{c(y)}"{klass}{align}{extra}>{esc(content)}</text>'


def mark(hover: str, body: str, cls: str = "plot-mark") -> str:
    """One mark: its shapes under a <title>, so hovering shows the exact figures."""
    return f'<g class="{cls}"><title>{esc(hover)}</title>{body}</g>'


def summary(lead: str, parts: Sequence[str], limit: int = 40) -> str:
    """A figure's description: a lead sentence, then its figures (the first ``limit``)."""
    shown = "; ".join(parts[:limit]) + ("; …" if len(parts) > limit else "")
    return " ".join(p for p in (lead.strip(), shown + "." if shown else "") if p)


def document(width: float, height: float, title: str, desc: str, body: Sequence[str], *, cls: str = "plot-wide") -> str:
    """The <svg> element: a fixed viewBox, 100% wide, announced as one image by its title and description."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot {cls}" viewBox="0 0 {c(width)} {c(height)}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet" role="img">'
        f"<title>{esc(title)}</title><desc>{esc(desc)}</desc>{''.join(body)}</svg>"
    )

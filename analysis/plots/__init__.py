"""Server-side SVG plots of the analysis page. Pure: no Django.

``charts`` draws the chart forms (dot plot, bars, stacked bars, histogram, heatmap) from plain
rows; ``figures`` maps the parts of an ``AnalysisRun.result`` to them. The template tags in
``exports.templatetags.exports_plots`` put the SVG on the page.
"""

from .charts import Bar, Bin, Cell, Estimate, Reference, Stack, bar_chart, dot_plot, heatmap, histogram, stacked_bars

__all__ = ["Bar", "Bin", "Cell", "Estimate", "Reference", "Stack", "bar_chart", "dot_plot", "heatmap", "histogram",
           "stacked_bars"]

"""The plots of the analysis page: each tag draws one table's figure from the run's result.

The SVG comes from ``analysis.plots``, which escapes every text it writes; this is the one place it
is marked safe. A figure that cannot be drawn from an odd result is left out (and logged): the
table under it still shows the numbers.
"""

import logging
from collections.abc import Callable
from functools import wraps

from django import template
from django.utils.safestring import SafeString, mark_safe

from analysis.plots import figures

logger = logging.getLogger(__name__)
register = template.Library()


def _plot(draw: Callable[..., str | list[str]]) -> Callable[..., SafeString]:
    """A tag returning ``draw``'s SVG as safe markup in a frame; several figures side by side as small multiples."""

    @wraps(draw)
    def tag(*args):
        try:
            svg = draw(*args)
        except (AttributeError, KeyError, IndexError, TypeError, ValueError):
            logger.exception("the %s plot could not be drawn", draw.__name__)
            return mark_safe("")
        if isinstance(svg, list):
            svg = "".join(svg)
            return mark_safe(f'<div class="plot-multiples">{svg}</div>' if svg else "")  # noqa: S308
        # analysis.plots escapes every text it writes; the frame scrolls a wide plot on a narrow screen
        return mark_safe(f'<div class="plot-frame">{svg}</div>' if svg else "")  # noqa: S308

    return tag


register.simple_tag(_plot(figures.field_alpha), name="alpha_plot")
register.simple_tag(_plot(figures.document_scores), name="document_score_plot")
register.simple_tag(_plot(figures.human_scores), name="human_score_plots")
register.simple_tag(_plot(figures.error_types), name="error_type_plot")
register.simple_tag(_plot(figures.highlighted_words), name="word_plot")
register.simple_tag(_plot(figures.criteria_spearman), name="spearman_plots")
register.simple_tag(_plot(figures.caption_wins), name="wins_plot")
register.simple_tag(_plot(figures.box_agreement), name="box_plot")
register.simple_tag(_plot(figures.answer_agreement), name="answer_plot")
register.simple_tag(_plot(figures.metric), name="metric_plot")
register.simple_tag(_plot(figures.comparison_ranks), name="comparison_plot")

"""The report kinds the analysis computes, one line each. Pure: no Django.

A kind is declared in the protocol engine (``studies.protocol.reports.REPORT_KINDS``: title, roles,
options; what validating a spec needs) and implemented in one module here with
``kinds.implement(name, reads=…, compute=…, plot=…)``; its fragment is
``templates/analysis/_report_<kind>.html``. This catalog is the registry ``analysis.reports`` and
the page read; ``tests/analysis/test_report_kinds.py`` checks that it implements every declared kind
exactly once and that each fragment and plot tag exists.
"""

from __future__ import annotations

from . import caire, culturalframes, culturalvqa, globalrg, ravenea
from .kinds import ReportKindImpl


def catalog(*kinds: ReportKindImpl) -> dict[str, ReportKindImpl]:
    """Kind name -> implementation; a kind implemented twice is refused."""
    out: dict[str, ReportKindImpl] = {}
    for kind in kinds:
        if kind.name in out:
            raise ValueError(f"report kind {kind.name!r} is implemented twice")
        out[kind.name] = kind
    return out


REPORTS: dict[str, ReportKindImpl] = catalog(
    caire.HUMAN_SCORES,
    culturalframes.PROMPT_FILTER,
    culturalframes.ERROR_TYPES,
    culturalframes.HIGHLIGHTED_WORDS,
    culturalframes.CRITERIA_SPEARMAN,
    ravenea.DOCUMENT_SCORES,
    ravenea.CAPTION_WINS,
    globalrg.BOX_AGREEMENT,
    culturalvqa.ANSWER_AGREEMENT,
)

__all__ = ["REPORTS", "catalog"]

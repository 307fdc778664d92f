"""Shared by the analysis tests: a report kind registered for one test (a toy kind, declared and
implemented the way a real one is, ``studies.protocol.reports.REPORT_KINDS`` and
``stats.reports.catalog.REPORTS``, gone after it); four annotators who rate four items, one of them
fast and at odds with the others (``rated``)."""

import pytest

from stats.reports.catalog import REPORTS
from stats.reports.kinds import implement
from studies.protocol.reports import REPORT_KINDS
from tests import factories as f
from tests.annotations import annotate, annotators

# Four items of India, rated by three annotators who mostly agree and a fourth who does not.
ALIGNMENT = [[1, 1, 1, 0], [0, 0, 0, 1], [0.5, 0.5, 0, 1], [1, 1, 1, 0]]


@pytest.fixture
def rated(study, pool, items):
    items = items[:3] + f.make_items(study, "IN", 1)
    raters = annotators(pool, 4)
    for i, item in enumerate(items):
        for r, annotator in enumerate(raters):
            annotate(annotator, item, alignment=ALIGNMENT[i][r], time_spent_ms=2_000 if r == 3 else 40_000)
    return raters



@pytest.fixture
def report_kind(monkeypatch):
    """``report_kind(declaration, reads=…, compute=…, plot=…, template=…)``: declare the kind in the
    engine and put its implementation in the catalog for this test; returns the implementation."""

    def register(declaration, **implementation):
        monkeypatch.setitem(REPORT_KINDS, declaration.kind, declaration)
        kind = implement(declaration.kind, **implementation)
        monkeypatch.setitem(REPORTS, kind.name, kind)
        return kind

    return register

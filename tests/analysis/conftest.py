"""A report kind registered for one test: a toy kind, declared and implemented the way a real one
is (``studies.protocol.reports.REPORT_KINDS`` and ``stats.reports.catalog.REPORTS``), gone after it."""

import pytest

from stats.reports.catalog import REPORTS
from stats.reports.kinds import implement
from studies.protocol.reports import REPORT_KINDS


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

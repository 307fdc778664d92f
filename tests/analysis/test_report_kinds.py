"""The report-kind registry: every kind the engine declares has exactly one implementation in
``stats.reports.catalog``, a fragment that exists and the plot tag it says it draws; and a kind
registered from outside (a toy kind) runs end to end, to the page, without touching ``analysis``."""

import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings as django_settings
from django.template.loader import get_template, render_to_string
from django.urls import reverse

from analysis.models import AnalysisRun
from analysis.reports import SELECTION, SELECTION_TEMPLATE, report_template
from analysis.services import analysis_run
from analysis.templatetags.analysis_plots import register as plot_tags
from stats.reports.catalog import REPORTS, catalog
from stats.reports.kinds import AS_STORED, NUMBER, Reader, ReportKindImpl, implement
from studies.protocol.reports import REPORT_KINDS, Option, ReportKind, ReportSpec, Role
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study

TEMPLATES = Path(django_settings.BASE_DIR) / "templates"
INCLUDE = re.compile(r"""{%\s*include\s+["']([^"']+)["']""")
TAG = re.compile(r"{%\s*(\w+)")


def source_of(name: str) -> str:
    """A fragment's source with the fragments it includes, recursively."""
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    return text + "".join(source_of(included) for included in INCLUDE.findall(text))


def plot_tags_in(name: str) -> set[str]:
    return {tag for tag in TAG.findall(source_of(name)) if tag in plot_tags.tags}


# --- the registry is complete and consistent --------------------------------------------------


def test_every_declared_kind_has_exactly_one_implementation_and_the_reverse():
    assert sorted(REPORTS) == sorted(REPORT_KINDS)
    for name, kind in REPORTS.items():
        assert kind.name == name and kind.kind is REPORT_KINDS[name]


@pytest.mark.parametrize("name", sorted(REPORT_KINDS))
def test_each_kind_reads_each_role_and_names_a_fragment_that_exists(name):
    kind = REPORTS[name]
    assert sorted(kind.reads) == sorted(r.name for r in kind.kind.roles)
    assert all(reader.storage in ("number", "interned", "list") for reader in kind.reads.values())
    assert kind.template == f"analysis/_report_{name}.html" == report_template(name)
    get_template(kind.template)


@pytest.mark.parametrize("name", sorted(REPORT_KINDS))
def test_each_kind_draws_the_plot_tag_it_declares_and_no_other(name):
    kind = REPORTS[name]
    if kind.plot is not None:
        assert kind.plot in plot_tags.tags
    assert plot_tags_in(kind.template) == ({kind.plot} if kind.plot else set())


def test_every_report_fragment_belongs_to_a_kind_the_selection_or_a_fragment_they_include():
    shown = {kind.template for kind in REPORTS.values()} | {SELECTION_TEMPLATE}
    included = {name for top in shown for name in INCLUDE.findall(source_of(top))}
    on_disk = {f"analysis/{p.name}" for p in (TEMPLATES / "analysis").glob("_report_*.html")}
    assert on_disk == shown | included
    assert report_template(SELECTION) == SELECTION_TEMPLATE and report_template("retired") == ""


def test_a_kind_must_be_declared_and_read_each_of_its_roles():
    with pytest.raises(KeyError, match="declares no report kind 'nowhere'"):
        implement("nowhere", reads={}, compute=lambda report: None)
    with pytest.raises(ValueError, match="its roles are"):
        implement("human_scores", reads={"score": NUMBER}, compute=lambda report: None)
    with pytest.raises(ValueError, match="implemented twice"):
        catalog(REPORTS["human_scores"], REPORTS["human_scores"])


# --- a kind registered from outside runs end to end -------------------------------------------


@dataclass(frozen=True)
class Lengths:
    answers: int
    longer: int
    longer_than: int

    def as_dict(self):
        return {"answers": self.answers, "longer": self.longer, "longer_than": self.longer_than}


def lengths(report):
    values = report.column("answer")
    longer_than = report.spec.option("longer_than")
    return Lengths(len(values), int((values > longer_than).sum()), longer_than)


@pytest.fixture
def toy(report_kind, settings, tmp_path):
    """A toy kind: how many answers of a text field are longer than a number of characters, shown
    by its own fragment (in a template folder of the test's)."""
    declaration = ReportKind("answer_lengths", "Long answers", (Role("answer", ("text",)),),
                             (Option("longer_than", 0, 3),))
    length = Reader(lambda v: len(v) if isinstance(v, str) else None, "number")
    kind = report_kind(declaration, reads={"answer": length}, compute=lengths)
    fragment = tmp_path / "analysis" / "_report_answer_lengths.html"
    fragment.parent.mkdir()
    fragment.write_text("<p>Toy: {{ res.longer }} of {{ res.answers }} answers longer than {{ res.longer_than }}.</p>")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}]
    return kind


def test_a_toy_kind_runs_through_the_analysis_to_the_page(client, owner, toy):
    protocol = {"fields": [{"key": "note", "type": "text", "label": "Note"}],
                "reports": [{"kind": "answer_lengths", "answer": "note", "longer_than": 4}]}
    study = inline_study(owner, protocol)
    pool = f.make_pool(study, "IN", "India")
    (item,) = f.make_items(study, "IN", 1)
    for rater, note in zip(annotators(pool, 3), ["naan", "biryani", "masala dosa"], strict=True):
        annotate(rater, item, {"note": note})
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert run.result["reports"] == [{"kind": "answer_lengths", "title": "Long answers", "fields": {"answer": "note"},
                                      "result": {"answers": 3, "longer": 2, "longer_than": 4}}]
    client.force_login(owner)
    html = client.get(reverse("analysis:analysis", args=[study.pk])).content.decode()
    assert "<h3>Long answers</h3>" in html and "Toy: 2 of 3 answers longer than 4." in html


def test_a_result_of_a_kind_no_longer_implemented_shows_its_title_only():
    result = {"reports": [{"kind": "retired", "title": "An old report", "fields": {}, "result": {"rows": []}},
                          {"kind": "answer_agreement", "title": "Answers", "fields": {"answer": "answer"},
                           "error": "ValueError: bad"}]}
    html = render_to_string("analysis/_reports.html", {"run": SimpleNamespace(status="done"), "result": result})
    assert "An old report" in html and "This report could not be computed: ValueError: bad" in html


def test_a_kind_reads_each_key_its_roles_name_and_nothing_for_an_optional_role_left_out():
    roles = (Role("a", ("scale",), many=2), Role("b", ("text",), optional=True))
    kind = ReportKindImpl(ReportKind("pair", "Pair", roles), reads={"a": NUMBER, "b": AS_STORED},
                          compute=lambda report: None)
    assert kind.template == "analysis/_report_pair.html"
    assert kind.keys(ReportSpec("pair", "Pair", (("a", ("x", "y")),))) == ["x", "y"]
    assert kind.keys(ReportSpec("pair", "Pair", (("a", ("x", "y")), ("b", "z")))) == ["x", "y", "z"]

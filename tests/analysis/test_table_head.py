"""The one cut of a long table on the analysis page: ``stats.summary.HEAD`` rows, through the
``head`` filter and the ``head_rows`` tag of ``analysis_tables``, in every template."""

import re
from pathlib import Path

from django.template import Context, Template
from django.template.loader import render_to_string

from analysis.templatetags.analysis_tables import head
from stats.summary import HEAD

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "analysis"


def test_head_keeps_the_first_rows_the_page_shows():
    rows = [[n] for n in range(HEAD + 5)]
    assert head(rows) == rows[:HEAD]
    assert head(rows[:3]) == rows[:3]
    assert head(None) == [] and head(()) == []
    template = Template("{% load analysis_tables %}{% for r in rows|head %}{{ r.0 }},{% endfor %}")
    page = template.render(Context({"rows": rows}))
    assert page == "".join(f"{n}," for n in range(HEAD))


def test_the_note_under_a_cut_table_says_how_many_rows_are_shown():
    note = render_to_string("analysis/_report_more.html", {"total": HEAD + 5})
    assert f"Showing the first {HEAD} of {HEAD + 5} rows" in note


def test_it_says_nothing_under_a_table_shown_whole():
    assert render_to_string("analysis/_report_more.html", {"total": HEAD}).strip() == ""


def test_no_template_cuts_a_table_by_a_number_of_its_own():
    literal = re.compile(r"\|slice:\"?:?[1-9]|total\s*>\s*\d")  # a cut; slice:":0" is a type test
    found = [p.name for p in TEMPLATES.glob("*.html") if literal.search(p.read_text(encoding="utf-8"))]
    assert found == []

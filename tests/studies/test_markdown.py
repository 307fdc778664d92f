"""The researchers' Markdown renderer (``studies.markdown``), which serves the annotator's pages and
the live preview alike: lists written GitHub-style, right under a line of text, are lists."""

import json
from pathlib import Path

import pytest

from studies.markdown import render_markdown

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "culturalframes-rating" / "study.json"


def test_a_list_right_under_a_line_of_text_is_a_list():
    html = str(render_markdown("Read carefully:\n- one\n- two"))
    assert html == "<p>Read carefully:</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>"


@pytest.mark.parametrize("bullet", ["-", "*", "+"])
def test_every_bullet_starts_a_list_under_text(bullet):
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in str(render_markdown(f"Steps:\n{bullet} one\n{bullet} two"))


def test_a_numbered_list_from_one_right_under_text_is_a_list():
    html = str(render_markdown("Steps:\n1. look\n2. answer"))
    assert html == "<p>Steps:</p>\n<ol>\n<li>look</li>\n<li>answer</li>\n</ol>"


def test_a_number_other_than_one_under_text_stays_text():
    """As on GitHub: only a list starting at 1 may interrupt a paragraph."""
    assert str(render_markdown("It was made in\n2019. It shows a market.")) == (
        "<p>It was made in\n2019. It shows a market.</p>"
    )


def test_the_items_of_a_list_stay_one_tight_list():
    html = str(render_markdown("Intro:\n- one\n  still one\n- two\n    - nested\n- three"))
    assert html.count("<ul>") == 2 and "<p>" in html and "<li><p>" not in html
    assert "<li>one\n  still one</li>" in html and "<li>nested</li>" in html


def test_a_list_after_a_blank_line_renders_as_before():
    assert str(render_markdown("Steps:\n\n- one\n- two")) == str(render_markdown("Steps:\n- one\n- two"))


def test_indented_code_keeps_its_dashes():
    html = str(render_markdown("Write:\n\n    Note:\n    - not a list\n"))
    assert "<pre><code>Note:\n- not a list\n</code></pre>" in html and "<li>" not in html


def test_a_fence_keeps_its_lines_as_they_are():
    html = str(render_markdown("Example:\n```\nNote:\n- not a list\n```"))
    assert "<li>" not in html and "Note:\n- not a list" in html


def test_a_quote_then_a_list_is_a_quote_then_a_list():
    html = str(render_markdown("> Be careful\n- one"))
    assert "<blockquote>\n<p>Be careful</p>\n</blockquote>\n<ul>\n<li>one</li>\n</ul>" in html


def test_the_demo_instructions_show_their_lists():
    """The CulturalFrames demo writes "Below 1, tick what is wrong:" right above its two bullets."""
    instructions = "\n".join(json.loads(DEMO.read_text())["study"]["instructions_md"])
    html = str(render_markdown(instructions))
    assert "<p>Below 1, tick what is wrong:</p>\n<ul>\n<li><strong>Explicit elements</strong>" in html
    assert html.count("<ul>") == 2 and "\n- " not in html

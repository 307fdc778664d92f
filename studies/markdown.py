"""Researcher-written Markdown, rendered and then sanitised: no script, no style, no handlers."""

import re

import markdown as md
import nh3
from django.utils.html import linebreaks
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

ALLOWED_TAGS = {
    "p", "br", "hr", "strong", "em", "b", "i", "u", "code", "pre", "blockquote",
    "ul", "ol", "li", "h2", "h3", "h4", "a", "img", "table", "thead", "tbody", "tr", "th", "td",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title", "width", "height"}}


MARKDOWN_MAX_CHARS = 50_000
MARKDOWN_MAX_NESTING = 32  # brackets or parentheses open at once: Python-Markdown's links take
# time that grows steeply with them (4,000 nested "[" take 20 s on every annotator's page)


def markdown_problem(text: str) -> str | None:
    """Why ``text`` is not rendered as Markdown (too long, brackets nested too deep), or None."""
    if len(text) > MARKDOWN_MAX_CHARS:
        return f"Write at most {MARKDOWN_MAX_CHARS:,} characters (this has {len(text):,})."
    for opening, closing in ("[]", "()"):
        depth = 0
        for char in text:
            if char == opening:
                depth += 1
                if depth > MARKDOWN_MAX_NESTING:
                    return f"Brackets {opening}{closing} are nested more than {MARKDOWN_MAX_NESTING} deep."
            elif char == closing and depth:
                depth -= 1
    return None


BULLET = re.compile(r"^ {0,3}[-*+][ \t]+\S")
NUMBERED = re.compile(r"^ {0,3}(\d{1,9})\.[ \t]+\S")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _list_start(line: str) -> bool | None:
    """None for a line that is no list item; for one, whether it may interrupt a paragraph (as on
    GitHub: a bullet, or a number list starting at 1, so "2019. was a year" stays text)."""
    if BULLET.match(line):
        return True
    if m := NUMBERED.match(line):
        return int(m.group(1)) == 1
    return None


class ListAfterParagraph(Preprocessor):
    """A blank line before a list that directly follows a paragraph line ("Read carefully:\n- one"),
    which Python-Markdown would otherwise read as one paragraph, as GitHub does not. Lines inside
    a fence, indented code and the items of a list already begun are left as they are."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fence = ""  # the opening marker while inside a fenced block
        previous = "blank"  # the line before: blank, text, code (indented) or a blank after code
        in_list = False
        for line in lines:
            if fence:
                out.append(line)
                closing = line.strip()
                if closing.startswith(fence) and set(closing) == {fence[0]}:
                    fence = ""  # a list right after a fence starts on its own, as after text
                continue
            if not line.strip():
                out.append(line)
                previous = "blank" if previous != "code" else "code-blank"
                continue
            indented = len(line) - len(line.lstrip(" ")) >= 4
            if indented and not in_list and previous in ("blank", "code", "code-blank"):
                out.append(line)
                previous = "code"
                continue
            if m := FENCE.match(line):
                fence = m.group(1)
                out.append(line)
                previous = "text"
                continue
            start = _list_start(line)
            if start is not None and (start or in_list or previous != "text"):
                if previous == "text" and not in_list:
                    out.append("")
                in_list = True
            elif start is None and previous in ("blank", "code-blank") and not line.startswith(" "):
                in_list = False  # a block at the margin after a blank line ends the list
            out.append(line)
            previous = "text"
        return out


class GithubListsExtension(Extension):
    def extendMarkdown(self, md_instance):  # noqa: N802 - Python-Markdown's name
        # After the raw HTML blocks are set aside (priority 20), so their lines are never touched.
        md_instance.preprocessors.register(ListAfterParagraph(md_instance), "list_after_paragraph", 15)


def render_markdown(text: str) -> SafeString:
    """``text`` as sanitised HTML; a text ``markdown_problem`` refuses is shown as plain text."""
    if markdown_problem(text or ""):
        return mark_safe(linebreaks(text, autoescape=True))  # noqa: S308 - escaped by linebreaks
    html = md.markdown(text or "", extensions=["tables", "sane_lists", GithubListsExtension()])
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 just above

"""Researcher-written Markdown, rendered and then sanitised: no script, no style, no handlers."""

import markdown as md
import nh3
from django.utils.html import linebreaks
from django.utils.safestring import SafeString, mark_safe

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


def render_markdown(text: str) -> SafeString:
    """``text`` as sanitised HTML; a text ``markdown_problem`` refuses is shown as plain text."""
    if markdown_problem(text or ""):
        return mark_safe(linebreaks(text, autoescape=True))  # noqa: S308 - escaped by linebreaks
    html = md.markdown(text or "", extensions=["tables", "sane_lists"])
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 just above

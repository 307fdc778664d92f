"""Text a database can store: no NUL character (PostgreSQL refuses it in text and JSON) and no lone
UTF-16 surrogate (it cannot be encoded as UTF-8). One check for every text a researcher or an
annotator sends: an answer, a draft, a JSON body, an import row. And text a spreadsheet will not
run: one neutraliser (``safe_cell``) for every CSV cell the platform writes (pure)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

NUL_MESSAGE = "Remove the invisible NUL character (\\0): it cannot be stored."
SURROGATE_MESSAGE = "Remove the broken character (a lone UTF-16 surrogate): it cannot be stored."
_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None when it can."""
    found = _UNSAFE.search(text)
    if found is None:
        return None
    return NUL_MESSAGE if found.group() == "\x00" else SURROGATE_MESSAGE


def value_problem(value: Any) -> str | None:
    """The first unstorable text in ``value`` (its keys and strings, nested lists and objects
    included), or None. Nesting is the caller's to bound (``jsonbounds``)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                return problem
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return None


# --- CSV cells: formula injection ---------------------------------------------------------------

FORMULA_STARTS = frozenset("=+-@\t\r")
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _formula_start(first: str) -> bool:
    """Does a cell starting with ``first`` start like a formula? Compatibility forms count too: a
    spreadsheet reads the full-width ``＝ ＋ － ＠`` (and the small ``﹦ ﹢ ﹣``) as ``= + - @``."""
    return first in FORMULA_STARTS or (first > "\x7f" and unicodedata.normalize("NFKC", first)[:1] in FORMULA_STARTS)


def safe_cell(text: str) -> str:
    """A cell a spreadsheet will not run: one that starts like a formula (``=``, ``+``, ``-``,
    ``@``, a tab or a carriage return, or a compatibility form of one) gets a leading apostrophe
    (OWASP's advice), unless it is a plain number (a -3 score stays a number for pandas and for the
    spreadsheet)."""
    if _formula_start(text[:1]) and not NUMBER.fullmatch(text):
        return "'" + text
    return text


def safe_cells(cells: Sequence[str]) -> list[str]:
    """``safe_cell`` of each cell (the common case, an ASCII start that is no formula, without a
    call per cell): a row's cells, or a column's."""
    starts = FORMULA_STARTS
    return [safe_cell(c) if c[:1] in starts or c[:1] > "\x7f" else c for c in cells]

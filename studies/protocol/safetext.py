"""Text a database can store: no NUL character (PostgreSQL refuses it in text and JSON) and no lone
UTF-16 surrogate (it cannot be encoded as UTF-8). One check for every text a researcher or an
annotator sends: an answer, a draft, a JSON body, an import row (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping
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

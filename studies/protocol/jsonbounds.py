"""JSON from a request or a file, read within bounds: its size, its depth of nesting, finite
numbers only (no NaN, Infinity or 1e309) and texts a database can store (``safetext``). Every
``json.loads`` of what a page or an import receives goes through ``json_bounded``, so hostile JSON is
refused with a message instead of a RecursionError (pure)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .safetext import value_problem

MAX_DEPTH = 32
MAX_CHARS = 1_000_000
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JsonRefused(ValueError):
    """JSON that is not read; the message says why, ``reason`` without the place, and a syntax
    error's ``line`` and ``column`` (else None)."""

    def __init__(self, reason: str, line: int | None = None, column: int | None = None):
        where = f", line {line}, column {column}" if line is not None else ""
        super().__init__(f"not valid JSON ({reason}{where})" if line is not None else reason)
        self.reason, self.line, self.column = reason, line, column


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, strings skipped (no parse, no recursion)."""
    depth = deepest = 0
    for token in _TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def json_bounded(text: str | bytes, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_CHARS) -> Any:
    """``text`` read as JSON, or JsonRefused: longer than ``max_chars``, nested deeper than
    ``max_depth``, not JSON, a number that is not finite, or a text that cannot be stored."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise JsonRefused("not UTF-8 text") from None
    if len(text) > max_chars:
        raise JsonRefused(f"JSON longer than {max_chars:,} characters")
    if json_depth(text) > max_depth:
        raise JsonRefused(f"JSON nested deeper than {max_depth} levels")
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise JsonRefused(exc.msg, exc.lineno, exc.colno) from None
    except JsonRefused:
        raise
    except RecursionError:  # the depth scan makes this unreachable; kept as the last line of defence
        raise JsonRefused(f"JSON nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise JsonRefused(f"not readable JSON ({exc})"[:200]) from None
    problem = value_problem(value)
    if problem:
        raise JsonRefused(problem)
    return value


def _no_constant(name: str) -> float:
    raise JsonRefused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise JsonRefused(f"the number {text[:20]} is too large")
    return number

"""Conditions: small JSON objects, never code, evaluated identically here and in
``static/annotation/conditions.js``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COMPARATORS = ("eq", "ne", "lt", "le", "gt", "ge", "in", "contains")
SCRIPT = "annotation/conditions.js"  # the item page's evaluator, loaded where a field has a condition


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compare(op: str, actual: Any, expected: Any) -> bool:
    if actual is None:
        return False
    if op == "contains":
        return isinstance(actual, list) and expected in actual
    if op == "in":
        return isinstance(expected, list) and actual in expected
    if op == "eq":
        return actual == expected
    if op == "ne":
        return actual != expected
    if not _number(actual) or not _number(expected):
        return False
    return {"lt": actual < expected, "le": actual <= expected, "gt": actual > expected, "ge": actual >= expected}[op]


def evaluate(condition: Mapping | None, values: Mapping[str, Any]) -> bool:
    """True when ``condition`` holds for ``values``; a missing field never satisfies a comparison."""
    if condition is None:
        return True
    if "all" in condition:
        return all(evaluate(c, values) for c in condition["all"])
    if "any" in condition:
        return any(evaluate(c, values) for c in condition["any"])
    op = next(k for k in COMPARATORS if k in condition)
    return _compare(op, values.get(condition["field"]), condition[op])


def condition_errors(where: str, condition: Any, earlier: set[str]) -> list[str]:
    """Problems of a condition in a spec; it may only refer to fields that come before it."""
    if not isinstance(condition, dict):
        return [f"{where}: a condition must be an object"]
    if "all" in condition or "any" in condition:
        if len(condition) != 1:
            return [f"{where}: 'all'/'any' stands alone in its object"]
        parts = condition.get("all", condition.get("any"))
        if not isinstance(parts, list) or not parts:
            return [f"{where}: 'all'/'any' needs a non-empty list"]
        return [e for part in parts for e in condition_errors(where, part, earlier)]
    ops = [k for k in COMPARATORS if k in condition]
    if len(ops) != 1 or set(condition) != {"field", ops[0]}:
        return [f"{where}: a condition is {{'field': KEY, OP: VALUE}} with OP one of {', '.join(COMPARATORS)}"]
    if condition["field"] not in earlier:
        return [f"{where}: refers to '{condition['field']}', which is not an earlier field"]
    if ops[0] in ("lt", "le", "gt", "ge") and not _number(condition[ops[0]]):
        return [f"{where}: '{ops[0]}' compares with a number"]
    if ops[0] == "in" and not isinstance(condition["in"], list):
        return [f"{where}: 'in' needs a list"]
    return []

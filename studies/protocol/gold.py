"""Gold answers: an annotator's answer compared with the known one, field by field. Pure: no Django.

Each field type says whether its field can have a gold answer (``FieldType.gold_problem``), which
tolerance it takes (``gold_tolerance_problem``) and how two answers compare (``gold_matches``);
this module holds the entry points and the arithmetic the types share (set overlap, box IoU, a
one-to-one matching, text normalised for comparison).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .spec import Field, Protocol

EPSILON = 1e-9  # a tolerance met exactly stays met, whatever the floating point does


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == ""


def gold_match(f: Field, given: Any, expected: Any, tolerance: Any = None) -> bool:
    """Does ``given`` (an annotator's stored answer to ``f``) match the gold answer ``expected``
    within ``tolerance`` (None: the type's default)? No answer matches no answer (a field the gold
    leaves hidden or blank) and nothing else; two answers are compared by the field's type."""
    if _empty(expected) or _empty(given):
        return _empty(expected) and _empty(given)
    return f.kind.gold_matches(f, given, expected, tolerance)


@dataclass(frozen=True)
class GoldCheck:
    """One gold item's answer checked: the fields compared and those that matched, by key."""

    compared: tuple[str, ...]
    matched: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """Every compared field matched (a gold item that compares nothing passes)."""
        return len(self.matched) == len(self.compared)


def gold_check(
    protocol: Protocol, given: Mapping[str, Any], expected: Mapping[str, Any],
    tolerances: Mapping[str, Any] | None = None,
) -> GoldCheck:
    """An item's answers (by field key) against its gold answers: every top-level field the gold
    names that can have gold (``FieldType.gold_problem``), each within its tolerance by key (the
    protocol's ``quality.gold.tolerance`` when ``tolerances`` is None). A field the gold does not
    name is not compared."""
    if tolerances is None:
        tolerances = dict(protocol.quality.gold.tolerance)
    compared = tuple(f.key for f in protocol.fields if f.key in expected and f.kind.gold_problem(f) is None)
    matched = tuple(
        key for key in compared
        if gold_match(protocol.field(key), given.get(key), expected[key], tolerances.get(key))
    )
    return GoldCheck(compared=compared, matched=matched)


def check_passed(protocol: Protocol, given: Mapping[str, Any], instructed: Mapping[str, Any]) -> bool:
    """An attention check passed: an instructed-response item's answers match the answers its
    question instructs (``instructed``, by field key), each field by its type's default (no
    tolerance of the study's gold applies)."""
    return gold_check(protocol, given, instructed, {}).passed


def gold_answer_problems(protocol: Protocol, expected: Any) -> list[str]:
    """Why ``expected`` cannot be an item's gold (or instructed) answers under ``protocol``: each
    problem naming its field; none when it names at least one field, each of which can have gold."""
    if not isinstance(expected, Mapping):
        return ["a gold answer is an object of answers by field key"]
    keys = {f.key: f for f in protocol.fields}
    problems = [f"field '{key}': no such field in this protocol" for key in expected if key not in keys]
    problems += [
        f"field '{key}': {problem}" for key in expected if key in keys
        if (problem := keys[key].kind.gold_problem(keys[key]))
    ]
    if not expected:
        problems.append("a gold answer names at least one field")
    return problems


def gold_accuracy(checks: Sequence[GoldCheck]) -> float | None:
    """The share of gold items passed; None when there is none."""
    return sum(c.passed for c in checks) / len(checks) if checks else None


# --- the arithmetic the types share -----------------------------------------------------------


def share(value: Any) -> bool:
    """Is ``value`` a number in (0, 1] (a threshold on an overlap)?"""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1


def at_least(value: float, threshold: float) -> bool:
    """``value`` ≥ ``threshold``, an exact tie included."""
    return value >= threshold - EPSILON


def jaccard(a: set, b: set) -> float:
    """Size of the intersection over size of the union (1 for two empty sets)."""
    return len(a & b) / len(a | b) if a | b else 1.0


def f1(given: set, expected: set) -> float:
    """The F1 of ``given`` against ``expected``: 2·|both| / (|given| + |expected|) (1 for two empty sets)."""
    total = len(given) + len(expected)
    return 2 * len(given & expected) / total if total else 1.0


def normalised_text(text: Any) -> str:
    """A text as gold compares it: Unicode NFKC, case folded, runs of whitespace as one space, stripped."""
    return " ".join(unicodedata.normalize("NFKC", str(text)).casefold().split())


Box = tuple[float, float, float, float]


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (x, y, w, h), in [0, 1]: 0 for boxes that only touch
    and for two boxes of no area."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    inter = max(0.0, min(ax + aw, bx + bw) - max(ax, bx)) * max(0.0, min(ay + ah, by + bh) - max(ay, by))
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def one_to_one(given: Sequence[Any], expected: Sequence[Any], fits: Callable[[Any, Any], bool]) -> bool:
    """Can every given thing be paired with a different expected thing it ``fits``, none left over
    on either side? (A perfect bipartite matching, by augmenting paths: the lists are short.)"""
    if len(given) != len(expected):
        return False
    edges = [[j for j, e in enumerate(expected) if fits(g, e)] for g in given]
    owner: dict[int, int] = {}  # expected index → the given index it is paired with

    def place(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(given)))


def share_problem(tolerance: Any, what: str) -> str | None:
    """Why ``tolerance`` is no share in (0, 1] (``what`` names the measure), or None."""
    return None if share(tolerance) else f"its gold tolerance is {what}: a number in (0, 1]"

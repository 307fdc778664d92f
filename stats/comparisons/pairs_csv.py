"""Paired comparisons collected elsewhere: a CSV of ``left,right,winner`` and an optional ``group``.

Used by ``python manage.py analyse --pairs FILE``. Every problem names its line; the file is read
whole or refused whole. Pure: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..longform import LongFormError, csv_rows
from .bradley_terry import OUTCOMES

COLUMNS = ("left", "right", "winner")
GROUP = "group"
WHOLE = "all"  # the one group of a file without a group column


class PairsFormError(LongFormError):
    """A pairs file refused: ``errors`` names every problem with its line, as ``--csv``'s do."""


@dataclass(frozen=True)
class PairRow:
    line: int
    group: str
    left: str
    right: str
    winner: str  # "left", "right" or "tie"


def read_pairs_csv(path: Path) -> list[PairRow]:
    """The comparisons of ``path`` (UTF-8, a BOM allowed; header names stripped), or a PairsFormError
    naming every bad line: an empty left or right, left equal to right, a winner other than left,
    right or tie, an empty group in a file with a group column."""
    errors: list[str] = []
    rows: list[PairRow] = []
    need = "left,right,winner; group optional"
    for line, cells in csv_rows(path, COLUMNS, need=need, optional=(GROUP,), error=PairsFormError):
        left, right, winner = (cells[c] for c in COLUMNS)
        group = cells.get(GROUP, WHOLE)
        problem = _problem(left, right, winner, group)
        if problem:
            errors.append(f"line {line}: {problem}")
            continue
        rows.append(PairRow(line, group, left, right, winner))
    if errors:
        raise PairsFormError(errors)
    if not rows:
        raise PairsFormError([f"{path.name}: no comparisons"])
    return rows


def _problem(left: str, right: str, winner: str, group: str) -> str | None:
    if not left or not right:
        return "'left' and 'right' must not be empty"
    if left == right:
        return f"left and right are the same thing {left!r}"
    if winner not in OUTCOMES:
        return f"winner {winner!r} must be left, right or tie"
    if not group:
        return "'group' must not be empty (the file has a group column)"
    return None


def by_group(rows: list[PairRow]) -> dict[str, list[tuple[str, str, str]]]:
    """Each group's (left, right, winner) rows, groups in order of first appearance."""
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append((row.left, row.right, row.winner))
    return groups

"""Paired comparisons collected elsewhere: a CSV of ``left,right,winner`` and an optional ``group``.

Used by ``python manage.py analyse --pairs FILE``. Every problem names its line; the file is read
whole or refused whole. Pure: no Django.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..longform import LongFormError
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
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in reader.fieldnames or []]
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise PairsFormError(
                    [f"line 1: missing column(s) {', '.join(missing)} (need left,right,winner; group optional)"]
                )
            reader.fieldnames = header
            grouped = GROUP in header
            for row in reader:
                line = reader.line_num
                left, right, winner = (str(row.get(c) or "").strip() for c in COLUMNS)
                group = str(row.get(GROUP) or "").strip() if grouped else WHOLE
                problem = _problem(left, right, winner, group)
                if problem:
                    errors.append(f"line {line}: {problem}")
                    continue
                rows.append(PairRow(line, group, left, right, winner))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise PairsFormError([f"{path.name}: cannot be read as a UTF-8 CSV file ({exc})"]) from None
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

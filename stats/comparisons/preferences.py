"""Preferences between an item's images, as a reward model trains on them (prompt, chosen,
rejected): each answer read as the pairs of images it orders, tallied per (group, item, pair), and
each pair's majority kept. Pure: plain data in and out.

What an answer says of a pair (``answer_pairs``):

- a pairwise answer (left, right, winner): its one pair; a tie (or both failing) is a tie;
- a best–worst answer (shown, best, worst): the pairs it implies, as the best–worst fit reads it
  (the best beats every other image shown; every other beats the worst); the pairs it leaves open
  (two images neither best nor worst) are not counted, neither way nor as a tie;
- a ranking (shown, ranking best → worst): every pair, the higher-ranked image winning.

A pair's preference is the image more answers chose; a pair whose votes are level (ties aside) is
no preference and is counted as ``undecided``. ``margin`` is (chosen − rejected) / answers, ties
among the answers: 1 when every answer chose it, near 0 for a split vote.

``set_rankings`` ranks the images themselves where that means something: within each set of
images the answers link (an item's images, with every item sharing one of them), per group.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from .best_worst import best_worst_pairs, ranking_pairs
from .bradley_terry import bradley_terry

DESIGNS = ("pairs", "best_worst", "rankings")


@dataclass(frozen=True)
class Preference:
    """The majority's preference between two images of one item, within one group (a country)."""

    group: Hashable
    item: Hashable
    chosen: Hashable
    rejected: Hashable
    chosen_votes: int
    rejected_votes: int
    ties: int

    @property
    def answers(self) -> int:
        return self.chosen_votes + self.rejected_votes + self.ties

    @property
    def margin(self) -> float:
        return (self.chosen_votes - self.rejected_votes) / self.answers


@dataclass(frozen=True)
class Preferences:
    """The preferences found, in (group, item, chosen, rejected) order, and how many (group, item,
    pair) tallies had level votes (``undecided``)."""

    rows: tuple[Preference, ...]
    undecided: int


def answer_pairs(design: str, row: Any) -> list[tuple[Hashable, Hashable, str]]:
    """The pairs one answer orders, as (a, b, outcome): ``"a"`` when a beat b, ``"tie"``; ``row`` is
    the answer as its design's fit reads it (``design``: one of ``DESIGNS``)."""
    if design == "pairs":
        left, right, winner = row
        if winner == "tie":
            return [(left, right, "tie")]
        return [(left, right, "a")] if winner == "left" else [(right, left, "a")]
    if design == "best_worst":
        shown, best, worst = row
        return [(a, b, "a") for a, b, _ in best_worst_pairs(tuple(shown), (best, worst))]
    if design == "rankings":
        shown, ranking = row
        return [(a, b, "a") for a, b, _ in ranking_pairs(tuple(shown), tuple(ranking))]
    raise ValueError(f"unknown design {design!r}: one of {', '.join(DESIGNS)}")


def majority_preferences(answers: Iterable[tuple[Hashable, Hashable, str, Any]]) -> Preferences:
    """The majority preference of every (group, item, pair of images) the ``answers`` order: each
    answer as (group, item, design, row), the row as ``answer_pairs`` reads it."""
    tally: dict[tuple[Hashable, Hashable, Hashable, Hashable], list[int]] = defaultdict(lambda: [0, 0, 0])
    for group, item, design, row in answers:
        for a, b, outcome in answer_pairs(design, row):
            low, high = sorted((a, b), key=str)
            counts = tally[(group, item, low, high)]
            if outcome == "tie":
                counts[2] += 1
            else:
                counts[0 if a == low else 1] += 1
    found, undecided = [], 0
    for (group, item, low, high), (low_wins, high_wins, ties) in tally.items():
        if low_wins == high_wins:
            undecided += 1
            continue
        chosen, rejected = (low, high) if low_wins > high_wins else (high, low)
        found.append(Preference(group, item, chosen, rejected, max(low_wins, high_wins),
                                min(low_wins, high_wins), ties))
    found.sort(key=lambda p: (str(p.group), str(p.item), str(p.chosen), str(p.rejected)))
    return Preferences(tuple(found), undecided)


@dataclass(frozen=True)
class SetScore:
    """One image's Bradley–Terry score within its set, in one group: ``set`` numbers the sets of a
    group (1, 2, … in the order of their first item), ``items`` the items whose answers compared
    the set's images."""

    group: Hashable
    set: int
    items: tuple[Hashable, ...]
    thing: Hashable
    score: float
    rank: int
    wins: int
    losses: int
    ties: int


def set_rankings(answers: Iterable[tuple[Hashable, Hashable, str, Any]]) -> tuple[SetScore, ...]:
    """The images ranked where ranking them means something: within each set of images that
    answers link by comparisons (an item's images, and every item sharing one of them: a prompt's
    images paired up by ``manage.py image_pairs``) of three images or more (two are one pair: its
    preference says it all), per group, by a Bradley–Terry fit of the pairs
    ``answer_pairs`` reads (ties half a win each way; no interval: a set is a handful of images
    compared a few times each). Answers as ``majority_preferences`` reads them, naming images by an
    identity shared across items (their file's hash)."""
    pairs: dict[Hashable, list[tuple[Hashable, Hashable, Hashable, str]]] = defaultdict(list)
    for group, item, design, row in answers:
        pairs[group] += [(item, a, b, outcome) for a, b, outcome in answer_pairs(design, row)]
    out: list[SetScore] = []
    for group in sorted(pairs, key=str):
        sets = [(items, rows) for items, rows in _sets(pairs[group]) if len({x for r in rows for x in r[:2]}) >= 3]
        for number, (items, rows) in enumerate(sets, start=1):
            fit = bradley_terry([(a, b, "tie" if outcome == "tie" else "left") for a, b, outcome in rows],
                                n_resamples=0)
            out += [SetScore(group, number, items, t.thing, t.score, t.rank, t.wins, t.losses, t.ties)
                    for t in fit.things]
    return tuple(out)


def _sets(pairs: list[tuple[Hashable, Hashable, Hashable, str]]
          ) -> list[tuple[tuple[Hashable, ...], list[tuple[Hashable, Hashable, str]]]]:
    """The connected sets of images of ``pairs`` (item, a, b, outcome): each set's items (sorted)
    and its pairs, in the order of their first item."""
    parent: dict[Hashable, Hashable] = {}

    def root(x: Hashable) -> Hashable:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for _, a, b, _ in pairs:
        parent[root(a)] = root(b)
    items: dict[Hashable, set[Hashable]] = defaultdict(set)
    rows: dict[Hashable, list[tuple[Hashable, Hashable, str]]] = defaultdict(list)
    for item, a, b, outcome in pairs:
        items[root(a)].add(item)
        rows[root(a)].append((a, b, outcome))
    found = [(tuple(sorted(items[r], key=str)), rows[r]) for r in items]
    return sorted(found, key=lambda s: [str(i) for i in s[0]])

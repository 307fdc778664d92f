"""Where a session's attention checks and gold items go among its ordinary items. Pure: no Django.

A session of ``items`` ordinary items has ``items + 1`` gaps: gap ``g`` is the place after its
``g``-th ordinary item (0: before the first). Checks and gold items go into distinct gaps, so no
two of them are next to each other unless there are more of them than gaps; the gaps are drawn
uniformly (each gap equally likely), and each inserted item is drawn without replacement from the
ones available, so none comes twice in a session. Everything is drawn from one random generator
seeded by the session (``schedule_rng``): the same session always gets the same schedule, so a
reload shows the same item at the same place.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .quality import Attention, Quality, gold_count

ATTENTION, GOLD = "attention", "gold"


@dataclass(frozen=True)
class Inserted:
    """One item put into a session: its place in the whole sequence (ordinary and inserted items,
    from 0), what it is (``ATTENTION`` or ``GOLD``) and its id."""

    position: int
    kind: str
    item: Hashable


@dataclass(frozen=True)
class Schedule:
    """A session's insertions in position order; ``short``: those wanted that no available item
    was left for (fewer check or gold items than a session needs)."""

    items: int
    inserted: tuple[Inserted, ...] = ()
    short: int = 0

    @property
    def length(self) -> int:
        """Every item of the session, ordinary and inserted."""
        return self.items + len(self.inserted)

    def at(self, position: int) -> Inserted | None:
        """What is inserted at ``position`` of the session; None for an ordinary item's place."""
        return next((i for i in self.inserted if i.position == position), None)

    def ordinary_before(self, position: int) -> int:
        """How many ordinary items come before ``position``: the index of the ordinary item there."""
        return position - sum(1 for i in self.inserted if i.position < position)


def schedule_rng(seed: int | str, purpose: str = "quality") -> random.Random:
    """A random generator that is the same for the same ``seed`` (a session's id) and ``purpose``,
    on every machine and run (Python's ``hash`` of a text is not)."""
    digest = hashlib.sha256(f"{purpose}:{seed}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def spread_gaps(items: int, wanted: int, rng: random.Random, *, taken: Sequence[int] = ()) -> list[int]:
    """``wanted`` gaps of a session of ``items`` ordinary items, uniformly drawn, sorted: distinct
    and not among ``taken`` while there are free gaps enough; past that, the rest are drawn again
    over all gaps (an insertion must then share a gap)."""
    if wanted <= 0 or items < 0:
        return []
    busy = set(taken)
    free = [g for g in range(items + 1) if g not in busy]
    if wanted <= len(free):
        return sorted(rng.sample(free, wanted))
    gaps = list(free)
    while len(gaps) < wanted:
        gaps.extend(rng.sample(range(items + 1), min(items + 1, wanted - len(gaps))))
    return sorted(gaps)


def attention_gaps(items: int, attention: Attention, rng: random.Random) -> list[int]:
    """The gaps of a session's attention checks: ``count`` uniformly drawn ones (placement
    "random"), or one after every ``every`` ordinary items (placement "every"); none when off."""
    if not attention.on or items <= 0:
        return []
    if attention.placement == "every":
        return list(range(attention.every, items + 1, attention.every))
    return spread_gaps(items, attention.count, rng)


def _draw(pool: Sequence[Hashable], wanted: int, rng: random.Random) -> list[Hashable]:
    """Up to ``wanted`` distinct ids of ``pool`` (its order does not matter), in drawn order."""
    distinct = sorted(set(pool), key=lambda i: (type(i).__name__, str(i)))
    return rng.sample(distinct, min(wanted, len(distinct)))


def session_schedule(
    *, items: int, quality: Quality, rng: random.Random,
    checks: Sequence[Hashable] = (), golds: Sequence[Hashable] = (),
) -> Schedule:
    """The schedule of a session of ``items`` ordinary items under ``quality``: its attention
    checks (drawn from ``checks``, the study's check items) where ``quality.attention`` puts them,
    and ``gold_count(quality.gold.rate, items)`` gold items (drawn from ``golds``, those the
    annotator has not answered) in uniformly drawn gaps no check holds. With too few check items,
    the first gaps of a placement "every" are kept (those of "random" are all equally likely); with
    too few gold items, fewer gold items come. ``rng``: ``schedule_rng(session id)``."""
    wanted_checks = attention_gaps(items, quality.attention, rng)
    check_ids = _draw(checks, len(wanted_checks), rng)
    check_gaps = (wanted_checks if quality.attention.placement == "every"
                  else sorted(rng.sample(wanted_checks, len(check_ids))))[:len(check_ids)]
    wanted_golds = gold_count(quality.gold.rate, items) if items > 0 else 0
    gold_ids = _draw(golds, wanted_golds, rng)
    gold_gaps = spread_gaps(items, len(gold_ids), rng, taken=check_gaps)
    placed = [(g, rng.random(), ATTENTION, i) for g, i in zip(check_gaps, check_ids)]
    placed += [(g, rng.random(), GOLD, i) for g, i in zip(gold_gaps, gold_ids)]
    placed.sort(key=lambda p: (p[0], p[1]))
    inserted = tuple(Inserted(position=gap + n, kind=kind, item=item) for n, (gap, _, kind, item) in enumerate(placed))
    short = len(wanted_checks) - len(check_ids) + wanted_golds - len(gold_ids)
    return Schedule(items=items, inserted=inserted, short=short)

"""Quota arithmetic: plain functions, no ORM."""

import re

PROLIFIC_PARAM_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def max_items_per_annotator(*, slots: int, min_distinct: int, session_size: int) -> int | None:
    """How many items one annotator may take so that at least ``min_distinct`` people take part.

    ``slots`` is the pool's total annotations wanted. None means no cap. An annotator may always
    finish at least one session.
    """
    if min_distinct <= 0:
        return None
    return max(session_size, slots // min_distinct)


def session_total(*, target: int, submitted: int, open_items: int | None, room: int | None) -> int:
    """How many items the session really holds, as the page counts them ("3 of ``total``"): its
    ``target``, or fewer when, besides the ``submitted`` ones, only ``open_items`` are open to the
    annotator (the one just leased among them) or their cap leaves ``room`` for that many more.
    None: not known to be fewer (more open items than a lease reads, no cap)."""
    limits = [n for n in (open_items, room) if n is not None]
    return max(submitted + 1, min(target, submitted + min(limits))) if limits else target

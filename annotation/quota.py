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

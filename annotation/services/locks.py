"""The row locks of an annotator's course, and the one order they are taken in. Every service that
changes an annotator's course locks, within one short transaction, in this order (a lock taken out
of order waits on a transaction that waits on it: a deadlock, seen with a crowd on PostgreSQL):

1. the annotator's row (``annotator_lock``): exclusion, inclusion and a session's withdrawal, so
   that counting an annotation again waits for an exclusion at the same moment;
2. the session's row (``session_lock``): every decision of the session's course (the next item,
   a check item's answer, the skip cap), so a double click's two requests decide one after the other;
3. the assignment's row (``assignment_lock``): every change of an assignment and its quota;
4. the quota's row, last, by a conditional UPDATE (``ItemQuota`` ``F()`` updates), never locked ahead.

No lock is held across the annotator's think-time, and the lease sweep (which locks other
annotators' assignments, then their quotas) never runs under a session's lock.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection

from ..compiled import run_prepared
from ..models import Annotator, Assignment, Session


def annotator_lock(annotator_id: int) -> datetime | None:
    """Lock the annotator's row until the transaction ends; their ``excluded_at`` as stored (None
    when not excluded, or gone)."""
    return Annotator.objects.select_for_update().filter(pk=annotator_id).values_list("excluded_at", flat=True).first()


def session_lock(session_id: int) -> datetime | None:
    """Lock the session's row until the transaction ends (after the annotator's, before any
    assignment's); its ``completed_at`` as stored (None while it runs, or when it is gone)."""
    rows = run_prepared("default", "tessera_session_lock",
                        _SESSION_LOCK.format(table=Session._meta.db_table, lock=_for_update()), [session_id])
    return rows[0][0] if rows else None


# What ``select_for_update().filter(pk=…)`` sends, as prepared statements of the hot path
# (``compiled.run_prepared``); SQLite has no row lock (its transactions take the database's).
_SESSION_LOCK = "SELECT completed_at FROM {table} WHERE id = %s{lock}"
_ASSIGNMENT_LOCK = "SELECT status FROM {table} WHERE id = %s{lock}"


def _for_update() -> str:
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def assignment_lock(assignment: Assignment) -> str | None:
    """Lock the assignment's row until the transaction ends and return its status as stored (None
    when it is gone). Every change of an assignment and its quota locks the assignment first, then
    the quota, so two of them never wait on each other (a deadlock)."""
    rows = run_prepared("default", "tessera_assignment_lock",
                        _ASSIGNMENT_LOCK.format(table=Assignment._meta.db_table, lock=_for_update()), [assignment.pk])
    return rows[0][0] if rows else None

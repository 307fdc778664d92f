"""The hot path's writes in one round trip each, on PostgreSQL.

A submit claims its assignment, settles its quota and stores its annotation; a lease takes a slot
of a quota and stores the assignment. Through the ORM these are three writes and two, each
statement a round trip and the Python that builds it. Here the writes of each are one statement
whose data-modifying CTEs run as one, in the caller's transaction, after its row lock (the
assignment's for a submit, the session's for a lease); the slot taken is re-checked under the
quota row's lock as the ORM's conditional UPDATEs are (READ COMMITTED re-evaluates a waiting
UPDATE's conditions on the row's latest version). The lock order is the one ``locks`` states: the
assignment's row, then the quota's. Each is a prepared statement of the
connection (``compiled.run_prepared``): its plan is made once.

Other databases (SQLite: one writer at a time, no round trip to save) take the ORM path
(``services.submit`` and ``services.leases``); the tests run both and compare the rows.
"""

from __future__ import annotations

import json
from datetime import datetime

from django.db import connection

from studies.models import ItemQuota

from ..compiled import run_prepared
from ..models import Annotation, Assignment

LEASED, SUBMITTED, EXPIRED = Assignment.Status.LEASED, Assignment.Status.SUBMITTED, Assignment.Status.EXPIRED


def one_round_trip() -> bool:
    """Whether this database runs the hot path's writes as single statements."""
    return connection.vendor == "postgresql"


def _tables() -> dict[str, str]:
    return {"assignment": Assignment._meta.db_table, "quota": ItemQuota._meta.db_table,
            "annotation": Annotation._meta.db_table}


# With the assignment's row locked (``locks.assignment_lock``, its status as stored: ``was``), the
# assignment claimed, the quota settled (a live lease's slot becomes a done one; a lapsed lease's
# answer takes a free slot if there is one) and the annotation stored, as surplus when a lapsed
# lease's answer found no room; its time stored is the database's clock, as the ORM's
# ``auto_now_add`` stores the server's. The lock is a statement of its own, before this one: a lock
# taken inside this statement's CTEs would leave the quota's row read in a snapshot older than
# the lock (a renew that committed meanwhile was missed: seen as a quota leased -1 under threads).
_CLAIM = """
WITH claimed AS (
    UPDATE {assignment} SET status = '{submitted}' WHERE id = %s AND status = %s
    RETURNING id, item_id, pool_id
), counted AS (
    UPDATE {quota} AS q
    SET leased = q.leased - CASE WHEN %s = '{leased}' THEN 1 ELSE 0 END, done = q.done + 1
    FROM claimed AS c
    WHERE q.item_id = c.item_id AND q.pool_id = c.pool_id AND (%s = '{leased}' OR q.leased < q.wanted - q.done)
    RETURNING q.id
)
INSERT INTO {annotation} (assignment_id, study_id, item_id, pool_id, annotator_id, answers, skipped,
                          protocol_version, surplus, withdrawn, time_spent_ms, started_at, submitted_at, effort)
SELECT c.id, %s::bigint, c.item_id, c.pool_id, %s::bigint, %s::jsonb, %s::boolean, %s::integer,
       %s <> '{leased}' AND NOT EXISTS (SELECT 1 FROM counted), false, %s::integer, %s::timestamptz, now(),
       %s::jsonb
FROM claimed AS c
RETURNING id, surplus, submitted_at
"""


def claim_and_store(*, assignment: Assignment, was: str, study, answers: dict, skipped: bool,
                    time_spent_ms: int, effort: dict | None = None) -> Annotation | None:
    """Claim the assignment (its row locked by the caller's transaction, ``was`` its status as
    stored: leased or expired), settle its quota and store its annotation in one statement; the
    annotation, or None when the assignment is no longer ``was``."""
    sql = _CLAIM.format(**_tables(), leased=LEASED, submitted=SUBMITTED)
    rows = run_prepared("default", "tessera_claim", sql, [
        assignment.pk, was, was, was, study.pk, assignment.annotator_id, json.dumps(answers), skipped,
        study.protocol_version, was, time_spent_ms, assignment.leased_at,
        None if effort is None else json.dumps(effort),
    ])
    row = rows[0] if rows else None
    if row is None:
        return None
    return Annotation(
        pk=row[0], assignment=assignment, study=study, item=assignment.item, pool_id=assignment.pool_id,
        annotator_id=assignment.annotator_id, answers=answers, skipped=skipped,
        protocol_version=study.protocol_version, surplus=row[1], withdrawn=False, time_spent_ms=time_spent_ms,
        started_at=assignment.leased_at, submitted_at=row[2], effort=effort,
    )


# A slot of the quota taken if still free (its conditions re-checked under the row's lock), and
# the lease stored with it; no row back: the quota filled meanwhile. A unique constraint broken by
# the insert (another session of this annotator took the item at the same moment) fails the whole
# statement: nothing is taken.
_LEASE = """
WITH took AS (
    UPDATE {quota} SET leased = leased + 1 WHERE id = %s AND leased < wanted - done RETURNING item_id
)
INSERT INTO {assignment} (session_id, annotator_id, item_id, pool_id, position, status, leased_at, expires_at,
                          draft, session_total)
SELECT %s::bigint, %s::bigint, took.item_id, %s::bigint, %s::smallint, '{leased}', %s::timestamptz,
       %s::timestamptz, '{{}}'::jsonb, %s::smallint
FROM took
RETURNING id
"""


def lease_take(*, quota_pk: int, session_pk: int, annotator_pk: int, pool_pk: int, position: int,
               now: datetime, until: datetime, session_total: int | None) -> int | None:
    """Take a slot of the quota and store the lease in one statement; the lease's pk, or None
    when the quota has no free slot. Raises IntegrityError as the ORM's insert would."""
    rows = run_prepared("default", "tessera_lease", _LEASE.format(**_tables(), leased=LEASED), [
        quota_pk, session_pk, annotator_pk, pool_pk, position, now, until, session_total,
    ])
    return rows[0][0] if rows else None

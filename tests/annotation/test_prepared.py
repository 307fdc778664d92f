"""The hot path's queries as prepared statements of each PostgreSQL connection
(``annotation.compiled.run_prepared``): the same rows as the plain SQL, prepared once per database
session, one query per call (PREPARE and EXECUTE in one round trip), a failed first use never
leaving a name that cannot be used, and off with ``TESSERA_PREPARED_STATEMENTS=0``."""

import pytest
from django.db import IntegrityError, connection, connections, transaction

from annotation import selectors
from annotation.compiled import _numbered, run_prepared
from annotation.models import Session
from studies.models import ItemQuota

pytestmark = pytest.mark.django_db

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="prepared statements are PostgreSQL's: set DATABASE_URL=postgres://… (CI does)",
)


def prepared_names() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements")
        return {row[0] for row in cursor.fetchall()}


def test_placeholders_are_numbered_and_an_escaped_percent_is_kept():
    sql = "SELECT a FROM t WHERE b = %s AND c LIKE 'x%%' AND d IN (%s, %s)"
    assert _numbered(sql) == "SELECT a FROM t WHERE b = $1 AND c LIKE 'x%%' AND d IN ($2, $3)"


def test_without_postgresql_or_when_turned_off_the_sql_runs_as_it_is(settings, session, django_assert_num_queries):
    settings.TESSERA_PREPARED_STATEMENTS = False
    with django_assert_num_queries(1) as captured:
        rows = run_prepared("default", "tessera_test_off", f"SELECT id FROM {Session._meta.db_table} WHERE id = %s",
                            [session.pk])
    assert rows == [(session.pk,)]
    assert "PREPARE" not in captured.captured_queries[0]["sql"]


def fresh_database_session():
    """As a new database session starts: nothing prepared (an earlier test's statements dropped)."""
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    connections["default"].__dict__.pop("_tessera_prepared", None)  # what a reconnect gives the wrapper


@postgres_only
def test_a_query_is_prepared_once_per_connection_and_gives_the_querysets_rows(session, django_assert_num_queries):
    fresh_database_session()
    built = Session.objects.select_related("annotator__study", "annotator__pool").get(pk=session.pk)
    with django_assert_num_queries(3) as captured:  # one query per call: the first prepares as it executes
        for _ in range(3):
            [compiled] = selectors._SESSION(session.pk)
            assert (compiled.pk, compiled.annotator.study.pk, compiled.annotator.pool.pk) == (
                built.pk, built.annotator.study.pk, built.annotator.pool.pk)
    sent = [q["sql"] for q in captured.captured_queries]
    assert sent[0].startswith("PREPARE ") and all(q.startswith("EXECUTE ") for q in sent[1:])
    assert f"{selectors._SESSION.name}_1" in prepared_names()
    assert selectors._SESSION(10**9) == []


@postgres_only
def test_a_new_database_session_prepares_again(session):
    selectors._SESSION(session.pk)
    fresh_database_session()
    [again] = selectors._SESSION(session.pk)
    assert again.pk == session.pk and f"{selectors._SESSION.name}_1" in prepared_names()


@postgres_only
def test_a_first_use_that_fails_leaves_a_name_the_next_use_does_not_need(pool, items):
    quota = ItemQuota.objects.filter(pool=pool).first()
    sql = f"UPDATE {ItemQuota._meta.db_table} SET done = %s WHERE id = %s RETURNING done"
    with pytest.raises(IntegrityError), transaction.atomic():  # done above wanted: the check constraint refuses
        run_prepared("default", "tessera_test_fail", sql, [quota.wanted + 5, quota.pk])
    assert run_prepared("default", "tessera_test_fail", sql, [1, quota.pk]) == [(1,)]
    assert {"tessera_test_fail_1", "tessera_test_fail_2"} <= prepared_names()  # the second try under a new name
    assert run_prepared("default", "tessera_test_fail", sql, [0, quota.pk]) == [(0,)]

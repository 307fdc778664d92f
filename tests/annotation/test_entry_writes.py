"""The entry link's writes: a new annotator and their session made without reading first, one made
by a parallel request found instead (never a 500), in or out of a transaction; the statements a
new participant's entry costs."""

import pytest
from django.db import connection, transaction

from annotation.models import Annotator, Session
from annotation.services.entry import created_or_found
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.mark.django_db(transaction=True)  # as a request runs: outside a transaction
def test_a_row_is_made_without_reading_first(pool, django_assert_num_queries):
    with django_assert_num_queries(1):  # the INSERT alone: no SELECT, no BEGIN/COMMIT outside a transaction
        annotator, made = created_or_found(Annotator, {"study": pool.study, "prolific_pid": "P" * 24}, {"pool": pool})
    assert made and Annotator.objects.get(prolific_pid="P" * 24) == annotator


def test_a_row_a_parallel_request_made_first_is_found(pool):
    first = f.make_annotator(pool, "Q" * 24)
    found, made = created_or_found(Annotator, {"study": pool.study, "prolific_pid": "Q" * 24}, {"pool": pool})
    assert (found, made) == (first, False) and Annotator.objects.filter(prolific_pid="Q" * 24).count() == 1


def test_inside_a_transaction_a_refused_insert_leaves_the_transaction_usable(pool):
    first = f.make_annotator(pool, "R" * 24)
    with transaction.atomic():
        found, made = created_or_found(Annotator, {"study": pool.study, "prolific_pid": "R" * 24}, {"pool": pool})
        assert (found, made) == (first, False)
        assert Annotator.objects.filter(pool=pool).count() == 1  # the transaction still answers


@pytest.mark.django_db(transaction=True)
def test_a_new_participants_entry_reads_nothing_twice(client, pool, items, django_assert_num_queries):
    # the pool (with its study and panel), the Prolific study's check; the annotator looked for, the
    # pool's room, the annotator made, the session made, the session bound to the browser
    with django_assert_num_queries(7):
        response = client.get(f.entry_url(pool, pid="5f1a2b3c4d5e6f7a8b9c0d1f", session_id="NEW1"))
    assert response.status_code == 302
    assert Session.objects.filter(annotator__prolific_pid="5f1a2b3c4d5e6f7a8b9c0d1f").count() == 1
    assert connection.vendor in ("postgresql", "sqlite")

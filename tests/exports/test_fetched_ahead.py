"""The PostgreSQL export's pages, fetched one ahead by a thread (``exports.rows._fetched_ahead``):
every page in order with its items, an error raised to the reader, and the thread gone from the
cursors however the reading ends."""

import threading

import pytest

from exports.rows import _fetched_ahead


class Cursor:
    """A server-side cursor's pages (annotation rows: id, item pk) and a plain cursor's items."""

    def __init__(self, pages, fail_at=None):
        self.pages, self.fail_at, self.fetches, self.result = list(pages), fail_at, 0, []

    def fetchmany(self, size):
        self.fetches += 1
        if self.fetches == self.fail_at:
            raise RuntimeError("the connection was lost")
        return self.pages.pop(0) if self.pages else []

    def execute(self, sql, params):
        self.result = [(pk, f"item-{pk}", "", "", "", "IN") for pk in params]

    def fetchall(self):
        return self.result


def fetchers():
    return [t for t in threading.enumerate() if t.name == "export-fetch"]


def test_every_page_comes_in_order_with_the_columns_of_its_items():
    pages = [[(1, 10), (2, 11)], [(3, 10)]]
    got = list(_fetched_ahead(Cursor(pages), Cursor([]), 2))
    assert [rows for rows, _ in got] == pages
    assert got[0][1] == {10: ("item-10", "", "", "", "IN"), 11: ("item-11", "", "", "", "IN")}
    assert not fetchers()


def test_an_error_of_the_fetching_thread_is_raised_to_the_reader():
    reader = _fetched_ahead(Cursor([[(1, 10)], [(2, 10)]], fail_at=2), Cursor([]), 1)
    assert next(reader)[0] == [(1, 10)]
    with pytest.raises(RuntimeError, match="connection was lost"):
        next(reader)
    assert not fetchers()


def test_a_reader_that_stops_early_leaves_no_thread_on_the_cursor():
    cursor = Cursor([[(n, 10)] for n in range(1, 50)])
    reader = _fetched_ahead(cursor, Cursor([]), 1)
    next(reader)
    reader.close()  # a cancelled export closes its rows
    assert not fetchers()
    assert cursor.fetches <= 3  # one page read, one ahead, at most one more on its way out

"""Quota arithmetic (annotation.quota): plain functions, no database."""

from annotation.quota import session_total


def test_a_session_counts_its_target_while_enough_items_are_open():
    assert session_total(target=5, submitted=0, open_items=None, room=None) == 5
    assert session_total(target=5, submitted=2, open_items=9, room=None) == 5


def test_a_session_counts_only_the_items_open_to_the_annotator_or_their_cap():
    assert session_total(target=5, submitted=0, open_items=2, room=None) == 2
    assert session_total(target=5, submitted=3, open_items=1, room=None) == 4
    assert session_total(target=5, submitted=1, open_items=6, room=2) == 3
    assert session_total(target=5, submitted=1, open_items=1, room=2) == 2


def test_the_item_shown_is_always_counted():
    assert session_total(target=5, submitted=2, open_items=0, room=None) == 3

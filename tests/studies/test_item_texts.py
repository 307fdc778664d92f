"""The names of an item's texts (``studies.protocol.spec.ITEM_TEXTS``), written once: the engine
checks a field's ``over`` against them, the importer reads them as columns, the item keeps them and
the page labels them."""

import pytest

from studies.importing import parse_row
from studies.models import Item
from studies.protocol import SpecError, parse_spec
from studies.protocol.spec import ITEM_FURTHER_TEXTS, ITEM_TEXT_LABELS, ITEM_TEXTS

ROW = {"id": "it-1", "image": "a.png", "country": "IN"}


def test_an_imported_row_carries_every_item_text_and_the_item_gives_each_back_by_name():
    row, problems = parse_row(2, {**ROW, **{name: f"the {name}" for name in ITEM_TEXTS}})
    assert problems == [] and row.metadata == {}
    assert (row.prompt, row.caption) == ("the prompt", "the caption")
    assert set(row.texts) == set(ITEM_FURTHER_TEXTS)
    item = Item(prompt=row.prompt, caption=row.caption, texts=row.texts)
    assert item.text_map() == {name: f"the {name}" for name in ITEM_TEXTS}
    assert all(ITEM_TEXT_LABELS[name] for name in ITEM_TEXTS)


def test_a_column_that_names_no_item_text_is_kept_as_metadata_not_as_a_text():
    row, problems = parse_row(2, {**ROW, "subtitle": "not a text"})
    assert problems == [] and row.texts == {} and row.metadata == {"subtitle": "not a text"}


def test_it_refuses_a_highlight_over_a_name_that_is_no_item_text():
    spec = {"fields": [{"key": "words", "type": "highlight", "over": "subtitle"}]}
    with pytest.raises(SpecError) as refused:
        parse_spec(spec)
    assert f"one of {', '.join(ITEM_TEXTS)}" in str(refused.value)
    background = parse_spec({"fields": [{"key": "words", "type": "highlight", "over": "background"}]})
    assert background.fields[0].over == "background"

"""The analysis's one read of a study's annotations as columns (``selectors.annotation_columns``)
and the pure column types (``stats.columns``). Runs on SQLite and, with DATABASE_URL, PostgreSQL:
the database's own JSON extraction must give what the ORM path gives."""

import numpy as np
import pandas as pd
import pytest

from analysis.fingerprint import data_fingerprint
from analysis.reader import annotation_columns
from stats.columns import Interner, KeyColumn, columns_from_chunks
from tests import factories as f
from tests.annotations import annotate, annotators

# Answers of every shape a key can hold, stored as they are (not through the engine), so the
# read is checked on what the database holds: absent keys, JSON null, true beside 1, 1 beside 1.0,
# strings that look like numbers, lists (order kept), objects, unicode, and a skip.
ANSWERS = [
    {"alignment": 1, "words": [{"index": 0, "text": "família"}], "stereotype": "no"},
    {"alignment": 1.0, "words": [], "stereotype": "yes", "extra": {"b": 2, "a": [1, "x"]}},
    {"alignment": True, "stereotype": "1"},
    {"alignment": None, "words": ["b", "a"], "stereotype": 1},
    {"_skip": "The image does not load"},
    {"alignment": 0.5, "words": ["a", "b"], "stereotype": "no", "extra": "quoted \"text\", with a comma"},
]
KEYS = ["alignment", "words", "stereotype", "extra", "never_asked"]


@pytest.fixture
def stored(study, pool, other_pool):
    items = f.make_items(study, "IN", len(ANSWERS))
    raters = annotators(pool, 2) + annotators(other_pool, 1)
    return [annotate(raters[n % 3], items[n], answers=answers) for n, answers in enumerate(ANSWERS)]


def read(study, **options):
    return annotation_columns(study=study, max_id=data_fingerprint(study=study).max_id, keys=KEYS, **options)


def values(columns, key):
    """Each annotation's decoded answer to ``key``, "<absent>" where it has none."""
    column = columns.keys[key]
    return ["<absent>" if c < 0 else column.values[c] for c in column.codes.tolist()]


def test_it_reads_every_annotation_in_id_order_with_its_ids(stored, study):
    columns = read(study)
    assert len(columns) == len(ANSWERS)
    assert columns.item.tolist() == [a.item_id for a in stored]
    assert columns.pool.tolist() == [a.pool_id for a in stored]
    assert columns.annotator.tolist() == [a.annotator_id for a in stored]
    assert columns.version.tolist() == [study.protocol_version] * len(ANSWERS)
    assert columns.skipped.tolist() == [False, False, False, False, True, False]


def test_it_decodes_each_answer_as_stored_keeping_types_apart(stored, study):
    columns = read(study)
    got = values(columns, "alignment")
    assert got == [1, 1.0, True, None, "<absent>", 0.5]
    assert [type(v) for v in got[:3]] == [int, float, bool]  # 1, 1.0 and true are three answers
    assert values(columns, "stereotype") == ["no", "yes", "1", 1, "<absent>", "no"]
    assert values(columns, "words") == [
        [{"index": 0, "text": "família"}], [], "<absent>", ["b", "a"], "<absent>", ["a", "b"]
    ]
    assert values(columns, "extra") == ["<absent>", {"b": 2, "a": [1, "x"]}, "<absent>", "<absent>", "<absent>",
                                        'quoted "text", with a comma']
    assert values(columns, "never_asked") == ["<absent>"] * len(ANSWERS)


def test_each_distinct_answer_is_kept_once(stored, study):
    stereotype = read(study).keys["stereotype"]
    assert len(stereotype.values) == 4  # "no" twice, "yes", "1", 1
    assert stereotype.codes[0] == stereotype.codes[5]


def test_the_orm_path_reads_the_same_as_the_database(stored, study):
    native, orm = read(study), read(study, native=False)
    for name in ("item", "pool", "annotator", "version", "skipped"):
        assert getattr(native, name).tolist() == getattr(orm, name).tolist()
    for key in KEYS:
        assert values(native, key) == values(orm, key)


@pytest.mark.parametrize("native", [True, False])
def test_with_excluded_it_also_reads_what_an_exclusion_alone_left_out(stored, study, owner, native):
    from annotation.services import annotator_exclude

    annotator_exclude(annotator=stored[1].annotator, by=owner, reason="Answers at random")
    counted = read(study, native=native)
    assert counted.item.tolist() == [a.item_id for n, a in enumerate(stored) if n % 3 != 1]
    both = read(study, native=native, excluded=True)
    assert both.item.tolist() == [a.item_id for a in stored]
    assert both.counted.tolist() == [n % 3 != 1 for n in range(len(stored))]
    assert both.seconds.tolist() == [a.time_spent_ms / 1000 for a in stored]
    assert both.counted_only().item.tolist() == counted.item.tolist()
    assert counted.counted_only() is counted  # every one counts: no copy


@pytest.mark.parametrize("native", [True, False])
def test_with_excluded_a_withdrawn_session_and_a_flagged_answer_stay_out(stored, study, owner, native):
    from annotation.models import Review
    from annotation.services import annotator_exclude

    annotator_exclude(annotator=stored[1].annotator, by=owner, reason="Answers at random")
    assert stored[4].assignment.session_id == stored[1].assignment.session_id
    session = stored[1].assignment.session
    type(session).objects.filter(pk=session.pk).update(withdrawn_at=session.started_at)  # returned as well
    Review.objects.create(annotation=stored[0], reviewer=owner, outcome=Review.Outcome.FLAGGED)  # out of both
    both = read(study, native=native, excluded=True)
    assert both.item.tolist() == [a.item_id for n, a in enumerate(stored) if n % 3 == 2 or n == 3]


@pytest.mark.parametrize("native", [True, False])
def test_small_chunks_join_to_the_same_columns_and_report_progress(stored, study, native):
    seen = []
    chunked = read(study, chunk_size=2, on_chunk=seen.append, native=native)
    assert seen == [2, 4, 6]
    whole = read(study)
    for key in KEYS:
        assert values(chunked, key) == values(whole, key)


def test_it_stops_at_max_id_and_reads_only_its_study(stored, study, owner):
    other = f.make_study(owner, name="Another study")
    other_pool = f.make_pool(other, "JP", "Japan")
    annotate(f.make_annotator(other_pool), f.make_item(other, "JP"), answers={"alignment": 0})
    columns = annotation_columns(study=study, max_id=stored[2].pk, keys=KEYS)
    assert columns.item.tolist() == [a.item_id for a in stored[:3]]


def test_a_study_without_annotations_gives_empty_columns(study):
    columns = annotation_columns(study=study, max_id=0, keys=["alignment"])
    assert len(columns) == 0
    assert columns.keys["alignment"].codes.tolist() == []
    assert columns.answered().item.tolist() == []


# --- the pure part ------------------------------------------------------------------------------


def test_mapped_and_numbers_apply_a_function_once_per_distinct_answer():
    calls = []

    def twice(v):
        calls.append(v)
        return None if v is None else v * 2

    column = KeyColumn(np.array([0, 1, 0, -1, 1], dtype=np.int32), [1, 3])
    assert column.mapped(twice).tolist() == [2, 6, 2, None, 6]
    assert calls == [1, 3, None]
    numbers = column.numbers(lambda v: None if v == 3 else float(v))
    assert numbers[0] == 1.0 and np.isnan(numbers[1]) and np.isnan(numbers[3])


def test_the_interner_codes_texts_across_chunks_and_absent_as_minus_one():
    interner = Interner()
    interner.add(['"a"', None, "1"])
    interner.add(["1", '"b"', None])
    column = interner.column()
    assert column.codes.tolist() == [0, -1, 1, 1, 2, -1]
    assert column.values == ["a", 1, "b"]


def test_columns_from_chunks_refuses_a_chunk_of_the_wrong_width():
    chunk = [np.array([1]), np.array([1]), np.array([1]), np.array([1]), np.array([1]), np.array([False]),
             np.array([1000]), np.array([True])]
    with pytest.raises(ValueError):
        columns_from_chunks([chunk], ["alignment"])  # a key column is missing


def test_take_keeps_rows_of_every_column():
    chunk = [np.array([1, 2, 3]), np.array([10, 20, 30]), np.array([5, 5, 6]), np.array([7, 8, 9]),
             np.array([1, 1, 2]), np.array([False, True, False]), np.array([1500, 2000, 2500]),
             np.array([True, True, False]), pd.array(['"x"', '"y"', None], dtype=object)]
    columns = columns_from_chunks([chunk], ["k"])
    answered = columns.answered()
    assert answered.item.tolist() == [10, 30]
    assert answered.seconds.tolist() == [1.5, 2.5]
    assert answered.counted.tolist() == [True, False]
    assert columns.counted_only().item.tolist() == [10, 20]
    assert answered.version.tolist() == [1, 2]
    assert answered.versions() == [1, 2]
    assert [answered.keys["k"].values[c] if c >= 0 else None for c in answered.keys["k"].codes] == ["x", None]

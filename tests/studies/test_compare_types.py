"""The comparison field types (``studies/protocol/types/compare.py``): ``pairwise``, ``best_worst``
and ``rank`` over an item's several images, read from what the form posts, checked in a spec, and
exported, compared and shown by their type. Pure: no database. Their form templates are tested in
``test_compare_forms.py``."""

import pyarrow as pa
import pytest

from studies.protocol import (
    FIELD_TYPES,
    ImageRef,
    ItemContext,
    Protocol,
    ShownAnswer,
    SpecError,
    answer_token,
    bind,
    draft_problem,
    parse_spec,
    validate,
)

SPEC = parse_spec({"fields": [
    {"key": "pair", "type": "pairwise", "level": "nominal"},
    {"key": "strict", "type": "pairwise", "tie": False},
    {"key": "strong", "type": "pairwise", "both_fail": True, "strength": True},
    {"key": "extremes", "type": "best_worst", "level": "nominal"},
    {"key": "ranked", "type": "rank", "level": "nominal"},
]})  # fmt: skip
F = {f.key: f for f in SPEC.fields}


def shown(*ids: str) -> ItemContext:
    """An item whose images this annotator sees in the order ``ids``, each by its own model."""
    return ItemContext(images=tuple(ImageRef(i, f"model-{i}", 512, 384) for i in ids))


TWO = shown("2", "1")  # the item's second image on the left
THREE = shown("3", "1", "2")


def read(key: str, data: dict, ctx: ItemContext):
    """What the engine makes of ``data`` posted for the field ``key`` alone: (answer, error)."""
    result = validate(Protocol(fields=(F[key],)), data, ctx)
    return result.answers.get(key), result.errors.get(key)


def refused(key: str, data: dict, ctx: ItemContext) -> str:
    answer, error = read(key, data, ctx)
    assert answer is None
    return error


# --- pairwise -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key, data, answer", [
    ("pair", {"pair": ["1"]}, {"choice": "1", "order": ["2", "1"]}),
    ("pair", {"pair": ["tie"]}, {"choice": "tie", "order": ["2", "1"]}),  # a tie unless the spec says no
    ("pair", {"pair": ["2"], "pair.strength": ["3"]}, {"choice": "2", "order": ["2", "1"]}),  # not asked: not kept
    ("strict", {"strict": ["2"]}, {"choice": "2", "order": ["2", "1"]}),
    ("strong", {"strong": ["2"], "strong.strength": ["3"]}, {"choice": "2", "order": ["2", "1"], "strength": 3}),
    ("strong", {"strong": ["1"], "strong.strength": ["1"]}, {"choice": "1", "order": ["2", "1"], "strength": 1}),
    ("strong", {"strong": ["both_fail"]}, {"choice": "both_fail", "order": ["2", "1"]}),
    ("strong", {"strong": ["tie"], "strong.strength": ["2"]}, {"choice": "tie", "order": ["2", "1"]}),  # not asked
])  # fmt: skip
def test_a_pairwise_answer_is_the_image_chosen_by_id_with_the_order_shown(key, data, answer):
    assert read(key, data, TWO) == (answer, None)


def test_the_order_stored_is_the_annotator_s_own():
    assert read("pair", {"pair": ["1"]}, shown("1", "2"))[0] == {"choice": "1", "order": ["1", "2"]}


HOW_MUCH = "Say how much better: 1 (slightly), 2 (clearly) or 3 (much)."


@pytest.mark.parametrize("key, data, message", [
    ("pair", {"pair": ["3"]}, "Choose one of the images shown."),
    ("pair", {"pair": ["left"]}, "Choose one of the images shown."),  # ids are posted, never sides
    ("pair", {"pair.strength": ["2"]}, "Choose one of the images shown."),
    ("strict", {"strict": ["tie"]}, "This question has no tie: choose one of the images."),
    ("pair", {"pair": ["both_fail"]}, "This question has no “both fail”: choose one of the images."),
    ("strong", {"strong": ["1"]}, "Say how much better the image you chose is."),
    ("strong", {"strong": ["1"], "strong.strength": ["4"]}, HOW_MUCH),
    ("strong", {"strong": ["1"], "strong.strength": ["much"]}, HOW_MUCH),
    ("pair", {}, "Choose the better image."),
])  # fmt: skip
def test_a_pairwise_answer_outside_the_spec_is_refused(key, data, message):
    assert refused(key, data, TWO) == message


@pytest.mark.parametrize("ctx, n", [(shown("1"), 1), (THREE, 3), (ItemContext(), 0)])
def test_a_pairwise_field_refuses_an_item_without_exactly_two_images(ctx, n):
    assert refused("pair", {"pair": ["1"]}, ctx) == f"This comparison needs two images; the item has {n}."


# --- best_worst ---------------------------------------------------------------------------------


def test_a_best_worst_answer_is_two_ids_and_the_order_shown():
    data = {"extremes": ["1"], "extremes.worst": ["2"]}
    assert read("extremes", data, THREE) == ({"best": "1", "worst": "2", "order": ["3", "1", "2"]}, None)
    eight = shown(*"51827364")
    assert read("extremes", data, eight)[0] == {"best": "1", "worst": "2", "order": list("51827364")}


@pytest.mark.parametrize("data, message", [
    ({"extremes": ["2"], "extremes.worst": ["2"]}, "The best and the worst image must be two different images."),
    ({"extremes": ["4"], "extremes.worst": ["2"]}, "Choose among the images shown."),
    ({"extremes": ["1"], "extremes.worst": ["9"]}, "Choose among the images shown."),
    ({"extremes.worst": ["2"]}, "Choose the best image."),
    ({"extremes": ["1"]}, "Choose the worst image."),
    ({}, "Choose the best and the worst image."),
])  # fmt: skip
def test_a_best_worst_answer_that_is_not_two_different_images_shown_is_refused(data, message):
    assert refused("extremes", data, THREE) == message


@pytest.mark.parametrize("ctx, n", [(TWO, 2), (shown(*"123456789"), 9)])
def test_a_best_worst_field_needs_three_to_eight_images(ctx, n):
    data = {"extremes": ["1"], "extremes.worst": ["2"]}
    assert refused("extremes", data, ctx) == f"This comparison needs 3 to 8 images; the item has {n}."


# --- rank ---------------------------------------------------------------------------------------


def test_a_ranking_is_read_from_one_rank_per_image():
    data = {"ranked.1": ["1"], "ranked.2": ["3"], "ranked.3": ["2"]}
    assert read("ranked", data, THREE) == ({"ranking": ["1", "3", "2"], "order": ["3", "1", "2"]}, None)
    two = {"ranked.1": ["2"], "ranked.2": ["1"]}
    assert read("ranked", two, TWO)[0] == {"ranking": ["2", "1"], "order": ["2", "1"]}


@pytest.mark.parametrize("data, message", [
    ({"ranked.1": ["1"], "ranked.2": ["1"], "ranked.3": ["2"]}, "Rank 1 is given twice: give each image its own rank."),
    ({"ranked.1": ["1"], "ranked.2": ["2"]}, "1 image has no rank yet: give each image a rank."),
    ({"ranked.1": ["1"]}, "2 images have no rank yet: give each image a rank."),
    ({"ranked.1": ["1"], "ranked.2": ["2"], "ranked.3": ["3"], "ranked.4": ["4"]}, "Rank only the images shown."),
    ({"ranked.1": ["1"], "ranked.2": ["2"], "ranked.3": ["4"]}, "A rank is a whole number from 1 to 3."),
    ({"ranked.1": ["0"], "ranked.2": ["1"], "ranked.3": ["2"]}, "A rank is a whole number from 1 to 3."),
    ({"ranked.1": ["first"], "ranked.2": ["2"], "ranked.3": ["3"]}, "A rank is a whole number from 1 to 3."),
    ({}, "Give each image a rank."),
])  # fmt: skip
def test_a_ranking_with_a_rank_twice_missing_or_unknown_is_refused(data, message):
    assert refused("ranked", data, THREE) == message


@pytest.mark.parametrize("ctx, n", [(shown("1"), 1), (shown(*"123456789"), 9)])
def test_a_rank_field_needs_two_to_eight_images(ctx, n):
    assert refused("ranked", {"ranked.1": ["1"]}, ctx) == f"This comparison needs 2 to 8 images; the item has {n}."


# --- the spec -------------------------------------------------------------------------------------


def test_the_three_types_are_registered_and_need_the_item_s_images():
    assert {name: FIELD_TYPES[name].name for name in ("pairwise", "best_worst", "rank")} == {
        "pairwise": "pairwise", "best_worst": "best_worst", "rank": "rank"}
    assert all(f.kind.item_parts(f) == {"images"} and f.kind.levels == ("nominal",) for f in SPEC.fields)
    assert SPEC.item_parts() == {"images"}
    assert not any(f.kind.markup_is_fixed(f) for f in SPEC.fields)  # their images are the item's


def test_their_one_script_is_loaded_once_and_only_pairwise_takes_number_keys():
    assert SPEC.scripts() == ("annotation/compare.js",)
    assert [f.key for f in SPEC.fields if f.kind.shortcuts] == ["pair", "strict", "strong"]
    assert SPEC.shortcuts() == {"numbers"}


@pytest.mark.parametrize("setting", ["tie", "both_fail", "strength"])
@pytest.mark.parametrize("value", ["yes", 1, "true", [True]])
def test_a_pairwise_setting_is_true_or_false(setting, value):
    with pytest.raises(SpecError) as exc:
        parse_spec({"fields": [{"key": "pair", "type": "pairwise", setting: value}]})
    assert exc.value.errors == [f"field 'pair': '{setting}' must be true or false"]


@pytest.mark.parametrize("ftype, extra", [
    ("best_worst", {}), ("rank", {}), ("choice", {"choices": ["a", "b"]}), ("pick_one", {}),
])  # fmt: skip
def test_a_pairwise_setting_on_another_type_is_refused(ftype, extra):
    with pytest.raises(SpecError) as exc:
        parse_spec({"fields": [{"key": "q", "type": ftype, "tie": True, "strength": False, **extra}]})
    assert exc.value.errors == [
        "field 'q': 'tie' belongs on pairwise fields", "field 'q': 'strength' belongs on pairwise fields",
    ]


@pytest.mark.parametrize("ftype", ["pairwise", "best_worst", "rank"])
def test_a_comparison_is_nominal(ftype):
    with pytest.raises(SpecError) as exc:
        parse_spec({"fields": [{"key": "q", "type": ftype, "level": "ordinal"}]})
    assert exc.value.errors == [f"field 'q': level 'ordinal' does not fit a {ftype} field (allowed: nominal)"]


def test_the_settings_default_to_a_tie_and_nothing_else():
    pair = F["pair"]
    assert (pair.tie, pair.both_fail, pair.strength) == (None, None, None)
    assert pair.kind.allows(pair, "tie") and not pair.kind.allows(pair, "both_fail")
    assert not F["strict"].kind.allows(F["strict"], "tie") and F["strong"].kind.allows(F["strong"], "both_fail")


@pytest.mark.parametrize("name, ok", [
    ("strong.strength", True), ("extremes.worst", True), ("ranked.1", True), ("ranked.8", True),
    ("ranked.9", False), ("extremes.best", False), ("pair.left", False),
])  # fmt: skip
def test_a_draft_holds_only_the_form_names_the_fields_post(name, ok):
    assert (draft_problem(SPEC, {name: ["1"]}) is None) == ok


# --- agreement, gold, import ----------------------------------------------------------------------


@pytest.mark.parametrize("key, value, token", [
    ("pair", {"choice": "2", "order": ["2", "1"]}, "2"),
    ("pair", {"choice": "2", "order": ["1", "2"], "strength": 3}, "2"),  # the image, not its side or strength
    ("pair", {"choice": "tie", "order": ["2", "1"]}, "tie"),
    ("strong", {"choice": "both_fail", "order": ["2", "1"]}, "both_fail"),
    ("extremes", {"best": "3", "worst": "1", "order": ["1", "2", "3"]}, "3"),
    ("ranked", {"ranking": ["3", "1", "2"], "order": ["1", "2", "3"]}, "3>1>2"),
])  # fmt: skip
def test_agreement_compares_the_choice_the_best_or_the_whole_ranking(key, value, token):
    assert answer_token(F[key], value) == token


@pytest.mark.parametrize("key", ["pair", "extremes", "ranked"])
def test_no_gold_no_fixed_domain_no_import_yet(key):
    f = F[key]
    assert not f.kind.gold_categorical(f) and f.kind.domain(f) is None
    assert f.kind.gold_problem(f) == f"a {f.type} field cannot have a gold answer (not yet)"
    assert not f.kind.importable
    with pytest.raises(ValueError, match=f"^{f.type} fields cannot be carried in one cell$"):
        f.kind.import_value(f, "1", THREE)


# --- the form: a stored answer posted again -------------------------------------------------------


@pytest.mark.parametrize("key, data, ctx", [
    ("pair", {"pair": ["1"]}, TWO),
    ("pair", {"pair": ["tie"]}, TWO),
    ("strong", {"strong": ["2"], "strong.strength": ["2"]}, TWO),
    ("strong", {"strong": ["both_fail"]}, TWO),
    ("extremes", {"extremes": ["2"], "extremes.worst": ["3"]}, THREE),
    ("ranked", {"ranked.1": ["3"], "ranked.2": ["1"], "ranked.3": ["2"]}, THREE),
])  # fmt: skip
def test_a_stored_answer_gives_back_what_its_form_posted(key, data, ctx):
    f = F[key]
    answer, error = read(key, data, ctx)
    assert error is None
    bound = next(b for b in bind(Protocol(fields=(f,)), data, ctx) if b.name == key)
    assert f.kind.form_values(f, answer) == bound.values  # the form re-rendered from the answer
    assert f.kind.parse(f, f.kind.form_values(f, answer), ctx, {}) == answer


@pytest.mark.parametrize("key, value, posted", [
    ("strong", {"choice": "2", "order": ["2", "1"], "strength": 2}, ["choice=2", "strength=2"]),
    ("pair", {"choice": "tie", "order": ["2", "1"]}, ["choice=tie"]),
    ("extremes", {"best": "2", "worst": "3", "order": ["3", "1", "2"]}, ["best=2", "worst=3"]),
    ("ranked", {"ranking": ["2", "3", "1"], "order": ["3", "1", "2"]}, ["1=3", "2=1", "3=2"]),
    ("pair", None, []), ("extremes", "2", []), ("ranked", {"ranking": "2"}, []),
])  # fmt: skip
def test_form_values_name_each_part_of_the_answer(key, value, posted):
    assert F[key].kind.form_values(F[key], value) == posted


# --- the export -----------------------------------------------------------------------------------

PAIR = {"choice": "2", "order": ["1", "2"], "strength": 3}
EXTREMES = {"best": "3", "worst": "1", "order": ["2", "3", "1"]}
RANKED = {"ranking": ["3", "1", "2"], "order": ["2", "3", "1"]}


@pytest.mark.parametrize("key, value, cells, values", [
    ("strong", PAIR, {"strong": "2", "strong_left": "1", "strong_right": "2", "strong_strength": "3"},
     {"strong": "2", "strong_left": "1", "strong_right": "2", "strong_strength": 3}),
    ("pair", {"choice": "tie", "order": ["2", "1"]},
     {"pair": "tie", "pair_left": "2", "pair_right": "1", "pair_strength": ""},
     {"pair": "tie", "pair_left": "2", "pair_right": "1", "pair_strength": None}),
    ("extremes", EXTREMES, {"extremes_best": "3", "extremes_worst": "1", "extremes_order": "2|3|1"},
     {"extremes_best": "3", "extremes_worst": "1", "extremes_order": ["2", "3", "1"]}),
    ("ranked", RANKED, {"ranked": "3|1|2", "ranked_order": "2|3|1"},
     {"ranked": ["3", "1", "2"], "ranked_order": ["2", "3", "1"]}),
])  # fmt: skip
def test_each_comparison_exports_its_own_cells_and_typed_values(key, value, cells, values):
    f = F[key]
    assert list(cells) == f.kind.export_columns(f) == list(f.kind.export_arrow(f))
    assert f.kind.export_cells(f, value) == cells
    assert f.kind.export_values(f, value) == values
    assert not f.kind.plain_export
    arrow = pa.schema(list(f.kind.export_arrow(f).items()))
    assert pa.Table.from_pylist([values], schema=arrow).to_pylist() == [values]  # each value fits its column


def test_the_arrow_types_of_the_comparisons():
    assert F["pair"].kind.export_arrow(F["pair"]) == {
        "pair": pa.string(), "pair_left": pa.string(), "pair_right": pa.string(), "pair_strength": pa.int64()}
    assert F["extremes"].kind.export_arrow(F["extremes"]) == {
        "extremes_best": pa.string(), "extremes_worst": pa.string(), "extremes_order": pa.list_(pa.string())}
    assert F["ranked"].kind.export_arrow(F["ranked"]) == {
        "ranked": pa.list_(pa.string()), "ranked_order": pa.list_(pa.string())}


@pytest.mark.parametrize("key", ["pair", "extremes", "ranked"])
def test_no_answer_gives_no_cell(key):
    assert F[key].kind.export_cells(F[key], None) == {} and F[key].kind.export_values(F[key], None) == {}


@pytest.mark.parametrize("key, value, cells", [
    ("pair", "2", {"pair": "2", "pair_left": "", "pair_right": "", "pair_strength": ""}),
    ("pair", {"choice": "1", "order": "1|2", "strength": True},
     {"pair": "1", "pair_left": "", "pair_right": "", "pair_strength": ""}),
    ("extremes", {"best": "3"}, {"extremes_best": "3", "extremes_worst": "", "extremes_order": ""}),
    ("ranked", {"ranking": "3>1", "order": None}, {"ranked": "", "ranked_order": ""}),
    ("ranked", ["3", "1"], {"ranked": "3|1", "ranked_order": ""}),
])  # fmt: skip
def test_a_malformed_answer_exports_what_can_be_read(key, value, cells):
    assert F[key].kind.export_cells(F[key], value) == cells


# --- the review page --------------------------------------------------------------------------------


@pytest.mark.parametrize("key, value, text", [
    ("strong", {"choice": "2", "order": ["1", "2"], "strength": 2}, "Image 2 over image 1 (clearly better)"),
    ("pair", {"choice": "1", "order": ["2", "1"]}, "Image 1 over image 2"),
    ("pair", {"choice": "tie", "order": ["2", "1"]}, "Tie (images 2 and 1)"),
    ("strong", {"choice": "both_fail", "order": ["1", "2"]}, "Both fail (images 1 and 2)"),
    ("extremes", EXTREMES, "Best: image 3; worst: image 1"),
    ("ranked", RANKED, "3 > 1 > 2"),
    ("ranked", {"ranking": []}, "no ranking"),
    ("pair", "2", "2"),  # not an object: as it is
])  # fmt: skip
def test_the_review_page_names_the_images_by_their_place_in_the_item(key, value, text):
    assert F[key].kind.show_answer(F[key], value) == ShownAnswer(text)


# --- as the comparison statistics read an answer (``comparison``) ----------------------------------

MODELS = {"1": "sdxl", "2": "flux", "3": "dalle-3", "4": "flux"}


def _kind(name):
    from studies.protocol import FIELD_TYPES

    return FIELD_TYPES[name]


@pytest.mark.parametrize(("choice", "winner"), [("2", "left"), ("1", "right"), ("tie", "tie"), ("both_fail", "tie")])
def test_a_pairwise_answer_reads_as_the_models_shown_left_and_right(choice, winner):
    value = {"choice": choice, "order": ["2", "1"]}
    assert _kind("pairwise").comparison(None, value, MODELS) == ("flux", "sdxl", winner)


@pytest.mark.parametrize("value", [
    {"choice": "3", "order": ["2", "1"]},  # an image not shown
    {"choice": "2", "order": ["2", "4"]},  # one model on both sides
    {"choice": "2", "order": ["2", "9"]},  # an image the item no longer has
    {"choice": "2"}, "2", None,
])
def test_a_pairwise_answer_that_says_nothing_of_two_models_reads_as_none(value):
    assert _kind("pairwise").comparison(None, value, MODELS) is None


def test_a_best_worst_answer_reads_as_the_models_shown_and_chosen():
    value = {"best": "3", "worst": "1", "order": ["2", "3", "1"]}
    assert _kind("best_worst").comparison(None, value, MODELS) == (["flux", "dalle-3", "sdxl"], "dalle-3", "sdxl")
    assert _kind("best_worst").comparison(None, {**value, "order": ["2", "3", "4"]}, MODELS) is None
    assert _kind("best_worst").comparison(None, {**value, "worst": "3"}, MODELS) is None


def test_a_rank_answer_reads_as_the_models_in_their_order():
    value = {"ranking": ["3", "1", "2"], "order": ["1", "2", "3"]}
    assert _kind("rank").comparison(None, value, MODELS) == (["sdxl", "flux", "dalle-3"], ["dalle-3", "sdxl", "flux"])
    assert _kind("rank").comparison(None, {**value, "ranking": ["3", "1"]}, MODELS) is None
    assert _kind("rank").comparison(None, "3>1>2", MODELS) is None

"""Gold answers: each field type compares an answer with the gold one, tolerance edges included.
Pure: no database, no Django."""

import pytest

from studies.protocol import FIELD_TYPES, SpecError, parse_spec
from studies.protocol.gold import (
    GoldCheck,
    box_iou,
    check_passed,
    gold_accuracy,
    gold_answer_problems,
    gold_check,
    gold_match,
    normalised_text,
    one_to_one,
)

YES_NO = [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]
FIELDS = [
    {"key": "fits", "type": "choice", "level": "nominal", "choices": YES_NO},
    {"key": "grade", "type": "scale", "level": "ordinal", "choices": [0, 0.5, 1, 2, 3]},
    {"key": "odd", "type": "scale", "level": "interval", "choices": [0.2, 1.1]},
    {"key": "kinds", "type": "multi", "level": "nominal", "required": False,
     "choices": ["explicit", "implicit", "none"]},
    {"key": "words", "type": "highlight", "over": "prompt", "required": False},
    {"key": "why", "type": "text", "required": False},
    {"key": "sources", "type": "url_list", "required": False},
    {"key": "photo", "type": "upload"},
    {"key": "drawn", "type": "bbox", "over": "photo"},
    {"key": "spot", "type": "bbox", "over": "image", "required": False},
    {"key": "best", "type": "pick_one", "level": "nominal"},
    {"key": "docs", "type": "per_document", "fields": [
        {"key": "topic", "type": "choice", "choices": YES_NO},
        {"key": "note", "type": "text", "required": False},
    ]},
]
SPEC = parse_spec({"fields": FIELDS})
F = {f.key: f for f in SPEC.fields}


def box(x, y, w, h, width=100, height=100):
    """A box as the bbox type stores it (pixels and shares of a width × height image)."""
    return {"x": x, "y": y, "w": w, "h": h, "nx": x / width, "ny": y / height, "nw": w / width, "nh": h / height,
            "area_ratio": w * h / (width * height)}


def words(*indices):
    return [{"index": i, "start": 0, "end": 1, "text": f"w{i}"} for i in indices]


def doc(document, **answers):
    return {"document": document, **answers}


# One happy and one refused comparison for every field type (upload: none can be made).
CASES = {
    "choice": ("fits", "yes", "yes", "no"),
    "scale": ("grade", 1, 1.0, 2),
    "multi": ("kinds", ["implicit", "explicit"], ["explicit", "implicit"], ["explicit"]),
    "highlight": ("words", words(3, 1), words(1, 3), words(1)),
    "text": ("why", "  The  Pho ", "the pho", "pho"),
    "url_list": ("sources", [{"title": "A", "url": "HTTPS://Example.org/a/"}],
                 [{"title": "Other title", "url": "https://example.org/a"}],
                 [{"title": "A", "url": "https://example.org/b"}]),
    "bbox": ("spot", [box(10, 10, 20, 20)], [box(11, 10, 20, 20)], [box(60, 60, 20, 20)]),
    "pick_one": ("best", {"choice": "sys-b", "order": ["sys-b", "sys-a"]},
                 {"choice": "sys-b", "order": ["sys-a", "sys-b"]}, {"choice": "sys-a", "order": ["sys-a", "sys-b"]}),
    "per_document": ("docs", [doc("d2", topic="no"), doc("d1", topic="yes")],
                     [doc("d1", topic="yes"), doc("d2", topic="no")], [doc("d1", topic="yes"), doc("d2", topic="yes")]),
}  # fmt: skip


def test_every_field_type_is_compared_or_says_why_it_cannot_be():
    comparisons = {"pairwise", "best_worst", "rank"}  # no gold for a comparison of images yet
    assert set(CASES) | {"upload"} | comparisons == set(FIELD_TYPES)
    compared = parse_spec({"fields": [{"key": name, "type": name} for name in sorted(comparisons)]})
    assert [f.kind.gold_problem(f) for f in compared.fields] == [
        f"a {f.type} field cannot have a gold answer (not yet)" for f in compared.fields
    ]
    comparable = {f.type for f in SPEC.fields if f.kind.gold_problem(f) is None}
    assert comparable == set(CASES)
    assert "supplies their own image" in F["photo"].kind.gold_problem(F["photo"])


@pytest.mark.parametrize("type_name", sorted(CASES))
def test_each_type_matches_the_gold_answer_and_refuses_another(type_name):
    key, given, gold, other = CASES[type_name]
    assert gold_match(F[key], given, gold)
    assert not gold_match(F[key], other, gold)


@pytest.mark.parametrize("key", sorted(F))
def test_no_answer_matches_only_no_answer(key):
    assert gold_match(F[key], None, None)
    assert gold_match(F[key], [], None)
    assert not gold_match(F[key], "yes", None)
    assert not gold_match(F[key], None, "yes")


# --- choice and pick_one: exactly -------------------------------------------------------------


def test_a_choice_compares_by_its_form_token():
    assert gold_match(F["fits"], "yes", "yes")
    assert not gold_match(F["fits"], "Yes", "yes")


def test_a_pick_one_gold_may_be_the_bare_candidate_id():
    assert gold_match(F["best"], {"choice": "sys-a", "order": ["sys-b", "sys-a"]}, "sys-a")
    assert not gold_match(F["best"], {"choice": "sys-b", "order": []}, "sys-a")


# --- scale: within a difference ---------------------------------------------------------------


@pytest.mark.parametrize(("given", "gold", "tolerance", "matches"), [
    (1, 1, None, True),
    (0.5, 1, None, False),
    (0.5, 1, 0.5, True),  # exactly the tolerance
    (0, 1, 0.5, False),
    (3, 2, 1, True),
    (0, 2, 1.999, False),
    (0, 0, 0, True),
])  # fmt: skip
def test_a_scale_point_matches_within_the_tolerance_edge_included(given, gold, tolerance, matches):
    assert gold_match(F["grade"], given, gold, tolerance) is matches


def test_a_scale_tolerance_met_exactly_survives_floating_point():
    assert 1.1 - 0.2 > 0.9  # what the engine must not be fooled by
    assert gold_match(F["odd"], 1.1, 0.2, 0.9)
    assert not gold_match(F["odd"], 1.1, 0.2, 0.89)


def test_a_scale_answer_that_is_no_number_matches_nothing():
    assert not gold_match(F["grade"], "1", 1, 5)
    assert not gold_match(F["grade"], True, 1, 5)


# --- multi: the same set, or a Jaccard overlap ------------------------------------------------


@pytest.mark.parametrize(("given", "tolerance", "matches"), [
    (["explicit", "implicit"], None, True),
    (["explicit"], None, False),
    (["explicit"], 0.5, True),  # 1 shared of 2: exactly 0.5
    (["explicit"], 0.51, False),
    (["explicit", "implicit", "none"], 2 / 3, True),  # 2 of 3, a share float arithmetic must not lose
    (["none"], 0.1, False),
])  # fmt: skip
def test_multi_compares_sets_or_their_jaccard_overlap(given, tolerance, matches):
    assert gold_match(F["kinds"], given, ["implicit", "explicit"], tolerance) is matches


def test_multi_with_nothing_ticked_matches_a_gold_of_nothing():
    assert gold_match(F["kinds"], [], [])
    assert not gold_match(F["kinds"], [], ["none"], 0.5)


# --- text: normalised, or one of several ------------------------------------------------------


def test_text_is_compared_normalised_case_space_and_unicode():
    assert normalised_text("  Ｐｈｏ\tBò\n ") == "pho bò"
    assert gold_match(F["why"], "ＰＨＯ  BÒ", "pho bò")
    assert gold_match(F["why"], "Stra\u00dfe", "STRASSE")  # case folding, not lower()
    assert not gold_match(F["why"], "pho bo", "pho bò")


def test_text_matches_any_of_several_accepted_answers():
    assert gold_match(F["why"], "Kyiv", ["Kiev", "kyiv"])
    assert not gold_match(F["why"], "Lviv", ["Kiev", "Kyiv"])


# --- highlight: the same words, or an F1 ------------------------------------------------------


@pytest.mark.parametrize(("given", "tolerance", "matches"), [
    (words(1, 2), None, True),
    (words(1), None, False),
    (words(1, 5, 6), 0.4, True),  # F1 = 2·1 / (3 + 2) = 0.4 exactly
    (words(1, 5, 6), 0.41, False),
    (words(1), 2 / 3, True),  # 2·1 / (1 + 2)
    (words(7), 0.01, False),
])  # fmt: skip
def test_highlight_compares_token_indices_or_their_f1(given, tolerance, matches):
    assert gold_match(F["words"], given, words(1, 2), tolerance) is matches


def test_a_highlight_gold_may_be_bare_token_indices():
    assert gold_match(F["words"], words(4, 2), [2, 4])


# --- bbox: an IoU, boxes paired one to one ----------------------------------------------------


def test_box_iou():
    assert box_iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1
    assert box_iou((0, 0, 10, 10), (10, 0, 10, 10)) == 0  # touching
    assert box_iou((0, 0, 10, 10), (0, 0, 5, 10)) == 0.5
    assert box_iou((0, 0, 0, 0), (0, 0, 0, 0)) == 0


@pytest.mark.parametrize(("given", "tolerance", "matches"), [
    ([box(0, 0, 20, 10)], None, True),  # inside, half its area: IoU exactly 0.5, the default
    ([box(0, 0, 21, 10)], None, False),  # 10·10 / 21·10 < 0.5
    ([box(0, 0, 10, 10)], 0.9, True),
    ([box(0, 0, 20, 10)], 0.5, True),
    ([box(0, 0, 20, 10)], 0.51, False),
    ([box(50, 50, 10, 10)], 0.01, False),
])  # fmt: skip
def test_a_box_matches_its_gold_box_at_the_iou_threshold_edge_included(given, tolerance, matches):
    assert gold_match(F["spot"], given, [box(0, 0, 10, 10)], tolerance) is matches


def test_several_boxes_match_one_to_one_whatever_their_order():
    gold = [box(0, 0, 10, 10), box(50, 50, 10, 10)]
    assert gold_match(F["spot"], [box(51, 50, 10, 10), box(1, 0, 10, 10)], gold)
    # both given boxes fit the first gold box only: the second gold box is left unpaired
    assert not gold_match(F["spot"], [box(0, 0, 10, 10), box(1, 1, 10, 10)], gold)
    assert not gold_match(F["spot"], [box(0, 0, 10, 10)], gold)  # one box missing
    assert not gold_match(F["spot"], [*gold, box(80, 80, 10, 10)], gold)  # one box too many


def test_the_pairing_finds_a_matching_a_greedy_choice_would_miss():
    # the first given box fits both gold boxes, the second only the first: it must take the second
    fits = {("a", 1), ("a", 2), ("b", 1)}
    assert one_to_one(["a", "b"], [1, 2], lambda g, e: (g, e) in fits)
    assert not one_to_one(["b", "b"], [1, 2], lambda g, e: (g, e) in fits)


def test_boxes_compare_by_pixels_when_a_side_has_no_shares():
    assert gold_match(F["spot"], [box(0, 0, 10, 10)], [[0, 0, 10, 10]])
    assert not gold_match(F["spot"], [box(0, 0, 10, 10)], [[40, 40, 10, 10]])
    assert not gold_match(F["spot"], [{"x": "a"}], [[0, 0, 10, 10]])  # unreadable: no match


def test_boxes_on_each_annotators_own_upload_cannot_have_gold():
    assert "their own image" in F["drawn"].kind.gold_problem(F["drawn"])
    assert F["spot"].kind.gold_problem(F["spot"]) is None


# --- per_document: document by document -------------------------------------------------------


GOLD_DOCS = [doc("d1", topic="yes"), doc("d2", topic="no")]


@pytest.mark.parametrize(("given", "tolerance", "matches"), [
    ([doc("d1", topic="yes", note="x"), doc("d2", topic="no")], None, True),  # the note has no gold
    ([doc("d1", topic="yes"), doc("d2", topic="yes")], None, False),
    ([doc("d1", topic="yes"), doc("d2", topic="yes")], 0.5, True),  # 1 of 2: exactly the share
    ([doc("d1", topic="yes"), doc("d2", topic="yes")], 0.51, False),
    ([doc("d1", topic="yes")], 0.5, True),  # d2 not answered: not matched
    ([doc("d3", topic="yes"), doc("d4", topic="no")], 0.5, False),  # other documents
])  # fmt: skip
def test_per_document_answers_match_document_by_document(given, tolerance, matches):
    assert gold_match(F["docs"], given, GOLD_DOCS, tolerance) is matches


def test_a_per_document_gold_compares_the_sub_fields_it_names_texts_normalised():
    gold = [doc("d1", topic="yes", note="Same Place")]
    assert gold_match(F["docs"], [doc("d1", topic="yes", note="same  place")], gold)
    assert not gold_match(F["docs"], [doc("d1", topic="yes")], gold)  # the note the gold has is missing


# --- url_list: the addresses ------------------------------------------------------------------


def test_url_lists_compare_their_addresses_not_titles_nor_order():
    gold = [{"title": "A", "url": "https://example.org/a"}, {"title": "B", "url": "https://example.org/b?x=1"}]
    given = [{"title": "b", "url": "https://EXAMPLE.org/b?x=1#top"}, {"title": "a", "url": "https://example.org/a/"}]
    assert gold_match(F["sources"], given, gold)
    assert not gold_match(F["sources"], given[:1], gold)
    assert gold_match(F["sources"], given[:1], gold, 0.5)  # 1 of 2: exactly the overlap
    assert not gold_match(F["sources"], given[:1], gold, 0.6)
    assert not gold_match(F["sources"], [{"title": "B", "url": "https://example.org/b?x=2"}], gold[1:])


# --- a gold item's answers as a whole ---------------------------------------------------------


def test_gold_check_compares_the_fields_the_gold_names_that_can_have_gold():
    given = {"fits": "yes", "grade": 2, "photo": {"sha256": "x"}, "why": "Pho"}
    gold = {"fits": "yes", "grade": 3, "photo": {"sha256": "y"}}
    check = gold_check(SPEC, given, gold, {"grade": 1})
    assert check == GoldCheck(compared=("fits", "grade"), matched=("fits", "grade")) and check.passed
    strict = gold_check(SPEC, given, gold)  # this protocol sets no tolerance
    assert strict.matched == ("fits",) and not strict.passed
    assert gold_accuracy([check, strict]) == 0.5
    assert gold_accuracy([]) is None


def test_gold_check_takes_the_tolerances_of_the_protocol():
    spec = parse_spec({"fields": FIELDS, "quality": {"gold": {"rate": 0.1, "tolerance": {"grade": 1}}}})
    assert gold_check(spec, {"grade": 2}, {"grade": 3}).passed
    assert not gold_check(spec, {"grade": 1}, {"grade": 3}).passed


def test_an_attention_check_passes_on_the_instructed_answers_without_the_gold_tolerances():
    spec = parse_spec({"fields": FIELDS, "quality": {"gold": {"rate": 0.1, "tolerance": {"grade": 1}}}})
    assert check_passed(spec, {"fits": "no", "grade": 3, "why": "anything"}, {"grade": 3})
    assert not check_passed(spec, {"grade": 2}, {"grade": 3})  # within the gold tolerance, not the instruction
    assert not check_passed(spec, {}, {"fits": "no"})


def test_a_gold_answer_names_fields_that_can_have_gold():
    assert gold_answer_problems(SPEC, {"fits": "yes", "spot": [box(0, 0, 10, 10)]}) == []
    assert gold_answer_problems(SPEC, {"ghost": 1, "photo": {}, "drawn": []}) == [
        "field 'ghost': no such field in this protocol",
        "field 'photo': an upload field cannot have a gold answer: each annotator supplies their own image",
        "field 'drawn': a bbox field over an upload cannot have a gold answer: each annotator draws on their own image",
    ]
    assert gold_answer_problems(SPEC, {}) == ["a gold answer names at least one field"]
    assert gold_answer_problems(SPEC, ["yes"]) == ["a gold answer is an object of answers by field key"]


# --- tolerances in the spec -------------------------------------------------------------------


def tolerance_errors(**tolerance):
    with pytest.raises(SpecError) as caught:
        parse_spec({"fields": FIELDS, "quality": {"gold": {"rate": 0.1, "tolerance": tolerance}}})
    return caught.value.errors


@pytest.mark.parametrize(("key", "tolerance", "says"), [
    ("fits", 1, "compared exactly"),
    ("best", 0.5, "compared exactly"),
    ("why", 0.9, "compared exactly"),
    ("photo", 0.5, "cannot have a gold answer"),
    ("drawn", 0.5, "cannot have a gold answer"),
    ("grade", -1, "a number ≥ 0"),
    ("grade", "1", "a number ≥ 0"),
    ("grade", True, "a number ≥ 0"),
    ("spot", 0, "a number in (0, 1]"),
    ("spot", 1.5, "a number in (0, 1]"),
    ("kinds", "half", "a number in (0, 1]"),
    ("words", 0, "a number in (0, 1]"),
    ("docs", 2, "a number in (0, 1]"),
    ("sources", -0.5, "a number in (0, 1]"),
])  # fmt: skip
def test_a_tolerance_that_does_not_fit_its_field_is_refused_naming_the_field(key, tolerance, says):
    (error,) = tolerance_errors(**{key: tolerance})
    assert error.startswith(f"quality.gold.tolerance.{key}: field '{key}' ({F[key].type}): ") and says in error


def test_a_tolerance_for_no_field_is_refused():
    (error,) = tolerance_errors(ghost=1)
    assert error == "quality.gold.tolerance.ghost: no field 'ghost' in this protocol"


@pytest.mark.parametrize(("key", "tolerance"), [
    ("grade", 0), ("grade", 1.5), ("spot", 1), ("spot", 0.5), ("kinds", 0.5), ("words", 1), ("docs", 0.5),
    ("sources", 1),
])  # fmt: skip
def test_a_tolerance_that_fits_is_kept(key, tolerance):
    spec = parse_spec({"fields": FIELDS, "quality": {"gold": {"rate": 0.2, "tolerance": {key: tolerance}}}})
    assert spec.quality.gold.tolerance_for(key) == tolerance
    assert spec.quality.gold.tolerance_for("fits") is None

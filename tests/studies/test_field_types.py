"""Each field type owns what depends on its type: export cells, review text, value domain, form
value, imported value, item parts. Pure: no database, no Django."""

from pathlib import Path

import pytest

from studies.protocol import (
    FIELD_SCRIPTS,
    FIELD_TYPES,
    CandidateRef,
    Choice,
    DocumentRef,
    FieldType,
    ItemContext,
    ShownAnswer,
    UploadRef,
    answer_token,
    parse_spec,
    validate,
)

ROOT = Path(__file__).resolve().parents[2]
YES_NO = [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]
SPEC = parse_spec({"fields": [
    {"key": "grade", "type": "scale", "level": "ordinal",
     "choices": [{"value": 5, "label": "Best"}, {"value": 1, "label": "Worst"}, {"value": 3, "label": "Middle"}]},
    {"key": "fits", "type": "choice", "level": "nominal", "choices": [*YES_NO, {"value": "maybe", "label": "Maybe"}]},
    {"key": "errors", "type": "multi", "level": "nominal", "required": False,
     "choices": [{"value": "explicit", "label": "Explicit"}, {"value": "implicit", "label": "Implicit"}]},
    {"key": "words", "type": "highlight", "over": "prompt", "required": False},
    {"key": "why", "type": "text", "required": False},
    {"key": "sources", "type": "url_list", "required": False},
    {"key": "photo", "type": "upload"},
    {"key": "box", "type": "bbox", "over": "photo"},
    {"key": "spot", "type": "bbox", "over": "image", "required": False},
    {"key": "best", "type": "pick_one", "level": "nominal"},
    {"key": "docs", "type": "per_document", "fields": [{"key": "topic", "type": "choice", "choices": YES_NO}]},
]})
F = {f.key: f for f in SPEC.fields}
CANDIDATES = (CandidateRef("sys-a", "A bowl of pho."), CandidateRef("sys-b", "Soup."))
CTX = ItemContext(texts={"prompt": "A red lantern"}, candidates=CANDIDATES)
UPLOAD = {"upload": "tok-1", "width": 640, "height": 480, "sha256": "ab12", "name": "lantern.jpg"}
BOXES = [{"x": 10, "y": 20, "w": 30, "h": 40, "nx": 0.1, "ny": 0.2, "nw": 0.3, "nh": 0.4, "area_ratio": 0.0039}]


# --- the registry -----------------------------------------------------------------------------


def test_the_registry_holds_each_type_under_its_name_in_spec_order():
    assert list(FIELD_TYPES) == [
        "scale", "choice", "multi", "highlight", "text", "url_list", "upload", "bbox", "pick_one", "per_document",
        "pairwise", "best_worst", "rank",
    ]
    assert all(isinstance(t, FieldType) and FIELD_TYPES[t.name] is t for t in FIELD_TYPES.values())


def test_a_field_knows_its_kind():
    assert F["box"].kind is FIELD_TYPES["bbox"]
    assert F["docs"].kind.container and not any(f.kind.container for f in SPEC.fields if f.key != "docs")


@pytest.mark.parametrize("name", list(FIELD_TYPES))
def test_each_type_has_its_form_template(name):
    assert (ROOT / "templates" / "annotation" / "fields" / f"_{name}.html").is_file()


def test_the_item_page_scripts_come_from_the_types_and_exist():
    assert set(FIELD_SCRIPTS) == {
        "annotation/upload.js", "annotation/bbox.js", "annotation/url_list.js", "annotation/compare.js",
    }
    assert len(FIELD_SCRIPTS) == len(set(FIELD_SCRIPTS))  # the three comparisons' one script, once
    assert all((ROOT / "static" / script).is_file() for script in FIELD_SCRIPTS)


def test_the_item_page_loads_only_the_scripts_of_the_types_a_protocol_uses_once_each_in_registry_order():
    assert SPEC.scripts() == ("annotation/url_list.js", "annotation/upload.js", "annotation/bbox.js")
    boxes = parse_spec({"fields": [
        {"key": "spot", "type": "bbox", "over": "image"},
        {"key": "more", "type": "bbox", "over": "image", "required": False},
        {"key": "photo", "type": "upload", "required": False}]})
    assert boxes.scripts() == ("annotation/upload.js", "annotation/bbox.js")
    plain = parse_spec({"fields": [{"key": "fits", "type": "choice", "choices": YES_NO}]})
    assert plain.scripts() == ()
    assert set(FIELD_SCRIPTS) >= {s for spec in (SPEC, boxes) for s in spec.scripts()}


def test_the_conditions_script_comes_first_where_a_field_has_a_condition_sub_fields_included():
    shown_if = parse_spec({"fields": [
        {"key": "fits", "type": "choice", "choices": YES_NO},
        {"key": "sources", "type": "url_list", "show_if": {"field": "fits", "eq": "no"}}]})
    assert shown_if.scripts() == ("annotation/conditions.js", "annotation/url_list.js")
    nested = parse_spec({"fields": [{"key": "docs", "type": "per_document", "fields": [
        {"key": "topic", "type": "choice", "choices": YES_NO},
        {"key": "why", "type": "text", "required": False, "required_if": {"field": "topic", "eq": "no"}}]}]})
    assert nested.scripts() == ("annotation/conditions.js",)
    assert (ROOT / "static" / "annotation" / "conditions.js").is_file()


def test_the_item_page_names_the_keys_of_the_types_a_protocol_uses_sub_fields_included():
    known = {"numbers", "words", "boxes", "typing"}
    assert all(t.shortcuts <= known for t in FIELD_TYPES.values())
    assert SPEC.shortcuts() == known
    nested = parse_spec({"fields": [{"key": "docs", "type": "per_document", "fields": [
        {"key": "fits", "type": "choice", "level": "nominal", "choices": YES_NO}]},
        {"key": "note", "type": "text", "required": False}]})
    assert nested.shortcuts() == {"numbers", "typing"}


def test_an_unknown_type_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown type 'stars' \(known: scale, choice, multi, highlight"):
        parse_spec({"fields": [{"key": "x", "type": "stars"}]})


# --- item parts -------------------------------------------------------------------------------


def test_item_parts_come_from_the_fields_that_need_them():
    assert F["spot"].kind.item_parts(F["spot"]) == {"image"}
    assert F["box"].kind.item_parts(F["box"]) == set()  # drawn on the upload, not the item's image
    assert SPEC.item_parts() == {"image", "uploads", "candidates", "documents"}


def test_a_protocol_of_plain_questions_needs_no_item_part():
    assert parse_spec({"fields": [{"key": "why", "type": "text"}]}).item_parts() == set()


# --- required messages ------------------------------------------------------------------------


def test_each_type_says_what_a_blank_required_field_lacks():
    errors = validate(SPEC, {}, CTX).errors
    assert errors["grade"] == "This question needs an answer."
    assert errors["photo"] == "Upload an image."
    assert errors["box"] == "Draw a box on the image."
    assert F["words"].kind.required_message(F["words"]) == "Select the words."
    assert F["why"].kind.required_message(F["why"]) == "Write an answer."
    assert F["sources"].kind.required_message(F["sources"]) == "Give at least one article."


def test_a_spec_s_own_required_message_wins():
    spec = parse_spec({"fields": [{"key": "why", "type": "text", "required_message": "Tell us why."}]})
    assert validate(spec, {}, CTX).errors == {"why": "Tell us why."}


# --- export cells -----------------------------------------------------------------------------


@pytest.mark.parametrize("key, value, cells", [
    ("grade", 3, {"grade": "3"}),
    ("grade", 2.0, {"grade": "2"}),
    ("fits", True, {"fits": "true"}),
    ("errors", ["explicit", "implicit"], {"errors": "explicit|implicit"}),
    ("words", [{"index": 1, "text": "red"}, {"index": 2, "text": "lantern"}],
     {"words": "red|lantern", "words_indices": "1|2"}),
    ("why", "Ça va", {"why": "Ça va"}),
    ("sources", [{"title": "Lanterns", "url": "https://e.org", "extra": 1}],
     {"sources": '[{"title":"Lanterns","url":"https://e.org"}]'}),
    ("photo", UPLOAD,
     {"photo_sha256": "ab12", "photo_width": "640", "photo_height": "480", "photo_name": "lantern.jpg"}),
    ("box", BOXES, {"box": '[{"x":10,"y":20,"w":30,"h":40}]', "box_count": "1"}),
    ("best", {"choice": "sys-b", "order": ["sys-b", "sys-a"]}, {"best": "sys-b", "best_order": "sys-b|sys-a"}),
    ("docs", [{"document": 1}, {"document": 2}], {"docs_documents": "2"}),
])
def test_each_type_exports_its_own_cells(key, value, cells):
    f = F[key]
    assert f.kind.export_cells(f, value) == cells
    assert list(cells) == [c for c in f.kind.export_columns(f) if c in cells]


@pytest.mark.parametrize("key", list(F))
def test_no_answer_gives_no_cell(key):
    assert F[key].kind.export_cells(F[key], None) == {}


@pytest.mark.parametrize("key, value, cells", [
    ("words", "not a list", {"words": "", "words_indices": ""}),
    ("box", [{"x": 1}, "junk"], {"box": '[{"x":1,"y":null,"w":null,"h":null}]', "box_count": "1"}),
    ("photo", "tok-1", {"photo_sha256": "", "photo_width": "", "photo_height": "", "photo_name": ""}),
    ("best", "sys-a", {"best": "sys-a", "best_order": ""}),
    ("best", {"choice": "sys-a", "order": "sys-a"}, {"best": "sys-a", "best_order": ""}),
    ("docs", {"document": 1}, {"docs_documents": ""}),
])
def test_a_malformed_answer_exports_what_can_be_read(key, value, cells):
    assert F[key].kind.export_cells(F[key], value) == cells


def test_the_columns_of_each_type():
    assert [c for f in SPEC.fields for c in f.kind.export_columns(f)] == [
        "grade", "fits", "errors", "words", "words_indices", "why", "sources",
        "photo_sha256", "photo_width", "photo_height", "photo_name", "box", "box_count", "spot", "spot_count",
        "best", "best_order", "docs_documents",
    ]


# --- the review page's text -------------------------------------------------------------------


@pytest.mark.parametrize("key, value, shown", [
    ("grade", 5, ShownAnswer("Best")),
    ("fits", "maybe", ShownAnswer("Maybe")),
    ("errors", ["implicit", "explicit"], ShownAnswer("Implicit, Explicit")),
    ("errors", [], ShownAnswer("none")),
    ("words", [{"text": "red"}, {"text": "lantern"}], ShownAnswer("red · lantern")),
    ("words", [], ShownAnswer("no words")),
    ("why", "Because.", ShownAnswer("Because.")),
    ("sources", [{"title": "Lanterns", "url": "https://e.org"}], ShownAnswer("", (("Lanterns", "https://e.org"),))),
    ("sources", [], ShownAnswer("none")),
    ("photo", UPLOAD, ShownAnswer("lantern.jpg (640×480 px)", upload="tok-1")),
    ("box", BOXES, ShownAnswer("box at (10, 20), 30×40 px, 0% of the image")),
    ("box", [], ShownAnswer("no box")),
    ("best", {"choice": "sys-a", "order": ["sys-a", "sys-b"]}, ShownAnswer("A bowl of pho.")),
])
def test_each_type_shows_an_answer_as_text(key, value, shown):
    assert F[key].kind.show_answer(F[key], value, candidates=CANDIDATES) == shown


@pytest.mark.parametrize("key, value, text", [
    ("fits", "gone", "gone"),  # a choice removed since: its value
    ("photo", "tok-1", "tok-1"),  # not an upload object: as it is
    ("box", {"x": 1}, "{'x': 1}"),
    ("best", {"choice": "sys-z"}, "sys-z"),  # not a candidate of the item: its id
])
def test_an_answer_the_type_cannot_read_is_shown_as_it_is(key, value, text):
    shown = F[key].kind.show_answer(F[key], value, candidates=CANDIDATES)
    assert shown.text == text and shown.upload == ""


# --- agreement: domain and token --------------------------------------------------------------


def test_a_scale_s_domain_is_its_points_by_value_and_a_choice_s_its_spec_order():
    assert [c.value for c in F["grade"].kind.domain(F["grade"])] == [1, 3, 5]
    assert [c.token for c in F["fits"].kind.domain(F["fits"])] == ["yes", "no", "maybe"]


@pytest.mark.parametrize("key", ["errors", "why", "best", "box", "docs"])
def test_other_types_have_no_fixed_domain(key):
    assert F[key].kind.domain(F[key]) is None


def test_answer_tokens_compare_the_candidate_chosen_and_sets_in_choice_order():
    assert answer_token(F["best"], {"choice": "sys-b", "order": ["sys-b", "sys-a"]}) == "sys-b"
    assert answer_token(F["errors"], ["implicit", "explicit"]) == "explicit|implicit"
    assert answer_token(F["grade"], 3.0) == "3"


@pytest.mark.parametrize("value", [None, [], ""])
def test_no_answer_has_no_token(value):
    assert answer_token(F["best"], value) is None


def test_the_caption_note_of_a_pick_one_names_what_its_agreement_compares():
    assert F["best"].kind.agreement_note == "the candidate chosen"
    assert F["fits"].kind.agreement_note == ""


# --- the review form --------------------------------------------------------------------------


@pytest.mark.parametrize("key, value, posted", [
    ("grade", 3.0, ["3"]),
    ("errors", ["explicit", "implicit"], ["explicit", "implicit"]),
    ("best", {"choice": "sys-a", "order": ["sys-a", "sys-b"]}, ["sys-a"]),
    ("best", "sys-a", []),  # not a pick_one answer: nothing to pre-set
    ("fits", None, []),
])
def test_a_stored_answer_is_posted_as_the_form_would(key, value, posted):
    assert F[key].kind.form_values(F[key], value) == posted


def test_a_pick_one_offers_the_candidates_in_the_order_shown_and_others_their_choices():
    options = F["best"].kind.options(F["best"], CANDIDATES[::-1])
    assert options == (Choice("sys-b", "Soup."), Choice("sys-a", "A bowl of pho."))
    assert [c.label for c in F["fits"].kind.options(F["fits"], CANDIDATES)] == ["Yes", "No", "Maybe"]
    assert F["errors"].kind.multiple and not F["fits"].kind.multiple


# --- imported values --------------------------------------------------------------------------


@pytest.mark.parametrize("key, cell, value", [
    ("grade", "3", 3),
    ("fits", " yes ", "yes"),
    ("errors", "implicit| explicit", ["implicit", "explicit"]),
    ("why", "  Because.  ", "Because."),
    ("best", "sys-b", {"choice": "sys-b", "order": []}),  # the order shown is not known
])
def test_a_csv_cell_is_read_by_the_type(key, cell, value):
    assert F[key].kind.importable
    assert F[key].kind.import_value(F[key], cell, CTX) == value


@pytest.mark.parametrize("key, cell, message", [
    ("fits", "perhaps", "Choose one of the options."),
    ("errors", "explicit|other", "Tick only the options shown."),
    ("best", "sys-z", "'sys-z' is not a candidate of this item (sys-a, sys-b)"),
    ("box", "[[1, 2, 3, 4]]", "bbox fields cannot be carried in one cell"),
    ("photo", "tok-1", "upload fields cannot be carried in one cell"),
])
def test_a_cell_the_type_cannot_read_is_refused_with_the_reason(key, cell, message):
    with pytest.raises(ValueError) as exc:
        F[key].kind.import_value(F[key], cell, CTX)
    assert str(exc.value) == message


def test_a_pick_one_cell_of_an_item_without_candidates_says_none():
    with pytest.raises(ValueError, match=r"\(none\)$"):
        F["best"].kind.import_value(F["best"], "sys-a", ItemContext())


@pytest.mark.parametrize("key", ["words", "sources", "photo", "box", "docs"])
def test_types_a_cell_cannot_carry_are_not_importable(key):
    assert not F[key].kind.importable


# --- what other modules ask -------------------------------------------------------------------


def test_the_answer_kinds_other_modules_ask_about():
    assert [f.key for f in SPEC.fields if f.kind.categorical] == ["fits"]  # a scale is a number, not a category
    assert [f.key for f in SPEC.fields if f.kind.numeric] == ["grade"]
    assert [f.key for f in SPEC.fields if f.kind.free_text] == ["why"]


def test_the_form_reads_a_type_s_posted_values():
    upload = UploadRef("tok-1", 640, 480, "ab12", "l.jpg")
    ctx = ItemContext(texts={"prompt": "A red lantern"}, uploads={"tok-1": upload}, documents=[DocumentRef(7, "Doc")])
    assert [t.text for t in F["words"].kind.tokens(F["words"], ctx)] == ["A", "red", "lantern"]
    assert F["why"].kind.tokens(F["why"], ctx) == []
    assert F["docs"].kind.raw_from({"docs": ["x"]}, "docs") == []  # its sub-fields post, not itself

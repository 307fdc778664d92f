"""Spec validation for the engine's newer types and settings: each error names the field it is in."""

import pytest

from studies.protocol import DocumentRef, ItemContext, SpecError, parse_spec, validate

UPLOAD = {"key": "photo", "type": "upload"}
YES_NO = [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]


def errors_of(spec: dict) -> list[str]:
    with pytest.raises(SpecError) as exc:
        parse_spec(spec)
    return exc.value.errors


def assert_error(spec: dict, message: str):
    errors = errors_of(spec)
    assert any(e.startswith(message) for e in errors), errors


@pytest.mark.parametrize(
    "fields, message",
    [
        # bbox
        ([UPLOAD, {"key": "box", "type": "bbox"}],
         "field 'box': a bbox field needs 'over': \"image\" or the key of an earlier upload field"),
        ([{"key": "box", "type": "bbox", "over": "photo"}, UPLOAD],
         "field 'box': a bbox field needs 'over'"),
        ([{"key": "note", "type": "text"}, {"key": "box", "type": "bbox", "over": "note"}],
         "field 'box': a bbox field needs 'over'"),
        ([{"key": "box", "type": "bbox", "over": "image", "max_area_ratio": 1.5}],
         "field 'box': 'max_area_ratio' must be a number in (0, 1]"),
        ([{"key": "box", "type": "bbox", "over": "image", "max_area_ratio": 0}],
         "field 'box': 'max_area_ratio' must be a number in (0, 1]"),
        ([{"key": "box", "type": "bbox", "over": "image", "max_area_ratio": "0.3"}],
         "field 'box': 'max_area_ratio' must be a number in (0, 1]"),
        ([{"key": "box", "type": "bbox", "over": "image", "min_side": -0.01}],
         "field 'box': 'min_side' must be a number in [0, 1)"),
        ([{"key": "box", "type": "bbox", "over": "image", "min_side": 1}],
         "field 'box': 'min_side' must be a number in [0, 1)"),
        ([{"key": "box", "type": "bbox", "over": "image", "min_side": "0.02"}],
         "field 'box': 'min_side' must be a number in [0, 1)"),
        ([{"key": "box", "type": "bbox", "over": "image", "min_side": True}],
         "field 'box': 'min_side' must be a number in [0, 1)"),
        ([{"key": "box", "type": "bbox", "over": "image", "min_side": 0.5, "max_area_ratio": 0.25}],
         "field 'box': 'min_side' 0.5 makes every box cover at least 25.00% of the image, but 'max_area_ratio' "
         "asks for less than 25.00%: no box could pass"),
        ([{"key": "box", "type": "bbox", "over": "image", "max": -1}],
         "field 'box': 'max' must be a whole number ≥ 0"),
        ([{"key": "box", "type": "bbox", "over": "image", "level": "interval"}],
         "field 'box': level 'interval' does not fit a bbox field (allowed: none)"),
        # per_document
        ([{"key": "documents", "type": "per_document"}],
         "field 'documents': 'fields' must be a non-empty list"),
        ([{"key": "documents", "type": "per_document"}],
         "field 'documents': a per_document field needs 'fields'"),
        ([{"key": "documents", "type": "per_document", "fields": [
            {"key": "inner", "type": "per_document", "fields": [{"key": "x", "type": "text"}]}]}],
         "field 'documents' field 'inner': per_document fields cannot be nested"),
        ([{"key": "caption_ok", "type": "choice", "choices": YES_NO},
          {"key": "documents", "type": "per_document", "fields": [
              {"key": "topic", "type": "choice", "choices": YES_NO, "show_if": {"field": "caption_ok", "eq": "yes"}}]}],
         "field 'documents' field 'topic' show_if: refers to 'caption_ok', which is not an earlier field"),
        ([{"key": "documents", "type": "per_document", "fields": [
            {"key": "why", "type": "text", "required_if": {"field": "topic", "eq": "no"}},
            {"key": "topic", "type": "choice", "choices": YES_NO}]}],
         "field 'documents' field 'why' required_if: refers to 'topic', which is not an earlier field"),
        ([{"key": "documents", "type": "per_document", "fields": [{"key": "topic", "type": "choice"}]}],
         "field 'documents' field 'topic': a choice field needs at least one choice"),
        ([{"key": "documents", "type": "per_document", "level": "nominal", "fields": [{"key": "x", "type": "text"}]}],
         "field 'documents': level 'nominal' does not fit a per_document field"),
        # pick_one, upload, url_list, text
        ([{"key": "best", "type": "pick_one", "level": "interval"}],
         "field 'best': level 'interval' does not fit a pick_one field (allowed: nominal)"),
        ([{"key": "photo", "type": "upload", "level": "nominal"}],
         "field 'photo': level 'nominal' does not fit an upload field"),
        ([{"key": "missing", "type": "url_list", "max": 2.5}],
         "field 'missing': 'max' must be a whole number ≥ 0"),
        ([{"key": "answer", "type": "text", "max_words": -3}],
         "field 'answer': 'max_words' must be a whole number ≥ 0"),
        ([{"key": "answer", "type": "text", "min_words": True}],
         "field 'answer': 'min_words' must be a whole number ≥ 0"),
        # settings
        ([{"key": "answer", "type": "text", "colour": "red"}],
         "field 'answer': unknown setting(s) colour"),
        ([{"key": "answer", "type": "text", "show_if": {"field": "answer", "eq": "x"}}],
         "field 'answer' show_if: refers to 'answer', which is not an earlier field"),
    ],
)
def test_it_names_the_field_of_each_spec_error(fields, message):
    assert_error({"fields": fields}, message)


def test_it_refuses_an_unknown_display_item():
    assert_error({"fields": [UPLOAD], "display": {"show": ["image", "video"]}}, "display: cannot show 'video'")
    assert_error({"fields": [UPLOAD], "display": {"collapsed": ["footnote"]}}, "display: cannot show 'footnote'")


def test_it_refuses_an_unknown_display_setting():
    assert_error({"fields": [UPLOAD], "display": {"noun": "Image", "zoom": True}}, "display: an object with")


@pytest.mark.parametrize(
    "skip", [{"label": "Skip"}, {"reasons": []}, {"reasons": [""]}, {"reasons": "Not relevant"}, []]
)
def test_it_refuses_a_skip_without_reasons(skip):
    assert_error({"fields": [UPLOAD], "skip": skip}, "skip: needs 'reasons', a non-empty list of texts")


def test_it_refuses_an_unknown_top_level_setting():
    assert_error({"fields": [UPLOAD], "layout": "grid", "timer": 30}, "unknown protocol setting(s) layout, timer")


def test_it_reports_every_problem_at_once():
    errors = errors_of({
        "fields": [
            {"key": "box", "type": "bbox", "max_area_ratio": 2},
            {"key": "best", "type": "pick_one", "level": "ordinal"},
        ],
        "skip": {},
    })
    assert len(errors) == 4, errors


# --- what the new types accept -------------------------------------------------------------------


def test_it_accepts_a_box_over_the_item_image_or_an_earlier_upload():
    parse_spec({"fields": [{"key": "box", "type": "bbox", "over": "image", "max_area_ratio": 1}]})
    parse_spec({"fields": [UPLOAD, {"key": "box", "type": "bbox", "over": "photo", "max_area_ratio": 0.3}]})
    parse_spec({"fields": [{"key": "box", "type": "bbox", "over": "image", "min_side": 0}]})
    parse_spec({"fields": [{"key": "box", "type": "bbox", "over": "image", "min_side": 0.5, "max_area_ratio": 0.26}]})


def test_sub_fields_may_depend_on_an_earlier_sibling():
    spec = parse_spec({"fields": [{"key": "documents", "type": "per_document", "fields": [
        {"key": "country", "type": "choice", "choices": YES_NO},
        {"key": "why", "type": "text", "show_if": {"field": "country", "eq": "no"}},
    ]}]})
    ctx = ItemContext(documents=[DocumentRef(1, "Sushi"), DocumentRef(2, "Rice")])
    data = {
        "documents.0.country": ["yes"], "documents.0.why": ["Hidden: never stored."],
        "documents.1.country": ["no"], "documents.1.why": ["A general topic."],
    }
    result = validate(spec, data, ctx)
    assert result.ok, result.errors
    assert result.answers == {"documents": [
        {"document": 1, "country": "yes"},
        {"document": 2, "country": "no", "why": "A general topic."},
    ]}
    missing = validate(spec, {"documents.0.country": ["yes"], "documents.1.country": ["no"]}, ctx)
    assert missing.errors == {"documents.1.why": "Write an answer."}


def test_a_per_document_field_with_no_documents_stores_an_empty_list():
    spec = parse_spec({"fields": [{"key": "documents", "type": "per_document", "fields": [
        {"key": "country", "type": "choice", "choices": YES_NO}]}]})
    assert validate(spec, {}, ItemContext()).answers == {"documents": []}


def test_a_skip_reason_is_refused_when_the_protocol_has_no_skip():
    spec = parse_spec({"fields": [{"key": "answer", "type": "text"}]})
    result = validate(spec, {"_skip": ["Not relevant"]}, ItemContext())
    assert result.errors == {"answer": "Write an answer."}

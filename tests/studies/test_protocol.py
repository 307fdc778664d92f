import json

import pytest

from studies.protocol import ItemContext, SpecError, evaluate, parse_spec, tokenize, validate
from studies.services import preset_load
from tests.factories import valid_answers

PROMPT = ItemContext(texts={"prompt": "A family sharing a meal at a festival"})


@pytest.fixture(scope="module")
def spec():
    return parse_spec(preset_load("culturalframes-rating"))


def test_it_accepts_a_complete_rating(spec):
    result = validate(spec, valid_answers(), PROMPT)
    assert result.ok
    assert result.answers["alignment"] == 0.5
    assert result.answers["words"] == [{"index": 1, "start": 2, "end": 8, "text": "family"}]


def test_it_drops_fields_hidden_by_their_condition(spec):
    result = validate(spec, valid_answers(alignment="1"), PROMPT)
    assert result.ok
    assert "error_types" not in result.answers and "words" not in result.answers
    assert "explanation" not in result.answers


def test_it_requires_an_error_type_below_full_alignment(spec):
    result = validate(spec, valid_answers(error_types=[]), PROMPT)
    assert result.errors["error_types"] == "Tick at least one: explicit, implicit, or both."
    assert result.answers == {}


def test_it_requires_words_when_explicit_is_ticked(spec):
    result = validate(spec, valid_answers(words=[]), PROMPT)
    assert "words" in result.errors


def test_words_are_optional_for_implicit_errors(spec):
    result = validate(spec, valid_answers(error_types="implicit", words=[]), PROMPT)
    assert result.ok and "words" not in result.answers


def test_it_refuses_a_word_outside_the_prompt(spec):
    assert validate(spec, valid_answers(words="99"), PROMPT).errors["words"] == "Select words of the text shown."
    assert "words" in validate(spec, valid_answers(words="x"), PROMPT).errors


def test_it_requires_a_description_of_a_stereotype(spec):
    result = validate(spec, valid_answers(stereotype="yes"), PROMPT)
    assert result.errors["stereotype_description"] == "Describe the stereotype you see."
    ok = validate(spec, valid_answers(stereotype="yes", stereotype_description="Everyone wears costumes."), PROMPT)
    assert ok.ok


def test_it_refuses_a_value_off_the_scale(spec):
    assert validate(spec, valid_answers(overall="6"), PROMPT).errors["overall"] == "Choose one of the options."
    assert "quality" in validate(spec, valid_answers(quality="0.7"), PROMPT).errors


def test_it_refuses_a_too_short_explanation(spec):
    result = validate(spec, valid_answers(explanation="bad"), PROMPT)
    assert result.errors["explanation"] == "Write at least 10 characters."


def test_it_reports_every_missing_answer(spec):
    result = validate(spec, {}, PROMPT)
    assert set(result.errors) == {"alignment", "stereotype", "quality", "overall"}


@pytest.mark.parametrize(
    "condition, values, expected",
    [
        ({"field": "a", "eq": 1}, {"a": 1}, True),
        ({"field": "a", "ne": 1}, {"a": 2}, True),
        ({"field": "a", "lt": 1}, {"a": 0.5}, True),
        ({"field": "a", "le": 1}, {"a": 1}, True),
        ({"field": "a", "gt": 1}, {"a": 1}, False),
        ({"field": "a", "ge": 1}, {"a": 1}, True),
        ({"field": "a", "in": ["x", "y"]}, {"a": "y"}, True),
        ({"field": "a", "contains": "x"}, {"a": ["x"]}, True),
        ({"field": "a", "lt": 1}, {}, False),
        ({"field": "a", "lt": 1}, {"a": "text"}, False),
        ({"all": [{"field": "a", "eq": 1}, {"field": "b", "eq": 2}]}, {"a": 1, "b": 3}, False),
        ({"any": [{"field": "a", "eq": 1}, {"field": "b", "eq": 2}]}, {"a": 0, "b": 2}, True),
    ],
)
def test_conditions(condition, values, expected):
    assert evaluate(condition, values) is expected


@pytest.mark.parametrize(
    "fields, message",
    [
        ([{"key": "a", "type": "stars"}], "field 'a': unknown type 'stars'"),
        ([{"key": "a", "type": "text"}, {"key": "a", "type": "text"}], "field 'a': duplicate key"),
        ([{"key": "a", "type": "choice", "choices": []}], "field 'a': a choice field needs at least one choice"),
        ([{"key": "a", "type": "text", "show_if": {"field": "b", "eq": 1}}, {"key": "b", "type": "text"}],
         "field 'a' show_if: refers to 'b', which is not an earlier field"),
        ([{"key": "a", "type": "text", "level": "ordinal"}], "field 'a': level 'ordinal' does not fit a text field"),
        ([{"key": "a", "type": "scale", "choices": ["low", "high"]}],
         "field 'a': every point of a scale must be a number"),
        ([{"key": "a", "type": "highlight"}], "field 'a': a highlight field needs 'over'"),
        ([{"key": "A b", "type": "text"}], "field #1: 'key' must be lowercase"),
    ],
)
def test_it_names_the_field_of_each_spec_error(fields, message):
    with pytest.raises(SpecError) as exc:
        parse_spec({"fields": fields})
    assert any(e.startswith(message) for e in exc.value.errors), exc.value.errors


@pytest.mark.parametrize("type_", [["text"], {"name": "text"}])
def test_a_type_that_is_no_text_is_an_unknown_type(type_):
    # A list or an object cannot be looked up among the types: a SpecError naming it, not a TypeError.
    with pytest.raises(SpecError) as exc:
        parse_spec({"fields": [{"key": "a", "type": type_}]})
    assert exc.value.errors[0].startswith(f"field 'a': unknown type {type_!r}"), exc.value.errors


def test_it_refuses_a_spec_without_fields():
    with pytest.raises(SpecError):
        parse_spec({"fields": []})
    with pytest.raises(SpecError):
        parse_spec(json.loads("[]"))


def test_tokenize_keeps_offsets_and_apostrophes():
    tokens = tokenize("A child's kite, flying.")
    assert [t.text for t in tokens] == ["A", "child's", "kite", "flying"]
    assert tokens[2].start == 10 and tokens[2].end == 14


def test_analysable_fields_carry_their_level(spec):
    assert [(f.key, f.level) for f in spec.analysable()] == [
        ("alignment", "ordinal"), ("stereotype", "nominal"), ("quality", "ordinal"), ("overall", "ordinal")
    ]


def test_a_collapsed_part_must_be_shown():
    spec = {"fields": [{"key": "a", "type": "text"}], "display": {"show": ["image"], "collapsed": ["background"]}}
    with pytest.raises(SpecError) as exc:
        parse_spec(spec)
    assert exc.value.errors == ["display: 'background' is collapsed but not shown (add it to 'show')"]


def test_messages_use_the_right_article():
    with pytest.raises(SpecError) as exc:
        parse_spec({"fields": [{"key": "u", "type": "upload", "level": "nominal"}]})
    assert "does not fit an upload field" in exc.value.errors[0]


@pytest.mark.parametrize(
    "field, message",
    [
        ({"key": "d", "type": "per_document", "fields": [{"key": "document", "type": "text"}]},
         "field 'd': 'document' is reserved for the document's id"),
        ({"key": "d", "type": "per_document", "fields": [{"key": "a", "type": "text"}], "score": {"yes": "many"}},
         "field 'd': 'score' maps answer values to numbers"),
        ({"key": "t", "type": "text", "score": {"yes": 1}}, "field 't': 'score' belongs on per_document fields"),
    ],
)
def test_per_document_settings_are_checked(field, message):
    with pytest.raises(SpecError) as exc:
        parse_spec({"fields": [field]})
    assert any(e.startswith(message) for e in exc.value.errors), exc.value.errors


def test_a_study_may_set_its_own_document_score():
    from exports.csv_layout import layout_for
    from stats.versions import ProtocolSet

    yes_no = [{"value": "yes"}, {"value": "no"}]
    spec = parse_spec({"fields": [{
        "key": "docs", "type": "per_document", "score": {"yes": 2, "no": 0},
        "fields": [{"key": "a", "type": "choice", "choices": yes_no},
                   {"key": "b", "type": "choice", "choices": yes_no}],
    }]})
    layout = layout_for(ProtocolSet(current=spec, current_version=1))
    assert layout.scorer({"a": "yes", "b": "yes"}, spec.fields[0].fields) == 4

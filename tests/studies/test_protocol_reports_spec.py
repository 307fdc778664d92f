"""The ``reports`` setting of a protocol spec: each kind's roles, checked by parse_spec."""

import pytest

from studies.protocol import SpecError, parse_spec
from studies.protocol.reports import REPORT_KINDS
from studies.services import preset_get
from tests.factories import PRESET_NAMES as NAMES

FIELDS = [
    {"key": "rating", "type": "scale", "label": "Rating", "choices": [1, 2, 3], "level": "ordinal"},
    {"key": "quality", "type": "scale", "label": "Quality", "choices": [0, 0.5, 1], "level": "ordinal"},
    {"key": "fits", "type": "choice", "label": "Fits?", "choices": ["yes", "no"]},
    {"key": "kinds", "type": "multi", "label": "Kinds", "choices": ["explicit", "implicit"], "required": False},
    {"key": "words", "type": "highlight", "label": "Words", "over": "prompt", "required": False},
    {"key": "answer", "type": "text", "label": "Answer"},
]


def spec(*reports):
    return {"fields": FIELDS, "reports": list(reports)}


def errors_of(*reports) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_spec(spec(*reports))
    return caught.value.errors


def test_a_protocol_without_reports_declares_none():
    assert parse_spec({"fields": FIELDS}).reports == ()


def test_it_parses_each_report_with_its_roles_and_a_default_title():
    protocol = parse_spec(spec(
        {"kind": "human_scores", "value": "rating"},
        {"kind": "prompt_filter", "vote": "fits"},
        {"kind": "criteria_spearman", "criteria": ["rating", "quality"], "title": "Criteria"},
        {"kind": "error_types", "alignment": "quality", "error_types": "kinds"},
        {"kind": "highlighted_words", "words": "words"},
        {"kind": "answer_agreement", "answer": "answer"},
    ))
    human, vote, criteria, *_ = protocol.reports
    assert (human.kind, human.key("value"), human.title) == (
        "human_scores", "rating", REPORT_KINDS["human_scores"].title
    )
    assert vote.option("min_yes") == 2
    assert criteria.key("criteria") == ("rating", "quality") and criteria.title == "Criteria"
    assert criteria.fields == {"criteria": ["rating", "quality"]}


def test_it_names_an_unknown_kind():
    (error,) = errors_of({"kind": "histogram", "value": "rating"})
    assert error.startswith("report #1 (histogram): unknown kind 'histogram'") and "human_scores" in error


@pytest.mark.parametrize("kind", [["human_scores"], {"kind": "human_scores"}])
def test_a_kind_that_is_no_text_is_an_unknown_kind(kind):
    # A list or an object cannot be looked up among the kinds: a SpecError naming it, not a TypeError.
    (error,) = errors_of({"kind": kind, "value": "rating"})
    assert error.startswith(f"report #1 ({kind}): unknown kind {kind!r}")


def test_it_names_the_report_and_the_missing_role():
    (error,) = errors_of({"kind": "human_scores", "value": "rating"}, {"kind": "error_types", "alignment": "quality"})
    assert error.startswith("report #2 (error_types): missing role 'error_types'")


def test_it_names_the_role_of_an_unknown_field():
    (error,) = errors_of({"kind": "human_scores", "value": "relevance"})
    assert error == "report #1 (human_scores): role 'value' names unknown field 'relevance'"


def test_it_names_the_role_of_a_field_of_the_wrong_type():
    (error,) = errors_of({"kind": "prompt_filter", "vote": "rating"})
    assert error == "report #1 (prompt_filter): role 'vote' needs a choice field; 'rating' is scale"


def test_criteria_need_two_scale_keys():
    assert errors_of({"kind": "criteria_spearman", "criteria": ["rating"]}) == [
        "report #1 (criteria_spearman): role 'criteria' must be a list of at least 2 field keys"
    ]
    assert errors_of({"kind": "criteria_spearman", "criteria": ["rating", "fits"]}) == [
        "report #1 (criteria_spearman): role 'criteria' needs a scale field; 'fits' is choice"
    ]


def test_it_refuses_unknown_settings_and_bad_options():
    errors = errors_of({"kind": "prompt_filter", "vote": "fits", "min_yes": 0, "colour": "red"})
    assert any(e.startswith("report #1 (prompt_filter): unknown setting(s) colour") for e in errors)
    assert "report #1 (prompt_filter): 'min_yes' must be a whole number ≥ 1" in errors


def test_an_optional_role_may_be_left_out_but_must_fit_when_given():
    fields = [
        {"key": "photo", "type": "upload", "label": "Photo"},
        {"key": "box", "type": "bbox", "label": "Box", "over": "photo"},
    ]
    box_only = parse_spec({"fields": fields, "reports": [{"kind": "box_agreement", "box": "box"}]})
    assert box_only.reports[0].key("image") is None
    with pytest.raises(SpecError) as caught:
        parse_spec({"fields": fields, "reports": [{"kind": "box_agreement", "box": "box", "image": "box"}]})
    assert caught.value.errors == ["report #1 (box_agreement): role 'image' needs an upload field; 'box' is bbox"]


def test_a_protocol_version_fits_a_report_when_it_has_each_named_field_of_a_fitting_type():
    fields = [
        {"key": "photo", "type": "upload", "label": "Photo"},
        {"key": "box", "type": "bbox", "label": "Box", "over": "photo"},
    ]
    on_the_item = {"key": "box", "type": "bbox", "label": "Box", "over": "image"}
    kind = REPORT_KINDS["box_agreement"]
    with_image, without = parse_spec({"fields": fields, "reports": [
        {"kind": "box_agreement", "box": "box", "image": "photo"}, {"kind": "box_agreement", "box": "box"}]}).reports

    def version(*fields):
        return parse_spec({"fields": list(fields)}).fields

    assert kind.fits(with_image, version(*fields))
    assert not kind.fits(with_image, version(on_the_item))  # an older version without the photo
    assert kind.fits(without, version(on_the_item))  # the optional role was left out
    assert not kind.fits(with_image, version({"key": "photo", "type": "text", "label": "Photo"}, on_the_item))
    assert (with_image.keys("image"), without.keys("image"), with_image.keys("box")) == (("photo",), (), ("box",))


def test_reports_must_be_a_list_of_objects():
    with pytest.raises(SpecError, match="reports: must be a list"):
        parse_spec({"fields": FIELDS, "reports": {"kind": "human_scores"}})
    assert errors_of("human_scores") == ["report #1: must be an object with a 'kind'"]


EXPECTED = {
    "caire-relevance": [("human_scores", {"value": "relevance"})],
    "culturalframes-prompt-filter": [("prompt_filter", {"vote": "fits_culture"})],
    "culturalframes-rating": [
        ("error_types", {"alignment": "alignment", "error_types": "error_types"}),
        ("highlighted_words", {"words": "words"}),
        ("criteria_spearman", {"criteria": ["alignment", "quality", "overall"]}),
        ("human_scores", {"value": "overall"}),
    ],
    "ravenea-doc-relevance": [("document_scores", {"documents": "documents"})],
    "ravenea-caption-choice": [("caption_wins", {"choice": "best_caption"})],
    "globalrg-grounding": [("box_agreement", {"box": "box", "image": "photo"})],
    "culturalvqa-question": [],
    "culturalvqa-answer": [("answer_agreement", {"answer": "answer"})],
    "culturalvqa-judgment": [("human_scores", {"value": "judgment"})],
    "culturalframes-pairwise": [],  # its ranking of the models is the analysis's comparisons part
    "culturalframes-best-worst": [],
}


@pytest.mark.parametrize("name", NAMES)
def test_every_preset_declares_what_its_paper_reports(name):
    protocol = parse_spec(preset_get(name).protocol)
    assert [(r.kind, r.fields) for r in protocol.reports] == EXPECTED[name]

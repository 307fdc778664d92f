"""RAVENEA's combined score: pure, no database."""

import pytest

from stats.scores import DEFAULT_MAPPING, combined_score, scored_fields
from studies.protocol import parse_spec

SUBS = parse_spec(
    {
        "fields": [
            {
                "key": "docs",
                "type": "per_document",
                "fields": [
                    {"key": "country", "type": "choice", "choices": ["yes", "no", "cannot_determine"]},
                    {"key": "topic", "type": "choice",
                     "choices": [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]},
                    {"key": "visual", "type": "choice", "choices": ["yes", "no"]},
                    {"key": "confidence", "type": "scale", "choices": [1, 2, 3]},
                    {"key": "kind", "type": "choice", "choices": ["yes", "no", "maybe"]},
                    {"key": "note", "type": "text", "required": False},
                ],
            }
        ]
    }
).fields[0].fields


def test_it_scores_the_yes_no_questions_only():
    assert [f.key for f in scored_fields(SUBS)] == ["country", "topic", "visual"]


@pytest.mark.parametrize(
    ("country", "topic", "visual", "score"),
    [
        ("yes", "yes", "yes", 3),
        ("no", "no", "no", -3),
        ("cannot_determine", "yes", "no", 0),
        ("cannot_determine", "yes", "yes", 2),
        ("yes", "no", "yes", 1),
    ],
)
def test_it_sums_yes_plus_one_no_minus_one_cannot_determine_zero(country, topic, visual, score):
    answers = {"document": 7, "country": country, "topic": topic, "visual": visual, "confidence": 3, "kind": "maybe"}
    assert combined_score(answers, SUBS) == score


def test_it_has_no_score_when_an_answer_is_missing():
    assert combined_score({"country": "yes", "topic": "yes"}, SUBS) is None
    assert combined_score({"country": "yes", "topic": "yes", "visual": "perhaps"}, SUBS) is None


def test_it_has_no_score_without_yes_no_questions():
    assert combined_score({"confidence": 3}, [f for f in SUBS if f.key == "confidence"]) is None


def test_it_takes_another_mapping():
    mapping = {"Yes": 2, "No": 0, "Cannot determine": 1}  # spelled as a researcher might
    answers = {"country": "cannot_determine", "topic": "yes", "visual": "no"}
    assert combined_score(answers, SUBS, mapping) == 3
    assert combined_score(answers, SUBS, {"yes": 0.5, "no": -0.5, "cannot_determine": 0}) == 0


def test_it_reads_other_spellings_of_cannot_be_determined():
    fields = parse_spec(
        {"fields": [{"key": "c", "type": "choice", "choices": ["yes", "no", "cannot_be_determined"]}]}
    ).fields
    assert [f.key for f in scored_fields(fields)] == ["c"]
    assert combined_score({"c": "cannot_be_determined"}, fields) == 0


def test_the_default_mapping_is_yes_no_cannot_determine():
    assert dict(DEFAULT_MAPPING) == {"yes": 1, "no": -1, "cannot_determine": 0}


def test_the_ravenea_preset_scores_its_three_document_questions():
    from studies.services import preset_load

    try:
        spec = preset_load("ravenea-doc-relevance")
    except ValueError:
        pytest.skip("the ravenea-doc-relevance preset is not there yet")
    documents = next(f for f in parse_spec(spec).fields if f.type == "per_document")
    assert len(scored_fields(documents.fields)) == 3

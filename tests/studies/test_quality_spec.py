"""The ``quality`` setting of a protocol spec, and the decisions it drives: each key checked by
parse_spec with the key named; warnings, the end of a session, speed flags. Pure: no database."""

import pytest

from studies.protocol import SpecError, parse_spec, spec_pretty, spec_read
from studies.protocol.quality import (
    CONTINUE,
    END,
    WARN,
    Attention,
    Gold,
    Outcomes,
    Quality,
    Speed,
    check_outcome,
    gold_count,
    least_failures_to_end,
    outcome_rule_problem,
    too_fast,
)
from studies.services import preset_get
from tests.factories import PRESET_NAMES

FIELDS = [
    {"key": "rating", "type": "scale", "level": "ordinal", "choices": [1, 2, 3, 4, 5]},
    {"key": "spot", "type": "bbox", "over": "image", "required": False},
]
FULL = {
    "attention": {"on": True, "placement": "random", "count": 3},
    "gold": {"rate": 0.1, "tolerance": {"rating": 1, "spot": 0.6}},
    "speed": {"min_seconds": 2.5, "median_share": 0.25},
    "outcomes": {"warnings": 1, "failures": 2},
    "estimated_minutes": 12,
}


def quality_of(quality):
    return parse_spec({"fields": FIELDS, "quality": quality}).quality


def errors_of(quality) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_spec({"fields": FIELDS, "quality": quality})
    return caught.value.errors


def test_a_spec_without_quality_control_has_it_all_off():
    quality = parse_spec({"fields": FIELDS}).quality
    assert quality == Quality() and not quality.on
    assert not (quality.attention.on or quality.gold.on or quality.speed.on)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_still_parses_with_quality_control_off(name):
    assert not parse_spec(preset_get(name).protocol).quality.on


def test_it_parses_every_part():
    quality = quality_of(FULL)
    assert quality == Quality(
        attention=Attention(on=True, placement="random", count=3),
        gold=Gold(rate=0.1, tolerance=(("rating", 1), ("spot", 0.6))),
        speed=Speed(min_seconds=2.5, median_share=0.25),
        outcomes=Outcomes(warnings=1, failures=2),
        estimated_minutes=12,
    )
    assert quality.on


def test_an_attention_section_is_on_unless_it_says_off():
    assert quality_of({"attention": {"placement": "every", "every": 8}}).attention == Attention(
        on=True, placement="every", every=8
    )
    assert quality_of({"attention": {"on": False}}).attention.on is False
    assert quality_of({"attention": {}}).attention == Attention(on=True, placement="random", count=2)
    assert quality_of(None) == Quality()


def test_a_short_study_may_end_a_session_on_one_failed_check():
    quality = quality_of({"attention": {"count": 1}, "outcomes": {"warnings": 0, "failures": 1},
                          "estimated_minutes": 4.5})
    assert quality.outcomes == Outcomes(warnings=0, failures=1)


@pytest.mark.parametrize(("quality", "key", "says"), [
    ([], "quality", "must be an object"),
    ({"checks": {}}, "quality", "unknown setting(s) checks"),
    ({"attention": {"on": "yes"}}, "quality.attention.on", "true or false"),
    ({"attention": {"placement": "sometimes"}}, "quality.attention.placement", "random, every"),
    ({"attention": {"count": 0}}, "quality.attention.count", "whole number ≥ 1"),
    ({"attention": {"count": 2.0}}, "quality.attention.count", "whole number ≥ 1"),
    ({"attention": {"placement": "every", "every": 0}}, "quality.attention.every", "whole number ≥ 1"),
    ({"attention": {"placement": "every", "count": 2}}, "quality.attention.count", "belongs to placement"),
    ({"attention": {"placement": "random", "every": 5}}, "quality.attention.every", "belongs to placement"),
    ({"attention": {"count": 1}}, "quality.attention.count", "can never reach the 2 failed checks"),
    ({"attention": {"seldom": 1}}, "quality.attention", "unknown setting(s) seldom"),
    ({"gold": {"rate": 0.6}}, "quality.gold.rate", "from 0 to 0.5"),
    ({"gold": {"rate": -0.1}}, "quality.gold.rate", "from 0 to 0.5"),
    ({"gold": {"rate": "10%"}}, "quality.gold.rate", "from 0 to 0.5"),
    ({"gold": {"tolerance": [1]}}, "quality.gold.tolerance", "by field key"),
    ({"gold": {"tolerance": {"rating": -1}}}, "quality.gold.tolerance.rating", "number ≥ 0"),
    ({"gold": {"tolerance": {"spot": 0}}}, "quality.gold.tolerance.spot", "(0, 1]"),
    ({"gold": 0.1}, "quality.gold", "must be an object"),
    ({"speed": {"min_seconds": 0}}, "quality.speed.min_seconds", "> 0"),
    ({"speed": {"min_seconds": "3"}}, "quality.speed.min_seconds", "> 0"),
    ({"speed": {"median_share": 0}}, "quality.speed.median_share", "(0, 1]"),
    ({"speed": {"median_share": 1.5}}, "quality.speed.median_share", "(0, 1]"),
    ({"speed": {"max_seconds": 100}}, "quality.speed", "unknown setting(s) max_seconds"),
    ({"outcomes": {"warnings": 2}}, "quality.outcomes.warnings", "0 or 1"),
    ({"outcomes": {"warnings": True}}, "quality.outcomes.warnings", "0 or 1"),
    ({"outcomes": {"failures": 3}}, "quality.outcomes.failures", "1 or 2"),
    ({"outcomes": {"failures": 0}}, "quality.outcomes.failures", "1 or 2"),
    ({"outcomes": {"warnings": 0, "failures": 1}, "estimated_minutes": 5}, "quality.outcomes.failures",
     "only after 2 failed checks"),
    ({"outcomes": {"warnings": 0, "failures": 1}}, "quality.outcomes.failures", "of unknown length"),
    ({"outcomes": {"warnings": 1, "failures": 1}, "estimated_minutes": 3}, "quality.outcomes.warnings",
     "must be 0"),
    ({"estimated_minutes": 0}, "quality.estimated_minutes", "> 0"),
    ({"estimated_minutes": "ten"}, "quality.estimated_minutes", "> 0"),
])  # fmt: skip
def test_a_bad_value_is_refused_naming_its_key(quality, key, says):
    errors = errors_of(quality)
    assert any(e.startswith(f"{key}: ") and says in e for e in errors), errors


def test_a_problem_is_named_once():
    assert errors_of({"attention": {"count": 0}}) == [
        "quality.attention.count: must be a whole number ≥ 1 (checks in each session)"
    ]


def test_every_problem_is_named_at_once():
    errors = errors_of({"gold": {"rate": 1}, "speed": {"min_seconds": -1}, "estimated_minutes": -2})
    assert [e.split(":")[0] for e in errors] == [
        "quality.estimated_minutes", "quality.gold.rate", "quality.speed.min_seconds"
    ]


def test_the_editor_reads_each_problem_at_its_key():
    read = spec_read('{"fields": [{"key": "a", "type": "text"}], "quality": {"gold": {"rate": 2}}}')
    (problem,) = read.problems
    assert problem.where == "quality.gold.rate" and problem.message.startswith("must be a number from 0 to 0.5")


def test_the_spec_round_trips_through_the_editor_with_quality_after_the_reports():
    spec = {"quality": {"estimated_minutes": 12, "outcomes": FULL["outcomes"], "speed": FULL["speed"],
                        "gold": FULL["gold"], "attention": {"count": 3, "placement": "random", "on": True}},
            "fields": FIELDS, "title": "Rated"}
    text = spec_pretty(spec)
    read = spec_read(text)
    assert read.ok and read.data == spec and read.protocol.quality == quality_of(FULL)
    assert list(read.data) == ["title", "fields", "quality"]
    assert list(read.data["quality"]) == ["attention", "gold", "speed", "outcomes", "estimated_minutes"]
    assert list(read.data["quality"]["attention"]) == ["on", "placement", "count"]


# --- the rules --------------------------------------------------------------------------------


@pytest.mark.parametrize(("minutes", "least"), [(1, 1), (4.99, 1), (5, 2), (30, 2), (None, 2)])
def test_prolific_lets_only_a_study_under_five_minutes_end_on_one_failed_check(minutes, least):
    assert least_failures_to_end(minutes) == least
    assert (outcome_rule_problem(Outcomes(warnings=0, failures=1), minutes) is None) == (least == 1)
    assert outcome_rule_problem(Outcomes(failures=2), minutes) is None


@pytest.mark.parametrize(("outcomes", "decisions"), [
    (Outcomes(warnings=1, failures=2), [CONTINUE, WARN, END, END]),
    (Outcomes(warnings=0, failures=2), [CONTINUE, CONTINUE, END, END]),
    (Outcomes(warnings=0, failures=1), [CONTINUE, END, END, END]),
])  # fmt: skip
def test_failed_checks_warn_once_then_end_the_session(outcomes, decisions):
    assert [check_outcome(outcomes, failed) for failed in range(4)] == decisions


@pytest.mark.parametrize(("seconds", "median", "flagged"), [
    (1.9, None, True),
    (2.0, None, False),  # exactly the threshold: not faster than it
    (2.5, 10.0, False),  # exactly a quarter of the median
    (2.4, 10.0, True),
    (3.0, 20.0, True),
    (30, None, False),
])  # fmt: skip
def test_an_answer_faster_than_a_threshold_is_flagged(seconds, median, flagged):
    assert too_fast(Speed(min_seconds=2, median_share=0.25), seconds, median) is flagged


def test_speed_checks_that_are_off_flag_nothing():
    assert not too_fast(Speed(), 0.1, 100)
    assert not too_fast(Speed(median_share=0.5), 0.1, None)  # no median yet
    assert too_fast(Speed(median_share=0.5), 4.9, 10)


@pytest.mark.parametrize(("rate", "items", "count"), [
    (0, 20, 0), (0.1, 20, 2), (0.1, 4, 0), (0.1, 5, 1), (0.5, 3, 2), (0.25, 10, 3), (0.2, 0, 0),
])  # fmt: skip
def test_gold_items_are_a_share_of_the_session_rounded_half_up(rate, items, count):
    assert gold_count(rate, items) == count

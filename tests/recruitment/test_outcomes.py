"""Every ending's completion code, checked in one table against Prolific's rules: who did not
qualify (no consent, not eligible, a failed practice test) is asked to return, a failed attention
check is reviewed (never rejected automatically), and the annotator's end page says the same."""

import pytest

from annotation.selectors import RETURNING
from recruitment.rules import completion_code_problems
from recruitment.services.body import OUTCOMES, completion_codes


def test_the_outcome_table_keeps_prolific_s_rules(study):
    for auto_approve in (False, True):
        codes = completion_codes(study, auto_approve=auto_approve)
        assert completion_code_problems(codes) == []
        assert len(codes) == len(OUTCOMES)


def test_a_failed_practice_test_is_asked_to_return_not_reviewed_as_an_attention_check(study):
    (failed,) = [o for o in OUTCOMES if o.key == "failed_mock"]
    assert failed.code_type == "OTHER"
    assert [a["action"] for a in failed.actions] == ["REQUEST_RETURN"]
    assert "practice test" in failed.actions[0]["return_reason"]


def test_the_end_page_asks_to_return_exactly_where_prolific_is_told_to():
    assert {o.key for o in OUTCOMES if o.returns} == set(RETURNING) == {"no_consent", "not_eligible", "failed_mock"}
    # a failed attention check and a completion are reviewed here
    by_key = {o.key: o for o in OUTCOMES}
    assert by_key["failed_check"].actions == ({"action": "MANUALLY_REVIEW"},)
    assert by_key["completed"].actions == ({"action": "MANUALLY_REVIEW"},)


@pytest.mark.parametrize(
    "code, problem",
    [
        ({"code_type": "FAILED_ATTENTION_CHECK", "actions": [{"action": "REQUEST_RETURN", "return_reason": "x"}]},
         "a FAILED_ATTENTION_CHECK code must MANUALLY_REVIEW"),
        ({"code_type": "NO_CONSENT", "actions": [{"action": "MANUALLY_REVIEW"}]},
         "a NO_CONSENT code must REQUEST_RETURN"),
        ({"code_type": "COMPLETED", "actions": [{"action": "REQUEST_RETURN", "return_reason": "x"}]},
         "a COMPLETED code must AUTOMATICALLY_APPROVE or MANUALLY_REVIEW"),
        ({"code_type": "SCREENED_OUT", "actions": []}, "'SCREENED_OUT' is not one of Prolific's code types"),
        ({"code_type": "OTHER", "actions": [{"action": "REQUEST_RETURN"}]}, "a request to return needs its reason"),
        ({"code_type": "OTHER", "actions": [{"action": "AUTOMATICALLY_APPROVE"}, {"action": "MANUALLY_REVIEW"}]},
         "approving automatically and reviewing exclude each other"),
        ({"code_type": "OTHER", "actions": [{"action": "PAY_TWICE"}]}, "unknown action(s) PAY_TWICE"),
    ],
)
def test_a_code_that_breaks_a_rule_is_named(code, problem):
    (said,) = completion_code_problems([{"code": "X1", **code}])
    assert said.startswith("X1: ") and problem in said


def test_a_code_used_twice_is_named():
    code = {"code": "SAME", "code_type": "OTHER", "actions": [{"action": "MANUALLY_REVIEW"}]}
    assert completion_code_problems([code, code]) == ["the code 'SAME' is used twice"]

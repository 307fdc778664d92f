"""The page's conditions (static/annotation/conditions.js) decide exactly as the server's
(studies.protocol.evaluate), on a table of cases run in Chromium."""

from pathlib import Path

import pytest

from studies.protocol import evaluate

pytestmark = pytest.mark.browser

CONDITIONS_JS = Path(__file__).resolve().parents[2] / "static" / "annotation" / "conditions.js"

CASES = [
    # eq / ne, and Python's equality of numbers
    ({"field": "a", "eq": 1}, {"a": 1}),
    ({"field": "a", "eq": 1}, {"a": 1.0}),
    ({"field": "a", "eq": 0.5}, {"a": 0.5}),
    ({"field": "a", "eq": 1}, {"a": "1"}),
    ({"field": "a", "eq": "yes"}, {"a": "yes"}),
    ({"field": "a", "eq": "yes"}, {"a": "Yes"}),
    ({"field": "a", "ne": "yes"}, {"a": "no"}),
    ({"field": "a", "ne": 1}, {"a": 1.0}),
    ({"field": "a", "ne": "yes"}, {}),
    # booleans: Python's True == 1 and False == 0
    ({"field": "a", "eq": True}, {"a": True}),
    ({"field": "a", "eq": True}, {"a": 1}),
    ({"field": "a", "eq": 1}, {"a": True}),
    ({"field": "a", "eq": False}, {"a": 0}),
    ({"field": "a", "ne": True}, {"a": 1}),
    ({"field": "a", "eq": True}, {"a": "true"}),
    ({"field": "a", "lt": 1}, {"a": False}),
    ({"field": "a", "ge": 0}, {"a": True}),
    # lt / le / gt / ge: numbers only
    ({"field": "a", "lt": 1}, {"a": 0.5}),
    ({"field": "a", "lt": 1}, {"a": 1}),
    ({"field": "a", "le": 1}, {"a": 1.0}),
    ({"field": "a", "gt": 1}, {"a": 1}),
    ({"field": "a", "gt": 0.5}, {"a": 1}),
    ({"field": "a", "ge": 3}, {"a": 3}),
    ({"field": "a", "ge": 3}, {"a": 2.9}),
    ({"field": "a", "lt": 1}, {"a": "0"}),
    ({"field": "a", "gt": 0}, {"a": [1]}),
    ({"field": "a", "lt": 1}, {}),
    # in / contains, over lists
    ({"field": "a", "in": ["yes", "no"]}, {"a": "no"}),
    ({"field": "a", "in": ["yes", "no"]}, {"a": "maybe"}),
    ({"field": "a", "in": [1, 2]}, {"a": 2.0}),
    ({"field": "a", "in": [1, 2]}, {"a": True}),
    ({"field": "a", "in": [[1, 2]]}, {"a": [1, 2]}),
    ({"field": "a", "in": ["a"]}, {}),
    ({"field": "a", "contains": "explicit"}, {"a": ["explicit", "implicit"]}),
    ({"field": "a", "contains": "explicit"}, {"a": ["implicit"]}),
    ({"field": "a", "contains": "explicit"}, {"a": "explicit"}),
    ({"field": "a", "contains": 1}, {"a": [1.0, 2]}),
    ({"field": "a", "contains": {"x": 1, "y": 2}}, {"a": [{"y": 2, "x": 1}]}),
    ({"field": "a", "contains": "x"}, {"a": []}),
    ({"field": "a", "contains": "x"}, {}),
    # lists and objects compared whole
    ({"field": "a", "eq": [1, 2]}, {"a": [1, 2]}),
    ({"field": "a", "eq": [1, 2]}, {"a": [2, 1]}),
    ({"field": "a", "eq": [1, True]}, {"a": [1.0, 1]}),
    ({"field": "a", "eq": {"choice": "x", "order": ["x", "y"]}}, {"a": {"order": ["x", "y"], "choice": "x"}}),
    ({"field": "a", "eq": {"k": 1}}, {"a": {"k": 1, "extra": 2}}),
    ({"field": "a", "eq": []}, {"a": []}),
    # all / any, nested, and missing fields
    ({"all": [{"field": "a", "lt": 1}, {"field": "b", "eq": "yes"}]}, {"a": 0.5, "b": "yes"}),
    ({"all": [{"field": "a", "lt": 1}, {"field": "b", "eq": "yes"}]}, {"a": 0.5}),
    ({"any": [{"field": "a", "lt": 1}, {"field": "b", "eq": "yes"}]}, {"b": "yes"}),
    ({"any": [{"field": "a", "lt": 1}, {"field": "b", "eq": "yes"}]}, {}),
    ({"all": [{"any": [{"field": "a", "eq": 1}, {"field": "a", "eq": 2}]}, {"field": "b", "ne": "no"}]},
     {"a": 2, "b": "yes"}),
    ({"any": [{"all": [{"field": "a", "ge": 1}, {"field": "b", "contains": "x"}]}, {"field": "c", "in": [True]}]},
     {"c": 1}),
    ({"any": [{"all": [{"field": "a", "ge": 1}, {"field": "b", "contains": "x"}]}, {"field": "c", "in": [True]}]},
     {"a": 1, "b": ["y"]}),
    ({"field": "constructor", "eq": "x"}, {}),
    ({"field": "a", "eq": "x"}, {"b": "x"}),
    (None, {}),
]


@pytest.fixture(scope="module")
def js_evaluate(browser):
    context = browser.new_context()
    page = context.new_page()
    page.add_script_tag(path=str(CONDITIONS_JS))
    yield lambda cases: page.evaluate(
        "cases => cases.map(([c, v]) => window.TesseraConditions.evaluate(c, v))", cases
    )
    context.close()


def test_the_table_covers_every_operator():
    used = {op for condition, _ in CASES for op in str(condition).split("'") if op in
            ("eq", "ne", "lt", "le", "gt", "ge", "in", "contains", "all", "any")}
    assert used == {"eq", "ne", "lt", "le", "gt", "ge", "in", "contains", "all", "any"}
    assert len(CASES) >= 30


def test_javascript_and_python_agree_on_every_case(js_evaluate):
    js = js_evaluate([[c, v] for c, v in CASES])
    differences = [(c, v, py, got) for (c, v), got in zip(CASES, js) if (py := evaluate(c, v)) != got]
    assert not differences, f"(condition, values, python, javascript): {differences}"

"""The item page's honest-effort counts: parsed strictly where they enter (``annotation.effort``), stored
with the annotation on both write paths, and never a reason to refuse a submit: malformed, oversized,
negative or unknown ones are stored as absent and the answer is kept."""

import json
from unittest.mock import patch

import pytest
from django.db import connection
from django.urls import reverse

from annotation.effort import FIELD, MAX_RAW, effort_parse, effort_summary, effort_totals
from annotation.models import Annotation, Assignment
from annotation.services import annotation_submit
from tests import factories as f
from tests.factories import valid_answers
from tests.helpers import as_annotator

HX = {"HTTP_HX_REQUEST": "true"}
GOOD = {"fields": {"explanation": {"pasted": 40, "typed": 3, "keys": 2, "burst": 40}}, "blurs": 1, "hidden_ms": 2500}


def test_it_parses_the_counts_the_page_sends():
    assert effort_parse(json.dumps(GOOD)) == GOOD


def test_missing_counts_are_zero():
    assert effort_parse('{"fields": {"why": {"typed": 5}}}') == {
        "fields": {"why": {"pasted": 0, "typed": 5, "keys": 0, "burst": 0}}, "blurs": 0, "hidden_ms": 0}


@pytest.mark.parametrize("raw", [
    None, "", "not json", "[1, 2]", '"text"',
    json.dumps({**GOOD, "blurs": -1}),
    json.dumps({**GOOD, "hidden_ms": 1.5}),
    json.dumps({**GOOD, "blurs": True}),
    json.dumps({**GOOD, "blurs": 10**12}),
    json.dumps({**GOOD, "text": "what they typed"}),
    json.dumps({"fields": {"why": {"pasted": 1, "content": "secret"}}}),
    json.dumps({"fields": {"why": {"pasted": "1"}}}),
    json.dumps({"fields": {"": {"pasted": 1}}}),
    json.dumps({"fields": {"x" * 121: {"pasted": 1}}}),
    json.dumps({"fields": {f"f{n}": {} for n in range(41)}}),
    json.dumps({"fields": ["why"]}),
    '{"blurs": 1, "pad": "' + "x" * MAX_RAW + '"}',
    "[" * 3000,  # nested past Python's recursion limit: refused, not a RecursionError
    '{"fields": {"why": {"pasted": [[1]]}}}',
])
def test_it_refuses_anything_else_as_absent(raw):
    assert effort_parse(raw) is None


def test_totals_and_a_checkers_summary():
    assert effort_totals(GOOD) == {"pasted_chars": 40, "typed_chars": 3, "focus_losses": 1, "hidden_seconds": 2.5}
    assert effort_totals(None)["pasted_chars"] is None
    assert effort_summary(GOOD)["mostly_pasted"] == 1
    assert effort_summary(None) is None


@pytest.fixture
def annotating(client, session, items):
    as_annotator(client, session)
    client.get(reverse("annotation:items"))
    return client


def post(client, session, extra):
    assignment = Assignment.objects.get(session=session, status=Assignment.Status.LEASED)
    return client.post(reverse("annotation:item-submit", args=[assignment.pk]), {**valid_answers(), **extra}, **HX)


def test_a_submit_stores_its_counts(annotating, session):
    response = post(annotating, session, {FIELD: json.dumps(GOOD)})
    assert response.status_code == 200 and "Image 2 of 3" in response.content.decode()
    assert Annotation.objects.get().effort == GOOD
    assert FIELD not in Annotation.objects.get().answers


@pytest.mark.parametrize("raw", ["{broken", json.dumps({**GOOD, "blurs": -3}), json.dumps({"keystrokes": "abc"}),
                                 "x" * (MAX_RAW + 1), "[" * 3000])
def test_a_submit_with_malformed_counts_is_kept_without_them(annotating, session, raw):
    response = post(annotating, session, {FIELD: raw})
    assert response.status_code == 200 and "Image 2 of 3" in response.content.decode()
    stored = Annotation.objects.get()
    assert stored.effort is None and stored.answers["overall"] == 3


def test_a_submit_without_counts_stores_none(annotating, session):
    assert post(annotating, session, {}).status_code == 200
    assert Annotation.objects.get().effort is None


def test_a_refused_submit_keeps_no_counts_in_its_draft(annotating, session):
    response = post(annotating, session, {FIELD: json.dumps(GOOD), "explanation": "meh"})
    assert response.status_code == 422
    assert FIELD not in Assignment.objects.get(session=session, status=Assignment.Status.LEASED).draft


@pytest.mark.parametrize("path", ["one statement", "orm"])
def test_both_write_paths_store_the_counts(pool, items, path):
    if path == "one statement" and connection.vendor != "postgresql":
        pytest.skip("one statement per write is PostgreSQL's path: set DATABASE_URL=postgres://…")
    one = path == "one statement"
    with patch("annotation.services.submit.one_round_trip", return_value=one), \
            patch("annotation.services.round_trips.one_round_trip", return_value=one):
        _, assignment = f.make_leased(pool)
        result = annotation_submit(assignment=assignment, data=valid_answers(), effort=GOOD)
        _, other = f.make_leased(pool)
        annotation_submit(assignment=other, data=valid_answers(), effort=None)
    assert result.annotation.effort == GOOD
    assert Annotation.objects.get(pk=result.annotation.pk).effort == GOOD
    assert Annotation.objects.get(assignment=other).effort is None

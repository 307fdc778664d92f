"""What a page of an assignment loads besides its texts (``annotation.context.shown_documents`` and
``shown_candidates``): the same for the item page, the review form and the submit's context."""

import pytest

from annotation.context import assignment_context, candidate_order, shown_candidates, shown_documents
from annotation.services import assignment_next
from tests import factories as f
from tests.factories import add_items, spec_study

pytestmark = pytest.mark.django_db

DOCUMENTS = [("Onam", "https://en.wikipedia.org/wiki/Onam", ""), ("Sadya", "https://en.wikipedia.org/wiki/Sadya", "")]
CANDIDATES = [{"id": f"sys-{n}", "text": f"Description {n}"} for n in range(6)]
CHOICE = {"key": "ok", "type": "choice", "level": "nominal", "label": "Fine?", "choices": ["yes", "no"]}
PER_DOCUMENT = {"key": "docs", "type": "per_document", "label": "Each article", "fields": [CHOICE]}
PICK_ONE = {"key": "best", "type": "pick_one", "level": "nominal", "label": "The best description"}


def assignment_of(display: dict, fields: list[dict]):
    study, pool = spec_study({"display": display, "fields": fields})
    add_items(study, 1, documents=DOCUMENTS, candidates=CANDIDATES)
    assignment = assignment_next(session=f.make_session(f.make_annotator(pool)))
    _ = assignment.item  # loaded with the assignment, as the pages do
    return assignment, study.spec


def test_a_page_that_shows_them_loads_the_documents_in_order_once_and_the_candidates_in_its_order(
    django_assert_num_queries,
):
    display = {"show": ["image", "documents", "candidates"], "collapsed": ["candidates"]}
    assignment, spec = assignment_of(display, [CHOICE])
    with django_assert_num_queries(1):  # the documents, read once for the context and the page
        assignment_context(assignment, spec)
        documents = shown_documents(assignment, spec)
        assert shown_documents(assignment, spec) == documents
    assert [d.title for d in documents] == ["Onam", "Sadya"]
    candidates = shown_candidates(assignment, spec)
    assert candidates == candidate_order(assignment)
    assert sorted(c["id"] for c in candidates) == [c["id"] for c in CANDIDATES]


def test_a_per_document_or_pick_one_field_loads_them_though_the_page_does_not_show_them(django_assert_num_queries):
    assignment, spec = assignment_of({"show": ["image"]}, [PER_DOCUMENT, PICK_ONE])
    with django_assert_num_queries(1):
        context = assignment_context(assignment, spec)
        documents = shown_documents(assignment, spec)
    assert [d.pk for d in documents] == [ref.id for ref in context.documents]
    assert shown_candidates(assignment, spec) == candidate_order(assignment)


def test_it_loads_neither_when_the_page_neither_shows_nor_asks_about_them(django_assert_num_queries):
    assignment, spec = assignment_of({"show": ["image", "prompt"]}, [CHOICE])
    with django_assert_num_queries(0):
        assert shown_documents(assignment, spec) == []
        assert shown_candidates(assignment, spec) == []

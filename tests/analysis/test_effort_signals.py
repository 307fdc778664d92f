"""The honest-effort signals where people review: the pool's annotators page (quality) and the checker's
review page, each labelled "for review only"; the consent page tells annotators what is counted.
Another researcher finds no annotators page (404)."""

import pytest
from django.urls import reverse

from annotation.models import Annotation
from annotation.services import annotation_submit, assignment_next
from tests import factories as f
from tests.helpers import login, review_url

COUNTS = {"fields": {"explanation": {"pasted": 40, "typed": 3, "keys": 2, "burst": 40}}, "blurs": 4,
          "hidden_ms": 12_000}
FOR_REVIEW = "for review only — never a reason to reject by itself"


def annotators_url(study, pool):
    return reverse("analysis:pool-annotators", args=[study.pk, pool.pk])


def row_of(page: str, annotator) -> str:
    return page.split(f'id="annotator-{annotator.pk}"')[1].split("</tr>")[0]


@pytest.fixture
def pasted(annotated):
    """The first annotator's first annotation mostly pasted, the page left four times."""
    Annotation.objects.filter(pk=annotated[0].pk).update(effort=COUNTS)
    return annotated[0]


def test_the_quality_page_shows_each_annotators_signals(client, owner, study, pool, pasted, annotated):
    page = login(client, owner).get(annotators_url(study, pool)).content.decode()
    assert FOR_REVIEW in page.lower().replace("</strong>", "").replace("<strong>", "")
    first = row_of(page, pasted.annotator)
    assert "93% of free text pasted" in first and "1 of 1 answer mostly pasted" in first
    assert "Left the page 4.0 times per item, 12 s hidden" in first
    # the factory's annotators give the same ratings on every item: straight-lined
    assert "Same rating throughout in 1 of 1 session" in first
    other = row_of(page, next(a for a in annotated if a.annotator_id != pasted.annotator_id).annotator)
    assert "No free text counted" in other and "No page counts" in other


def test_a_session_too_short_to_judge_says_so(client, owner, study, pool, items):
    session = f.make_session(f.make_annotator(pool))
    annotation_submit(assignment=assignment_next(session=session), data=f.valid_answers())  # 1 item: 3 ratings
    page = login(client, owner).get(annotators_url(study, pool)).content.decode()
    assert "Too few ratings per session to judge straight-lining" in row_of(page, session.annotator)


def test_another_researcher_finds_no_signals(client, other_researcher, study, pool, pasted):
    assert login(client, other_researcher).get(annotators_url(study, pool)).status_code == 404


def test_the_review_page_shows_the_annotations_signals(client, checker, study, pool, annotated):
    Annotation.objects.filter(pool=pool).update(effort=COUNTS)  # whichever is drawn has them
    page = login(client, checker).get(review_url(study, pool)).content.decode()
    assert 'id="effort-signals"' in page and FOR_REVIEW in page.replace("<strong>", "").replace("</strong>", "")
    assert "40 characters pasted, 3 typed (1 answer mostly pasted); left the page 4 times, 12.0 s hidden" in (
        page.replace("<strong>", "").replace("</strong>", ""))


def test_the_review_page_says_nothing_without_counts(client, checker, study, pool, annotated):
    page = login(client, checker).get(review_url(study, pool)).content.decode()
    assert 'id="effort-signals"' not in page


def test_the_consent_page_says_what_is_counted(client, pool, items):
    page = client.get(f.entry_url(pool), follow=True).content.decode()
    assert 'id="effort-notice"' in page
    assert "never what you type" in page

"""Skipping: a study may cap skips per session (the skip button says how many are left), and a
session of only skips ends with its own outcome and completion code, never the completed one."""

import pytest
from django.urls import reverse

from annotation.models import Annotation, Annotator, Assignment, Session
from studies.models import Study
from tests.helpers import item_submit as submit
from tests.helpers import on_items

pytestmark = pytest.mark.django_db

PROLIFIC = "https://app.prolific.com/submissions/complete?cc="
REASON = "The image is not culturally relevant"  # one of culturalvqa-question's reasons


def skipping(client, *, cap=None, per_session=3):
    """An annotator of a culturalvqa-question study (which offers a skip) on their first item."""
    client, assignment, _ = on_items(client, "culturalvqa-question", n=per_session + 1)
    Study.objects.filter(pk=assignment.pool.study_id).update(max_skips_per_session=cap)
    Session.objects.filter(pk=assignment.session_id).update(items_target=per_session)
    return client, assignment


def current(assignment) -> Assignment:
    return Assignment.objects.get(session_id=assignment.session_id, status="leased")


def test_the_skip_button_says_how_many_skips_are_left(client):
    client, a = skipping(client, cap=2)
    page = client.get(reverse("annotation:items")).content.decode()
    assert '<span id="skips-left">(2 left)</span></button>' in page

    page = submit(client, a, {"_skip": REASON}).content.decode()

    assert '<span id="skips-left">(1 left)</span></button>' in page


def test_without_a_cap_the_button_shows_no_count(client):
    client, _ = skipping(client)
    page = client.get(reverse("annotation:items")).content.decode()
    assert "data-skip-open" in page and "skips-left" not in page


def test_it_refuses_a_skip_past_the_cap_and_the_item_stays(client):
    client, a = skipping(client, cap=1)
    page = submit(client, a, {"_skip": REASON}).content.decode()
    assert 'id="skips-left">No skips left in this session</span>' in page and "data-skip-open" not in page
    second = current(a)

    response = submit(client, second, {"_skip": REASON})

    page = response.content.decode()
    assert response.status_code == 422
    assert "You have skipped 1 item, the most this study allows in one session: please answer this one." in page
    assert Annotation.objects.filter(assignment=second).count() == 0
    assert current(a) == second, "the refused item is still the annotator's"


def test_a_session_of_only_skips_ends_with_its_own_code(client):
    client, a = skipping(client, per_session=2)
    submit(client, a, {"_skip": REASON})

    response = submit(client, current(a), {"_skip": REASON})

    assert response.headers.get("HX-Redirect") == reverse("annotation:end")
    study = Study.objects.get(pk=a.pool.study_id)
    assert Annotator.objects.get(pk=a.annotator_id).outcome == Annotator.Outcome.ALL_SKIPPED
    page = client.get(reverse("annotation:end")).content.decode()
    assert "You skipped every item" in page
    assert PROLIFIC + study.code_all_skipped in page and study.code_completed not in page
    assert client.get(reverse("annotation:items")).url == reverse("annotation:end")


def test_a_session_with_one_answer_ends_completed(client):
    client, a = skipping(client, per_session=2)
    submit(client, a, {"_skip": REASON})

    answered = submit(client, current(a), {"question": "What is the name of this dance performed in Kerala?"})

    assert answered.headers.get("HX-Redirect") == reverse("annotation:end"), answered.content.decode()[:2000]

    study = Study.objects.get(pk=a.pool.study_id)
    assert Annotator.objects.get(pk=a.annotator_id).outcome == ""
    page = client.get(reverse("annotation:end")).content.decode()
    assert PROLIFIC + study.code_completed in page and study.code_all_skipped not in page

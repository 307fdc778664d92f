import html
import re
import time

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from annotation.links import IMAGE_LINK_MAX_AGE, item_image_link, session_image_link
from annotation.models import Annotation, Assignment
from annotation.services import annotation_submit, assignment_next
from tests import factories as f
from tests.factories import valid_answers
from tests.helpers import as_annotator

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def annotating(client, session, items):
    """A browser whose annotator is onboarded and on the item pages."""
    as_annotator(client, session)
    return client


def fieldset_tag(page: str, key: str) -> str:
    start = page.index(f'data-field="{key}"')
    return page[start:page.index(">", start)].rstrip()


def submit(client, assignment, data, **extra):
    return client.post(reverse("annotation:item-submit", args=[assignment.pk]), data, **extra)


def test_the_page_shows_the_first_item_with_its_prompt_as_tokens(annotating, session):
    page = annotating.get(reverse("annotation:items")).content.decode()
    assignment = Assignment.objects.get(session=session)
    assert "Image 1 of 3" in page
    assert item_image_link(assignment) in page
    assert 'class="token" for="words-1">family</label>' in page
    assert 'popovertarget="def-alignment"' in page


def test_a_valid_submit_swaps_in_the_next_item(annotating, session):
    annotating.get(reverse("annotation:items"))
    first = Assignment.objects.get(session=session)
    response = submit(annotating, first, valid_answers(), **HX)
    assert response.status_code == 200
    assert "Image 2 of 3" in response.content.decode()
    assert "<html" not in response.content.decode()  # a fragment, not a page
    assert Annotation.objects.get().answers["overall"] == 3


def test_an_invalid_submit_is_refused_next_to_the_field_and_stores_nothing(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    response = submit(annotating, a, valid_answers(explanation="meh"), **HX)
    assert response.status_code == 422
    page = response.content.decode()
    assert 'id="err-explanation">Write at least 10 characters.' in page
    assert "Image 1 of 3" in page and "meh" in page  # what was typed is kept
    assert not Annotation.objects.exists()


def test_a_double_submit_stores_one_annotation_and_moves_on(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    submit(annotating, a, valid_answers(), **HX)
    again = submit(annotating, a, valid_answers(), **HX)
    assert again.status_code == 200 and "Image 2 of 3" in again.content.decode()
    assert Annotation.objects.count() == 1


def test_a_draft_is_restored_on_reload(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    r = annotating.post(
        reverse("annotation:item-draft", args=[a.pk]), {"alignment": "0.5", "explanation": "half a thought"}
    )
    assert r.json() == {"saved": True}
    page = annotating.get(reverse("annotation:items")).content.decode()
    assert "half a thought</textarea>" in page
    assert 'value="0.5" data-v="0.5" checked' in page
    # the conditional questions opened by the draft are shown; the others stay hidden
    assert not fieldset_tag(page, "explanation").endswith(" hidden")
    assert fieldset_tag(page, "stereotype_description").endswith(" hidden")


def test_another_annotators_assignment_is_404(annotating, study, pool):
    stranger = f.make_session(f.make_annotator(pool))
    theirs = assignment_next(session=stranger)
    assert submit(annotating, theirs, valid_answers()).status_code == 404
    assert annotating.post(reverse("annotation:item-draft", args=[theirs.pk]), {"x": "y"}).status_code == 404
    assert annotating.get(reverse("annotation:item-image", args=[theirs.pk])).status_code == 404
    assert not Annotation.objects.exists()


def test_the_image_of_ones_own_item_is_served(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    response = annotating.get(item_image_link(a))
    assert response.status_code == 200
    assert b"".join(response.streaming_content)[:8] == b"\x89PNG\r\n\x1a\n"


def image_link(page: str) -> str:
    return html.unescape(re.search(r'<img src="([^"]+)" alt="The image', page).group(1))


def test_the_pages_image_link_is_signed_and_needs_no_session(annotating, session, django_assert_num_queries):
    link = image_link(annotating.get(reverse("annotation:items")).content.decode())
    assert link.startswith("/a/images/")
    with django_assert_num_queries(0):
        response = Client().get(link)  # another browser, no cookie: the signature is the access
        assert b"".join(response.streaming_content)[:8] == b"\x89PNG\r\n\x1a\n"
    assert response["Cache-Control"] == "private, max-age=3600"


def test_the_image_link_is_the_same_string_within_the_hour(annotating, session):
    annotating.get(reverse("annotation:items"))
    name = Assignment.objects.get(session=session).item.image.name
    hour = 1_800_000_000 // 3600 * 3600
    assert session_image_link(session.pk, name, now=hour + 1) == session_image_link(session.pk, name, now=hour + 3599)
    assert session_image_link(session.pk, name, now=hour) != session_image_link(session.pk, name, now=hour + 3600)
    assert session_image_link(session.pk, name) != session_image_link(session.pk + 1, name)


def test_an_image_link_altered_or_expired_is_refused(annotating, session, pool):
    link = image_link(annotating.get(reverse("annotation:items")).content.decode())
    assert Client().get(link[:-3] + "abc").status_code == 404
    assert Client().get("/a/images/nonsense").status_code == 404
    name = Assignment.objects.get(session=session).item.image.name
    old = session_image_link(session.pk, name, now=time.time() - IMAGE_LINK_MAX_AGE - 2 * 3600)
    assert Client().get(old).status_code == 404
    assert Client().get(link).status_code == 200


def test_finishing_the_batch_redirects_to_prolific_with_the_completed_code(annotating, session, study):
    session.items_target = 2
    session.save()
    annotating.get(reverse("annotation:items"))
    for _ in range(2):
        a = Assignment.objects.filter(session=session, status="leased").get()
        response = submit(annotating, a, valid_answers(), **HX)
    assert response.status_code == 204 and response["HX-Redirect"] == reverse("annotation:end")
    page = annotating.get(reverse("annotation:end")).content.decode()
    assert f"https://app.prolific.com/submissions/complete?cc={study.code_completed}" in page
    session.refresh_from_db()
    assert session.completed_at is not None


def test_a_session_ends_early_when_the_pool_runs_dry(annotating, session, study):
    # The pool of India has 3 items: the session of 5 ends after 3 with the completed code.
    annotating.get(reverse("annotation:items"))
    for _ in range(3):
        a = Assignment.objects.filter(session=session, status="leased").get()
        response = submit(annotating, a, valid_answers(), **HX)
    assert response["HX-Redirect"] == reverse("annotation:end")
    assert study.code_completed in annotating.get(reverse("annotation:end")).content.decode()


def test_without_htmx_a_submit_redirects_or_renders_the_full_page(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    bad = submit(annotating, a, {})
    assert bad.status_code == 422 and "<html" in bad.content.decode()
    good = submit(annotating, a, valid_answers())
    assert good.status_code == 200 and "Image 2 of 3" in good.content.decode()


def test_the_next_item_path_has_a_fixed_number_of_queries(annotating, session, django_assert_num_queries):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    # the session (with its annotator, study and pool), the assignment (with its item); in a
    # transaction, the assignment's row locked, then it is claimed, its quota settled and the
    # annotation stored; the session's assignments (with their items); in a transaction, the
    # session's row locked and its live lease looked for before a new one is taken (a double click's
    # two requests decide the next item one after the other), the open quotas (with their items), a
    # quota taken and the new lease. On PostgreSQL the three writes of the claim are one statement,
    # and the two of the lease one (annotation/services/round_trips.py): 2 + 4 + 1 + 6; elsewhere
    # 2 + 6 + 1 + 7. No savepoint, no session store, nothing read twice.
    with django_assert_num_queries(13 if connection.vendor == "postgresql" else 16):
        submit(annotating, a, valid_answers(), **HX)


def test_the_item_page_reads_the_session_and_its_assignments_only(annotating, session, django_assert_num_queries):
    # the session, its assignments (none yet), then a transaction (BEGIN, COMMIT): the session's row
    # locked, its live lease looked for, the open quotas (with their items), a quota taken and the new
    # lease (one statement on PostgreSQL, two elsewhere); no savepoint
    with django_assert_num_queries(8 if connection.vendor == "postgresql" else 9):
        assert annotating.get(reverse("annotation:items")).status_code == 200
    with django_assert_num_queries(2):  # a reload: the session, its assignments (the lease, with its item)
        assert annotating.get(reverse("annotation:items"), **HX).status_code == 200


def test_every_item_response_forbids_the_browser_cache(annotating, session):
    # a page kept by the back button would show an item already submitted as if it could be changed
    page = annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    responses = [
        page,
        annotating.get(reverse("annotation:items"), **HX),
        annotating.post(reverse("annotation:item-draft", args=[a.pk]), {"explanation": "a thought"}),
        submit(annotating, a, {}, **HX),  # refused
        annotating.post(reverse("annotation:item-upload", args=[a.pk])),  # refused: no file
        submit(annotating, a, valid_answers(), **HX),
    ]
    for response in responses:
        assert "no-store" in response["Cache-Control"], response


def test_a_second_submit_with_other_answers_says_so_shows_the_current_item_and_changes_nothing(annotating, session):
    annotating.get(reverse("annotation:items"))
    first = Assignment.objects.get(session=session)
    submit(annotating, first, valid_answers(), **HX)
    stored = Annotation.objects.get().answers
    again = submit(annotating, first, valid_answers(overall=1, explanation="I changed my mind about it"), **HX)
    page = again.content.decode()
    assert again.status_code == 200
    assert "That image was already submitted, so the answers just sent for it were not kept." in page
    notice = page.split('id="already-submitted">')[1].split("</p>")[0]
    assert "press" not in notice.lower() and "again" not in notice.lower()  # nothing to retry
    assert "Image 2 of 3" in page and 'class="error"' not in page
    assert Annotation.objects.count() == 1 and Annotation.objects.get().answers == stored
    current = Assignment.objects.get(session=session, status="leased")
    assert f'action="{reverse("annotation:item-submit", args=[current.pk])}"' in page


def test_a_first_submit_says_nothing_of_an_earlier_one(annotating, session):
    annotating.get(reverse("annotation:items"))
    first = Assignment.objects.get(session=session)
    assert "already submitted" not in submit(annotating, first, valid_answers(), **HX).content.decode()


def test_a_refused_submit_keeps_what_was_posted_as_the_draft(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    posted = valid_answers(explanation="typed at the last second", overall=[])
    assert submit(annotating, a, posted, **HX).status_code == 422  # "overall" is required
    a.refresh_from_db()
    assert a.draft["explanation"] == ["typed at the last second"] and "overall" not in a.draft
    page = annotating.get(reverse("annotation:items")).content.decode()  # a reload
    assert "typed at the last second</textarea>" in page
    assert not Annotation.objects.exists()


def test_a_refused_skip_keeps_the_draft_of_the_answers(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    annotating.post(reverse("annotation:item-draft", args=[a.pk]), {"explanation": "half a thought"})
    assert submit(annotating, a, {"_skip": [""]}, **HX).status_code == 422  # a skip without its reason
    a.refresh_from_db()
    assert a.draft == {"explanation": ["half a thought"]}


def test_the_error_banner_links_to_each_refused_answer(annotating, session):
    annotating.get(reverse("annotation:items"))
    a = Assignment.objects.get(session=session)
    response = submit(annotating, a, valid_answers(explanation="meh", overall=[]), **HX)
    page = response.content.decode()
    banner = page[page.index('id="form-errors"'):page.index("</div>", page.index('id="form-errors"'))]
    links = re.findall(r'<a href="#q-([^"]+)" data-error-link>', banner)
    assert links == ["explanation", "overall"]
    assert all(f'<legend id="q-{name}">' in page for name in links)
    assert response["HX-Reswap"] == "outerHTML"  # the page shows the first error, not the top


def test_the_counter_counts_only_the_items_left_for_this_annotator(annotating, session, pool):
    # India's pool has 3 items; another annotator submitted one of them: 2 remain of a session of 5
    other = f.make_session(f.make_annotator(pool))
    taken = assignment_next(session=other)
    annotation_submit(assignment=taken, data=valid_answers())
    taken.item.quotas.update(wanted=1)  # and it needs no more answers
    page = annotating.get(reverse("annotation:items")).content.decode()
    assert "Image 1 of 2" in page and "<title>Image 1 of 2" in page
    first = Assignment.objects.get(session=session)
    second = submit(annotating, first, valid_answers(), **HX).content.decode()
    assert "Image 2 of 2" in second and 'value="50"' in second  # the progress bar half full
    assert "Image 2 of 2" in annotating.get(reverse("annotation:items"), **HX).content.decode()  # a reload


def test_the_counter_keeps_the_sessions_size_when_enough_items_are_open(client, study, pool):
    f.make_items(study, "IN", 7)
    as_annotator(client, f.make_session(f.make_annotator(pool)))
    assert "Image 1 of 5" in client.get(reverse("annotation:items")).content.decode()

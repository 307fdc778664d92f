"""A session is bound to the browser that started it: the same ids from another browser are asked for
the session's resume code; a right code moves the session there and the first browser is then asked
for it in turn; wrong codes change nothing and lock the code after five."""

import html
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.browser import BrowserKey, code_hash
from annotation.models import Annotation, Annotator, Assignment, Session
from annotation.selectors import ANNOTATOR_COOKIE, annotator_cookie_value
from annotation.services import RESUME_TRIES
from tests.factories import valid_answers
from tests.helpers import HX, enter

DRAFT = "a thought only its author typed"


@pytest.fixture
def first(client, pool, items):
    """The browser that opened the link first, on its first item with a draft saved."""
    enter(client, pool)
    now = timezone.now()
    Annotator.objects.update(consented_at=now, eligible_at=now, instructions_read_at=now, cleared_at=now)
    client.get(reverse("annotation:items"))
    a = Assignment.objects.get()
    assert client.post(reverse("annotation:item-draft", args=[a.pk]),
                       {"alignment": "0.5", "explanation": DRAFT}).json() == {"saved": True}
    return client


def resume_code(page: str) -> str:
    return re.search(r'Your resume code: <strong class="code-inline">([A-Z0-9-]+)</strong>', page).group(1)


def resume_token(page: str) -> str:
    return html.unescape(re.search(r'name="token" value="([^"]+)"', page).group(1))


def resume(client, page: str, code: str):
    return client.post(reverse("annotation:resume"), {"token": resume_token(page), "code": code})


def items_page(client) -> str:
    return client.get(reverse("annotation:items")).content.decode()


def test_the_same_browser_comes_back_to_its_session_and_draft(first, pool):
    code = resume_code(items_page(first))
    response = enter(first, pool)
    assert response.status_code == 302 and response.url == reverse("annotation:items")
    page = items_page(first)
    assert DRAFT in page and resume_code(page) == code  # the code stays the same


def test_the_code_is_stored_hashed(first):
    session = Session.objects.get()
    code = resume_code(items_page(first)).replace("-", "")
    assert len(code) == 8 and code not in session.resume_hash and session.browser_hash
    assert session.resume_hash == code_hash(session.pk, code)


def test_another_browser_with_the_same_ids_is_asked_for_the_code_and_sees_nothing_of_the_session(first, pool):
    other = Client()
    response = enter(other, pool)
    page = response.content.decode()
    assert response.status_code == 403 and "Continue your session in this browser" in page
    assert 'name="code"' in page and DRAFT not in page and 'class="code-inline"' not in page  # nor its code
    assert ANNOTATOR_COOKIE not in other.cookies or not other.cookies[ANNOTATOR_COOKIE].value
    a = Assignment.objects.get()
    assert other.get(reverse("annotation:items")).status_code == 403
    assert other.post(reverse("annotation:item-draft", args=[a.pk]), {"explanation": "theirs"}).status_code == 403
    assert DRAFT in items_page(first)  # the first browser goes on as before


def test_the_right_code_moves_the_session_with_its_draft(first, pool):
    code = resume_code(items_page(first))
    other = Client()
    asked = enter(other, pool).content.decode()
    response = resume(other, asked, code.lower().replace("-", " "))  # case, spaces and dashes do not matter
    assert response.status_code == 302
    page = other.get(response.url, follow=True).content.decode()
    assert DRAFT in page and resume_code(page) == code
    assert Session.objects.count() == 1 and Assignment.objects.count() == 1


def test_the_first_browser_then_finds_its_session_moved_and_can_take_it_back(first, pool):
    code = resume_code(items_page(first))
    other = Client()
    resume(other, enter(other, pool).content.decode(), code)
    a = Assignment.objects.get()

    moved = first.get(reverse("annotation:items"))
    page = moved.content.decode()
    assert moved.status_code == 403 and "This session continues in another browser" in page
    assert DRAFT not in page and 'name="code"' in page
    # an htmx submit of the page still open there reloads it, and stores nothing
    refused = first.post(reverse("annotation:item-submit", args=[a.pk]), valid_answers(), **HX)
    assert refused.status_code == 403 and refused["HX-Refresh"] == "true"
    assert first.post(reverse("annotation:item-draft", args=[a.pk]), {"explanation": "old"}).status_code == 403
    assert not Annotation.objects.exists() and Assignment.objects.get().draft["explanation"] == [DRAFT]

    assert resume(first, page, code).status_code == 302  # its way back: the same code
    assert DRAFT in items_page(first)
    assert other.get(reverse("annotation:items")).status_code == 403


def test_a_wrong_code_is_refused_and_changes_nothing(first, pool):
    before = Session.objects.values("browser_hash", "resume_hash").get()
    other = Client()
    asked = enter(other, pool).content.decode()
    response = resume(other, asked, "AAAA-AAAA")
    page = response.content.decode()
    assert response.status_code == 422 and "not this session" in page and f"{RESUME_TRIES - 1} tries" in page
    assert Session.objects.values("browser_hash", "resume_hash").get() == before
    assert other.get(reverse("annotation:items")).status_code == 403
    assert DRAFT in items_page(first)


def test_five_wrong_codes_lock_the_code_for_a_while(first, pool):
    code = resume_code(items_page(first))
    other = Client()
    asked = enter(other, pool).content.decode()
    for _ in range(RESUME_TRIES - 1):
        assert resume(other, asked, "AAAA-AAAA").status_code == 422
    locked = resume(other, asked, "AAAA-AAAA")
    assert locked.status_code == 429 and "locked for 15 more minutes" in locked.content.decode()
    assert resume(other, asked, code).status_code == 429  # even the right one, while locked
    assert other.get(reverse("annotation:items")).status_code == 403

    Session.objects.update(resume_locked_until=timezone.now() - timedelta(seconds=1))  # the wait is over
    assert resume(other, asked, code).status_code == 302
    assert DRAFT in items_page(other)


def test_a_right_code_resets_the_count_of_wrong_ones(first, pool):
    code = resume_code(items_page(first))
    other = Client()
    asked = enter(other, pool).content.decode()
    for _ in range(RESUME_TRIES - 1):
        resume(other, asked, "AAAA-AAAA")
    assert resume(other, asked, code).status_code == 302
    assert Session.objects.get().resume_failures == 0


def test_a_forged_or_stale_cookie_is_refused(first, pool):
    session = Session.objects.get()
    value = first.cookies[ANNOTATOR_COOKIE].value
    tampered = Client()
    tampered.cookies[ANNOTATOR_COOKIE] = value.replace(f"{session.pk}:", f"{session.pk}:x", 1)  # signature broken
    assert "Please open the study from Prolific" in tampered.get(reverse("annotation:items")).content.decode()
    for cookie in (
        annotator_cookie_value(BrowserKey(session.pk, "another-browsers-secret", "AAAAAAAA")),  # signed, wrong secret
        annotator_cookie_value(session.pk),  # a cookie of before the binding: not for a bound session
    ):
        stale = Client()
        stale.cookies[ANNOTATOR_COOKIE] = cookie
        response = stale.get(reverse("annotation:items"))
        assert response.status_code == 403 and DRAFT not in response.content.decode()
        assert 'name="code"' in response.content.decode()


def test_a_forged_or_stale_resume_form_is_refused(first, pool):
    response = Client().post(reverse("annotation:resume"), {"token": "1:forged", "code": "AAAAAAAA"})
    assert response.status_code == 400 and "too old" in response.content.decode()
    asked = enter(Client(), pool).content.decode()
    Session.objects.all().delete()
    response = Client().post(reverse("annotation:resume"), {"token": resume_token(asked), "code": "AAAAAAAA"})
    assert response.status_code == 400 and "too old" in response.content.decode()


def test_several_sessions_in_one_browser_each_open_again(client, pool, items):
    """The demo's participants, opened one after the other in one browser."""
    enter(client, pool, pid="aaaaaaaaaaaaaaaaaaaaaaa1", session_id="S1")
    enter(client, pool, pid="aaaaaaaaaaaaaaaaaaaaaaa2", session_id="S2")
    again = enter(client, pool, pid="aaaaaaaaaaaaaaaaaaaaaaa1", session_id="S1")
    assert again.status_code == 302 and again.url == reverse("annotation:consent")
    assert "Your resume code" in client.get(again.url).content.decode()


def test_the_completion_code_is_reached_from_the_new_browser(first, pool, study):
    code = resume_code(items_page(first))
    Session.objects.update(completed_at=timezone.now())
    other = Client()
    resume(other, enter(other, pool).content.decode(), code)
    assert study.code_completed in other.get(reverse("annotation:end")).content.decode()


def test_the_item_pages_read_no_more_with_a_bound_browser(first, django_assert_num_queries):
    with django_assert_num_queries(2):  # the session (its browser hash on the row), its assignments
        assert first.get(reverse("annotation:items")).status_code == 200


def test_a_session_of_before_the_binding_is_bound_to_the_browser_that_uses_it(client, pool, items):
    from tests import factories as f

    session = f.make_session(f.make_annotator(pool, pid="5f1a2b3c4d5e6f7a8b9c0d1e"), session_id="SESSION1")
    client.cookies[ANNOTATOR_COOKIE] = annotator_cookie_value(session.pk)  # the cookie of before: no secret
    page = items_page(client)
    assert resume_code(page) and Session.objects.get().browser_hash
    assert enter(Client(), pool).status_code == 403  # its link opened elsewhere now: asked for the code
    assert "Your resume code" in items_page(client)

import pytest
from django.urls import reverse

from annotation.models import Annotator, Session
from studies.models import ItemQuota, Study
from tests.factories import entry_url
from tests.helpers import enter


def test_it_creates_the_annotator_and_sends_them_to_consent(client, pool, items):
    response = enter(client, pool)
    assert response.status_code == 302 and response.url == reverse("annotation:consent")
    annotator = Annotator.objects.get()
    assert annotator.pool == pool and annotator.prolific_pid == "5f1a2b3c4d5e6f7a8b9c0d1e"
    assert client.get(response.url).status_code == 200


def test_the_same_pid_resumes_in_the_same_browser(client, pool, items):
    enter(client, pool)
    Annotator.objects.update(consented_at="2026-01-01T00:00Z")
    assert enter(client, pool).url == reverse("annotation:eligibility")
    assert Annotator.objects.count() == 1 and Session.objects.count() == 1


def test_the_same_pid_in_another_browser_is_asked_for_the_resume_code(client, pool, items):
    enter(client, pool)
    from django.test import Client

    other_browser = Client()
    response = enter(other_browser, pool)
    assert response.status_code == 403 and 'name="code"' in response.content.decode()
    assert Annotator.objects.count() == 1 and Session.objects.count() == 1
    assert other_browser.get(reverse("annotation:next")).status_code == 403


def test_a_new_prolific_session_of_the_same_pid_opens_a_new_session(client, pool, items):
    enter(client, pool, session_id="S1")
    enter(client, pool, session_id="S2")
    assert Annotator.objects.count() == 1 and Session.objects.count() == 2


@pytest.mark.parametrize("missing", ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"])
def test_it_refuses_a_link_missing_a_parameter(client, pool, items, missing):
    url = entry_url(pool).replace(f"{missing}=", "X_IGNORED=")
    response = client.get(url)
    assert response.status_code == 400
    assert "This link is incomplete" in response.content.decode()
    assert missing in response.content.decode()
    assert not Annotator.objects.exists()


def test_it_refuses_a_malformed_parameter(client, pool, items):
    response = enter(client, pool, pid="<script>alert(1)</script>")
    assert response.status_code == 400
    assert "This link is not valid" in response.content.decode()
    assert "<script>" not in response.content.decode()
    assert not Annotator.objects.exists()


def test_it_refuses_a_closed_study(client, study, pool, items):
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    response = enter(client, pool)
    assert response.status_code == 410 and "This study is closed" in response.content.decode()


def test_it_refuses_a_draft_study(client, study, pool, items):
    Study.objects.filter(pk=study.pk).update(status=Study.Status.DRAFT)
    assert enter(client, pool).status_code == 410


def test_it_refuses_a_full_pool(client, pool, items):
    ItemQuota.objects.filter(pool=pool).update(done=3)
    response = enter(client, pool)
    assert response.status_code == 410 and "This study is full" in response.content.decode()
    assert not Annotator.objects.exists()


def test_it_refuses_a_pid_already_in_another_pool(client, pool, other_pool, items):
    enter(client, pool)
    response = enter(client, other_pool)
    assert response.status_code == 400
    assert "You already take part in this study" in response.content.decode()
    assert "India" in response.content.decode()


def test_it_refuses_another_studys_prolific_id(client, study, pool, items):
    Study.objects.filter(pk=study.pk).update(prolific_study_id="REALSTUDY")
    assert enter(client, pool, study_id="OTHER").status_code == 400
    assert enter(client, pool, study_id="REALSTUDY").status_code == 302


def test_an_unknown_pool_is_404(client, db):
    url = "/join/00000000-0000-0000-0000-000000000000/?PROLIFIC_PID=a&STUDY_ID=b&SESSION_ID=c"
    assert client.get(url).status_code == 404


def test_pages_without_a_session_ask_to_reopen_the_link(client, db):
    response = client.get(reverse("annotation:items"))
    assert response.status_code == 403
    assert "Open the study link from Prolific again" in response.content.decode()


def test_the_browser_keeps_the_session_in_a_signed_cookie(client, pool, items):
    from annotation.selectors import ANNOTATOR_COOKIE

    enter(client, pool)
    cookie = client.cookies[ANNOTATOR_COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert "sessionid" not in client.cookies  # no server-side session for an annotator
    assert client.get(reverse("annotation:consent")).status_code == 200


def test_a_forged_or_altered_annotator_cookie_is_refused(client, pool, items):
    from django.test import Client

    from annotation.selectors import ANNOTATOR_COOKIE

    enter(client, pool)
    session = Session.objects.get()
    value = client.cookies[ANNOTATOR_COOKIE].value
    for forged in (str(session.pk), value.replace(f"{session.pk}:", f"{session.pk + 1}:", 1), value[:-2] + "xx"):
        stranger = Client()
        stranger.cookies[ANNOTATOR_COOKIE] = forged
        response = stranger.get(reverse("annotation:consent"))
        assert response.status_code == 403 and "Open the study link from Prolific" in response.content.decode()


def test_a_browser_that_entered_before_the_cookie_keeps_its_session(client, pool, items):
    from django.test import Client

    from annotation.selectors import SESSION_KEY
    from tests import factories as f

    session = f.make_session(f.make_annotator(pool, onboarded=False))  # not bound: began before binding
    legacy = Client()
    s = legacy.session
    s[SESSION_KEY] = session.pk
    s.save()
    legacy.cookies["sessionid"] = s.session_key
    assert legacy.get(reverse("annotation:consent")).status_code == 200

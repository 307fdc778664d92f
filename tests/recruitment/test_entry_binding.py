"""A session of a pool on Prolific is bound to its browser as any other. A verified entry from another
browser moves it there only where the site accepts Prolific's check as proof
(``ANNOTATOR_PROLIFIC_REBIND``): the check shows only that the link's ids belong together."""

import re

from django.test import Client
from django.urls import reverse

from annotation.models import Session
from recruitment.models import ProlificStudy, ProlificSubmission
from tests.helpers import enter

SUBMISSION_GET = r"submissions/[0-9a-f]{24}/"


def entry(client, participant):
    pid, study_id, session_id = participant
    pool = ProlificStudy.objects.get(prolific_id=study_id).pool
    return enter(client, pool, pid=pid, study_id=study_id, session_id=session_id)


def test_by_default_a_verified_entry_from_another_browser_is_asked_for_the_code(client, fake_prolific, participant):
    entry(client, participant)
    bound = Session.objects.values_list("browser_hash", flat=True).get()
    response = entry(Client(), participant)
    assert response.status_code == 403 and 'name="code"' in response.content.decode()
    assert Session.objects.values_list("browser_hash", flat=True).get() == bound
    assert client.get(reverse("annotation:next")).status_code == 302  # the first browser goes on


def test_where_the_site_accepts_it_a_verified_entry_moves_the_session(client, fake_prolific, participant, settings):
    settings.ANNOTATOR_PROLIFIC_REBIND = True
    entry(client, participant)
    assert ProlificSubmission.objects.get().entry_check == "verified"
    old_code = re.search(r'code-inline">([A-Z0-9-]+)<', client.get(reverse("annotation:consent")).content.decode())

    other = Client()
    response = entry(other, participant)
    page = response.content.decode()
    assert response.status_code == 200 and "Your session continues in this browser" in page
    new_code = re.search(r'id="new-resume-code">([A-Z0-9-]+)<', page).group(1)
    assert new_code != old_code.group(1)
    assert other.get(reverse("annotation:next")).url == reverse("annotation:consent")
    moved = client.get(reverse("annotation:consent"))
    assert moved.status_code == 403 and "This session continues in another browser" in moved.content.decode()
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1  # the row answered the second entry
    assert Session.objects.count() == 1


def test_an_unverified_entry_never_moves_the_session(client, fake_prolific, participant, settings):
    settings.ANNOTATOR_PROLIFIC_REBIND = True
    fake_prolific.fail_next("GET", SUBMISSION_GET, 503, times=2)  # Prolific down: let in, pending
    entry(client, participant)
    assert ProlificSubmission.objects.get().entry_check == "pending"
    response = entry(Client(), participant)
    assert response.status_code == 403 and 'name="code"' in response.content.decode()
    assert client.get(reverse("annotation:next")).status_code == 302

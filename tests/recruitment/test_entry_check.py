"""The entry check of a pool on Prolific: the submission named by SESSION_ID is the participant's,
of the pool's study, and active; asked of Prolific once per SESSION_ID; let in unverified (and
asked again in the background) when Prolific cannot be asked."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.extensions import entry_check_register, entry_check_unregister
from annotation.models import Annotator, Assignment, Session
from annotation.services import annotator_enter, assignment_next
from recruitment.entry import prolific_entry_check
from recruitment.models import ProlificStudy, ProlificSubmission
from recruitment.tasks import prolific_entries_recheck_task
from studies.models import ItemQuota, Study
from tests.helpers import enter, login

SUBMISSION_GET = r"submissions/[0-9a-f]{24}/"


def entry(client, participant, **overrides):
    pid, study_id, session_id = participant
    params = {"pid": pid, "study_id": study_id, "session_id": session_id, **overrides}
    return enter(client, ProlificStudy.objects.get(prolific_id=study_id).pool, **params)


def nothing_created():
    return not (Annotator.objects.exists() or Session.objects.exists() or ProlificSubmission.objects.exists())


def test_a_participant_of_the_pools_study_enters_verified(client, fake_prolific, participant):
    response = entry(client, participant)
    assert response.status_code == 302 and response.url == reverse("annotation:consent")
    row = ProlificSubmission.objects.get()
    session = Session.objects.get()
    assert (row.prolific_id, row.participant_id, row.status) == (participant[2], participant[0], "ACTIVE")
    assert row.entry_check == "verified" and row.checked_at is not None and row.session == session
    assert row.prolific_study.pool == session.annotator.pool
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1


def test_a_reload_or_another_browser_does_not_ask_prolific_again(client, fake_prolific, participant):
    entry(client, participant)
    assert entry(client, participant).status_code == 302
    assert entry(Client(), participant).status_code == 403  # asked for the resume code (tests/annotation/…binding)
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1
    assert Session.objects.count() == 1 and ProlificSubmission.objects.count() == 1


def test_it_refuses_a_spoofed_participant_id(client, fake_prolific, participant):
    response = entry(client, participant, pid="aaaaaaaaaaaaaaaaaaaaaaaa")
    assert response.status_code == 400
    assert "This link belongs to another participant" in response.content.decode()
    assert nothing_created()


def test_a_spoofed_id_is_refused_from_the_row_once_the_real_participant_entered(client, fake_prolific, participant):
    entry(client, participant)
    response = entry(Client(), participant, pid="aaaaaaaaaaaaaaaaaaaaaaaa")
    assert response.status_code == 400 and "another participant" in response.content.decode()
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1
    assert Annotator.objects.count() == 1


def test_a_refusal_is_remembered_without_asking_prolific_again(client, fake_prolific, participant):
    for _ in range(3):
        assert entry(client, participant, pid="aaaaaaaaaaaaaaaaaaaaaaaa").status_code == 400
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1


def test_it_refuses_another_study_id_without_asking_prolific(client, fake_prolific, participant):
    response = entry(client, participant, study_id="0123456789abcdef01234567")
    assert response.status_code == 400 and "belongs to another study" in response.content.decode()
    assert not fake_prolific.calls("GET", SUBMISSION_GET) and nothing_created()


def test_it_refuses_a_submission_of_another_study(client, fake_prolific, owner, participant, other_pool):
    from recruitment.services import LaunchOptions, prolific_study_launch, prolific_study_transition

    other = prolific_study_launch(pool=other_pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10))
    prolific_study_transition(prolific_study=other.prolific_study, verb="publish", user=owner)
    elsewhere = fake_prolific.submission_start(other.prolific_study.prolific_id, participant[0])
    response = entry(client, participant, session_id=elsewhere)  # India's STUDY_ID, Japan's submission
    assert response.status_code == 400 and "belongs to another study" in response.content.decode()
    assert nothing_created()


@pytest.mark.parametrize("status", ["RETURNED", "TIMED-OUT"])
def test_it_refuses_a_submission_no_longer_active(client, fake_prolific, participant, status):
    fake_prolific.submission_return(participant[2], status)
    response = entry(client, participant)
    assert response.status_code == 400
    assert "no longer active" in response.content.decode() and "Prolific reports it as" in response.content.decode()
    assert nothing_created()


def test_it_refuses_a_submission_prolific_does_not_know(client, fake_prolific, participant):
    response = entry(client, participant, session_id="0123456789abcdef01234567")
    assert response.status_code == 400 and nothing_created()
    # said as it is: no such submission (a link cut short), not someone else's
    text = response.content.decode()
    assert "Prolific does not know this submission" in text and "not yours" not in text


MADE_UP = {"pid": "aaaaaaaaaaaaaaaaaaaaaaaa", "session_id": "0123456789abcdef01234567"}


@pytest.mark.parametrize("status", [400, 403, 404, 422])
def test_prolifics_4xx_on_the_submission_refuses_a_made_up_entry_and_leases_nothing(
    client, fake_prolific, participant, pool, status
):
    """Prolific's answer about the submission (malformed, not this token's to see, unknown) is its word:
    the entry is refused at once, not let in unverified to lease an item until the recheck."""
    fake_prolific.fail_next("GET", SUBMISSION_GET, status)
    response = entry(client, participant, **MADE_UP)
    assert response.status_code == 400
    said = "Prolific does not know this submission" if status == 404 else "This link belongs to another participant"
    assert said in response.content.decode()
    assert nothing_created() and not ItemQuota.objects.filter(pool=pool, leased__gt=0).exists()
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1  # a refusal is not asked again
    assert entry(client, participant, **MADE_UP).status_code == 400  # remembered, as every refusal
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1 and nothing_created()


@pytest.mark.parametrize("fault", [500, 503, 429, 401, "hang"])
def test_prolific_that_cannot_answer_lets_the_participant_in_unverified(client, fake_prolific, participant, fault):
    """No answer about the submission (a time-out, a 5xx, rate-limited, our token refused): the check
    could not be made, so the participant is let in and Prolific asked again in the background."""
    if fault == "hang":
        for _ in range(2):  # the call and its one retry, each past the client's time-out
            fake_prolific.hang_next("GET", SUBMISSION_GET, 2)
    else:
        fake_prolific.fail_next("GET", SUBMISSION_GET, fault, headers={"Retry-After": "0"}, times=2)
    response = entry(client, participant)
    assert response.status_code == 302 and response.url == reverse("annotation:consent")
    row = ProlificSubmission.objects.get()
    assert row.entry_check == "pending" and row.session == Session.objects.get()
    assert row.check_note.startswith("Unverified at entry")


def test_a_participant_who_returned_cannot_come_back(client, fake_prolific, participant):
    entry(client, participant)
    ProlificSubmission.objects.update(status="RETURNED")  # as a webhook or the sync records it
    response = entry(Client(), participant)
    assert response.status_code == 400 and "no longer active" in response.content.decode()


def test_prolific_down_lets_the_participant_in_unverified_and_the_researcher_sees_it(
    client, fake_prolific, participant, owner, study
):
    fake_prolific.fail_next("GET", SUBMISSION_GET, 503, times=2)  # the call and its one retry
    response = entry(client, participant)
    assert response.status_code == 302 and response.url == reverse("annotation:consent")
    row = ProlificSubmission.objects.get()
    assert row.entry_check == "pending" and "503" in row.check_note and row.session == Session.objects.get()
    assert entry(client, participant).status_code == 302  # a reload: still in, Prolific not asked
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 2

    page = login(Client(), owner).get(reverse("recruitment:study-prolific", args=[study.pk])).content.decode()
    assert "Entries not verified with Prolific" in page and participant[2] in page and "pending" in page

    prolific_entries_recheck_task.delay()  # Prolific answers again
    row.refresh_from_db()
    assert row.entry_check == "verified" and row.check_note == "" and row.status == "ACTIVE"
    page = login(Client(), owner).get(reverse("recruitment:study-prolific", args=[study.pk])).content.decode()
    assert "Entries not verified with Prolific" not in page


def test_a_recheck_that_finds_a_spoofed_entry_gives_its_item_back(client, fake_prolific, participant, pool):
    fake_prolific.fail_next("GET", SUBMISSION_GET, 503, times=2)
    assert entry(client, participant, pid="aaaaaaaaaaaaaaaaaaaaaaaa").status_code == 302
    session = Session.objects.get()
    Annotator.objects.update(consented_at="2026-01-01T00:00Z", cleared_at="2026-01-01T00:00Z")
    lease = assignment_next(session=session)
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 1

    prolific_entries_recheck_task.delay()
    row = ProlificSubmission.objects.get()
    assert row.entry_check == "failed" and participant[0] in row.check_note
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.EXPIRED
    assert ItemQuota.objects.get(item=lease.item, pool=pool).leased == 0
    assert entry(Client(), participant, pid="aaaaaaaaaaaaaaaaaaaaaaaa").status_code == 400


def test_a_recheck_still_unanswered_waits_longer(client, fake_prolific, participant):
    fake_prolific.fail_next("GET", SUBMISSION_GET, 503, times=4)
    entry(client, participant)
    prolific_entries_recheck_task.delay()
    row = ProlificSubmission.objects.get()
    assert row.entry_check == "pending" and row.check_attempts == 1 and "Still unverified" in row.check_note
    prolific_entries_recheck_task.delay()  # not due yet: Prolific not asked
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 4


def test_without_a_token_the_participant_is_let_in_unverified(client, fake_prolific, participant, settings):
    settings.PROLIFIC_API_TOKEN = ""
    assert entry(client, participant).status_code == 302
    row = ProlificSubmission.objects.get()
    assert row.entry_check == "pending" and "token" in row.check_note.lower()


def test_a_pool_not_on_prolific_costs_one_lookup_and_keeps_the_study_id_rule(study, pool, items):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation.services import EntryRefused

    def queries_of_entry(session_id):
        params = {"PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e", "STUDY_ID": "STUDY1", "SESSION_ID": session_id}
        with CaptureQueriesContext(connection) as ctx:
            annotator_enter(pool=pool, params=params)
        return [q["sql"] for q in ctx.captured_queries]

    queries_of_entry("S0")  # the annotator exists: the next two entries take the same path
    entry_check_unregister(prolific_entry_check)
    try:
        without = queries_of_entry("S1")
    finally:
        entry_check_register(prolific_entry_check)
    with_check = queries_of_entry("S2")
    assert len(with_check) == len(without) + 1
    extra = [q for q in with_check if "recruitment_prolificstudy" in q]
    assert len(extra) == 1 and "LIMIT 1" in extra[0]

    Study.objects.filter(pk=study.pk).update(prolific_study_id="REALSTUDY")
    pool.study.refresh_from_db()
    with pytest.raises(EntryRefused, match="wrong_study"):
        queries_of_entry("S3")


def test_a_reload_reads_two_recruitment_rows_and_writes_none(client, fake_prolific, participant, pool):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    entry(client, participant)
    pid, study_id, session_id = participant
    params = {"PROLIFIC_PID": pid, "STUDY_ID": study_id, "SESSION_ID": session_id}
    with CaptureQueriesContext(connection) as ctx:
        annotator_enter(pool=pool, params=params)
    ours = [q["sql"] for q in ctx.captured_queries if "recruitment_" in q["sql"]]
    assert len(ours) == 2 and all(q.lstrip().upper().startswith("SELECT") for q in ours)
    assert len(fake_prolific.calls("GET", SUBMISSION_GET)) == 1


@pytest.mark.parametrize("status", [400, 403, 404])
def test_a_recheck_answered_with_a_4xx_settles_the_entry_as_not_matching(client, fake_prolific, participant, status):
    fake_prolific.fail_next("GET", SUBMISSION_GET, 503, times=2)  # the entry: Prolific could not be asked
    entry(client, participant)
    fake_prolific.fail_next("GET", SUBMISSION_GET, status)  # the recheck: Prolific answers, and refuses
    prolific_entries_recheck_task.delay()
    row = ProlificSubmission.objects.get()
    assert row.entry_check == "failed" and row.check_attempts == 1
    assert (str(status) in row.check_note) or (status == 404 and "does not know" in row.check_note)

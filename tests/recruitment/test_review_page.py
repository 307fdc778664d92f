"""The review page of a study's Prolific submissions (/prolific/studies/<pk>/review/) and its
actions, through the URLs a researcher uses: the owner's only (404 for another researcher, nothing
sent to Prolific for them), what the platform knows of each participant, every action's form, its
refusals and its outcome as the page shows it."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Annotator
from recruitment.models import ProlificAction, ProlificBonus, ProlificJob, ProlificSubmission
from recruitment.payout_selectors import PAGE_SIZE

from .. import factories as f
from .review_helpers import flag, go_live, read_back, take_part


@pytest.fixture
def live(fake_prolific, owner, pool, items):
    return go_live(fake_prolific, owner, pool)


MESSAGE = "Your answers were given faster than anyone could read the items: " * 3


def url(study, rest=""):
    return f"/prolific/studies/{study.pk}/review/{rest}"


def logged_in(user) -> Client:
    client = Client()
    client.login(username=user.username, password=f.PASSWORD)
    return client


@pytest.fixture
def waiting(fake_prolific, live, owner):
    """Two participants through the platform, one who never reached it; all awaiting review."""
    ids = [take_part(fake_prolific, live) for _ in range(2)] + [take_part(fake_prolific, live, annotate=False)]
    subs = read_back(live, owner)
    return [subs[i] for i in ids]


@pytest.fixture
def post(owner, django_capture_on_commit_callbacks):
    """The owner posts; the jobs started run (eagerly) when the request's transaction commits."""
    client = logged_in(owner)

    def send(path, data=None):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(path, data or {})

    return send


def test_the_page_lists_what_the_platform_knows(
    fake_prolific, owner, study, live, waiting, checker, django_assert_num_queries
):
    first, second, stranger = waiting
    Annotator.objects.filter(pk=first.session.annotator_id).update(mock_attempts=2)
    flag(first, checker, ["flagged", "accepted"])
    client = logged_in(owner)
    calls = len(fake_prolific.requests)
    with django_assert_num_queries(13):
        response = client.get(url(study))
    assert response.status_code == 200
    rows = {row.submission.prolific_id: row for row in response.context["rows"]}
    assert set(rows) == {first.prolific_id, second.prolific_id, stranger.prolific_id}
    row = rows[first.prolific_id]
    assert row.items_done == first.session.assignments.filter(status="submitted").count() > 0
    assert row.time_spent_ms > 0 and row.annotator.mock_attempts == 2
    assert (row.reviewed, row.flagged, row.code_meaning) == (2, 1, "completed")
    assert rows[stranger.prolific_id].session is None and rows[stranger.prolific_id].annotator is None
    body = response.content.decode()
    assert "1 flagged of 2 reviewed" in body and "Never reached the platform" in body
    # their sessions completed (every item submitted): never "In progress"
    assert first.session.completed_at and "Completed" in body and "In progress" not in body
    assert "at least 100 characters" in body  # Prolific's rules on rejections are explained
    assert len(fake_prolific.requests) == calls  # the page itself asks Prolific nothing


def test_the_query_count_does_not_grow_with_the_page(fake_prolific, owner, study, live, waiting,
                                                     django_assert_num_queries):
    for _ in range(4):
        take_part(fake_prolific, live)
    read_back(live, owner)
    client = logged_in(owner)
    with django_assert_num_queries(13):
        response = client.get(url(study))
    assert len(response.context["rows"]) == 7


def test_filters_by_pool_and_status_and_pages(fake_prolific, owner, study, live, other_pool):
    ProlificSubmission.objects.bulk_create([
        ProlificSubmission(prolific_study=live, prolific_id=f"s{n:023d}", participant_id=f"p{n:023d}",
                           status="APPROVED" if n % 2 else "AWAITING REVIEW")
        for n in range(2 * PAGE_SIZE + 10)
    ])
    client = logged_in(owner)
    default = client.get(url(study))
    assert default.context["page"].paginator.count == PAGE_SIZE + 5  # awaiting review by default
    assert len(default.context["rows"]) == PAGE_SIZE  # never an unbounded list
    assert 'status=AWAITING+REVIEW&page=2"' in default.content.decode()  # the next link keeps the filter
    second = client.get(url(study), {"pool": "", "status": "AWAITING REVIEW", "page": 2})
    assert len(second.context["rows"]) == 5
    assert {row.submission.status for row in second.context["rows"]} == {"AWAITING REVIEW"}
    every = client.get(url(study), {"status": ""})
    assert every.context["page"].paginator.count == 2 * PAGE_SIZE + 10
    elsewhere = client.get(url(study), {"pool": other_pool.pk, "status": ""})
    assert elsewhere.context["page"].paginator.count == 0


@pytest.mark.parametrize("who", ["other_researcher", "checker"])
def test_anyone_but_the_owner_reaches_nothing(fake_prolific, who, request, study, waiting, live, owner):
    bonus = ProlificBonus.objects.create(prolific_study=live, lines=[{"who": waiting[0].prolific_id, "amount": 5}],
                                         amount=5, currency="GBP")
    client = logged_in(request.getfixturevalue(who))  # a checker of the pool is no owner either
    sub = waiting[0]
    calls = len(fake_prolific.requests)
    for path in (url(study), url(study, f"submissions/{sub.pk}/reject/"), url(study, f"submissions/{sub.pk}/return/"),
                 url(study, "bonuses/"), url(study, f"bonuses/{bonus.pk}/")):
        assert client.get(path).status_code == 404, path
    for path, data in [
        (url(study, "refresh/"), {}),
        (url(study, "approve/"), {"submission": [sub.pk]}),
        (url(study, f"submissions/{sub.pk}/reject/"), {"category": "LOW_EFFORT", "message": MESSAGE}),
        (url(study, f"submissions/{sub.pk}/return/"), {"reasons": "No consent"}),
        (url(study, "bonuses/"), {"prolific_study": live.pk, "lines": f"{sub.prolific_id},1.00"}),
        (url(study, f"bonuses/{bonus.pk}/setup/"), {}),
        (url(study, f"bonuses/{bonus.pk}/pay/"), {}),
    ]:
        assert client.post(path, data).status_code == 404, path
    assert len(fake_prolific.requests) == calls and not ProlificJob.objects.exists()


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_member_of_the_study_reads_no_page_that_shows_participants(fake_prolific, role, study, waiting, live, owner):
    """Prolific ids beside the annotators' pseudonyms would undo the exports' pseudonyms: the review,
    reject, return, bonus and job pages are the owner's only, as the API's (a member: 403)."""
    bonus = ProlificBonus.objects.create(prolific_study=live, lines=[{"who": waiting[0].participant_id, "amount": 5}],
                                         amount=5, currency="GBP")
    job = ProlificJob.objects.create(study=study, prolific_study=live, kind="submissions")
    client = logged_in(f.make_member(study, role, role))
    sub = waiting[0]
    calls = len(fake_prolific.requests)
    for path in (url(study), url(study, f"submissions/{sub.pk}/reject/"), url(study, f"submissions/{sub.pk}/return/"),
                 url(study, "bonuses/"), url(study, f"bonuses/{bonus.pk}/"), url(study, f"jobs/{job.pk}/")):
        response = client.get(path)
        assert response.status_code == 403, path
        body = response.content.decode()
        assert "Only the study&#x27;s owner sees its Prolific participants" in body, path
        assert sub.participant_id not in body and bonus.lines[0]["who"] not in body, path
    for path, data in [
        (url(study, "approve/"), {"submission": [sub.pk]}),
        (url(study, f"submissions/{sub.pk}/reject/"), {"category": "LOW_EFFORT", "message": MESSAGE}),
        (url(study, f"submissions/{sub.pk}/return/"), {"reasons": "No consent"}),
        (url(study, "bonuses/"), {"prolific_study": live.pk, "lines": f"{sub.participant_id},1.00"}),
    ]:
        assert client.post(path, data).status_code == 403, path
    assert len(fake_prolific.requests) == calls and ProlificJob.objects.filter(study=study).count() == 1
    assert ProlificBonus.objects.count() == 1
    owner_client = logged_in(owner)  # the owner reads every one of them
    for path in (url(study), url(study, f"submissions/{sub.pk}/reject/"), url(study, f"submissions/{sub.pk}/return/"),
                 url(study, "bonuses/"), url(study, f"bonuses/{bonus.pk}/"), url(study, f"jobs/{job.pk}/")):
        assert owner_client.get(path).status_code == 200, path
    assert sub.participant_id in owner_client.get(url(study)).content.decode()


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_the_study_page_shows_a_member_no_participant_and_no_link_to_the_review(
    fake_prolific, role, study, live, owner
):
    """The study's Prolific page is every member's; its entries not verified (their Prolific ids) and
    its link to the review are the owner's only."""
    pid, sid = "5f1a2b3c4d5e6f7a8b9c0d1e", "0123456789abcdef01234567"
    ProlificSubmission.objects.create(prolific_study=live, prolific_id=sid, participant_id=pid, entry_check="pending",
                                      check_note="Unverified at entry: Prolific failed")
    ProlificAction.objects.create(study=study, prolific_study=live, user=owner, kind="reject", target=sid, ok=False,
                                  error=f"Prolific refused POST /submissions/{sid}/transition/ (400): not awaiting")
    page = reverse("recruitment:study-prolific", args=[study.pk])
    member = logged_in(f.make_member(study, role, role)).get(page)
    assert member.status_code == 200
    body = member.content.decode()
    assert pid not in body and sid not in body and url(study) not in body
    assert "Entries not verified with Prolific" in body  # that some are, without who
    assert "Latest calls to Prolific" in body  # the calls, but none of the review's, which name submissions
    mine = logged_in(owner).get(page).content.decode()
    assert pid in mine and sid in mine and url(study) in mine


def test_a_visitor_is_sent_to_log_in(study, pool):
    response = Client().get(url(study))
    assert response.status_code == 302 and response.url.startswith("/login/")


def test_refresh_from_prolific(fake_prolific, owner, study, live, post):
    sid = take_part(fake_prolific, live)
    response = post(url(study, "refresh/"))
    assert response.status_code == 302
    job = ProlificJob.objects.get()
    assert (job.kind, job.status, job.user) == ("submissions", "done", owner)
    assert ProlificSubmission.objects.get().prolific_id == sid
    assert "1 submission read: 1 new, 0 changed." in logged_in(owner).get(url(study)).content.decode()


def test_approve_one_and_many(fake_prolific, owner, study, live, waiting, post):
    first, second, third = waiting
    post(url(study, "approve/"), {"submission": [first.pk]})
    first.refresh_from_db()
    assert first.status == "APPROVED" == fake_prolific.submissions[first.prolific_id]["status"]
    post(url(study, "approve/"), {"submission": [second.pk, third.pk]})
    (bulk,) = fake_prolific.calls("POST", r"submissions/bulk-approve/")
    assert sorted(bulk.body["submission_ids"]) == sorted([second.prolific_id, third.prolific_id])
    kinds = list(ProlificJob.objects.order_by("pk").values_list("kind", "status"))
    assert kinds == [("approve", "done"), ("bulk_approve", "done")]
    page = logged_in(owner).get(url(study), {"status": ""}).content.decode()
    assert "approves them within minutes" in page


def test_approving_a_submission_not_awaiting_review_is_refused(fake_prolific, owner, study, live, waiting, post):
    ProlificSubmission.objects.filter(pk=waiting[0].pk).update(status="RETURNED")
    response = post(url(study, "approve/"), {"submission": [waiting[0].pk]})
    assert response.status_code == 302 and not ProlificJob.objects.exists()
    assert not fake_prolific.calls("POST", r"submissions/.*")


def test_reject(fake_prolific, owner, study, live, waiting, post):
    sub = waiting[0]
    page = logged_in(owner).get(url(study, f"submissions/{sub.pk}/reject/"))
    assert page.status_code == 200 and "two or more for longer" in page.content.decode()
    response = post(url(study, f"submissions/{sub.pk}/reject/"), {"category": "TOO_QUICKLY", "message": MESSAGE})
    assert response.status_code == 302
    sub.refresh_from_db()
    assert sub.status == "REJECTED" == fake_prolific.submissions[sub.prolific_id]["status"]


def test_a_short_rejection_message_is_refused_next_to_the_field(fake_prolific, owner, study, live, waiting, post):
    sub = waiting[0]
    response = post(url(study, f"submissions/{sub.pk}/reject/"), {"category": "TOO_QUICKLY", "message": "Too fast."})
    assert response.status_code == 400
    assert response.context["form"].errors["message"] == [
        "Prolific needs at least 100 characters; this message has 9."
    ]
    assert "this message has 9" in response.content.decode()
    assert not ProlificJob.objects.exists() and not fake_prolific.calls("POST", r"submissions/.*")


def test_a_bad_category_is_refused(fake_prolific, owner, study, live, waiting, post):
    sub = waiting[0]
    response = post(url(study, f"submissions/{sub.pk}/reject/"), {"category": "BORING", "message": MESSAGE})
    assert response.status_code == 400 and "category" in response.context["form"].errors
    assert not ProlificJob.objects.exists() and not fake_prolific.calls("POST", r"submissions/.*")


def test_prolifics_refusal_is_shown_on_the_page(fake_prolific, owner, study, live, waiting, post):
    sub = waiting[0]
    fake_prolific.fail_next("POST", r"submissions/[0-9a-f]+/transition/", 400,
                            {"error": {"title": "Bad Request", "detail": "Rejections are paused for this study."}})
    post(url(study, f"submissions/{sub.pk}/reject/"), {"category": "LOW_EFFORT", "message": MESSAGE})
    body = logged_in(owner).get(url(study)).content.decode()
    assert "Rejections are paused for this study." in body and "failed" in body
    sub.refresh_from_db()
    assert sub.status == "AWAITING REVIEW"


def test_request_a_return(fake_prolific, owner, study, live, waiting, post):
    sub = waiting[2]
    empty = post(url(study, f"submissions/{sub.pk}/return/"), {"reasons": "  \n "})
    assert empty.status_code == 400 and "reasons" in empty.context["form"].errors
    post(url(study, f"submissions/{sub.pk}/return/"), {"reasons": "You did not consent.\nPlease return it."})
    (call,) = fake_prolific.calls("POST", r"submissions/[0-9a-f]+/request-return/")
    assert call.body == {"request_return_reasons": ["You did not consent.", "Please return it."]}
    sub.refresh_from_db()
    assert sub.return_requested_at is not None


def test_a_running_job_is_polled_and_a_finished_one_is_not(fake_prolific, owner, study, live, waiting):
    client = logged_in(owner)
    client.post(url(study, "approve/"), {"submission": [waiting[0].pk]})  # on_commit not run: queued
    job = ProlificJob.objects.get()
    fragment = client.get(url(study, f"jobs/{job.pk}/")).content.decode()
    assert 'hx-trigger="every 1s"' in fragment and "Queued" in fragment
    ProlificJob.objects.filter(pk=job.pk).update(status="done", outcome="All approved.")
    fragment = client.get(url(study, f"jobs/{job.pk}/")).content.decode()
    assert "hx-trigger" not in fragment and "All approved." in fragment


def test_bonuses_preview_set_up_and_pay(fake_prolific, owner, study, live, waiting, post):
    first, second, _ = waiting
    lines = f"{first.prolific_id},1.50\n{second.participant_id}\t0.75\n"
    response = post(url(study, "bonuses/"), {"prolific_study": live.pk, "lines": lines})
    bonus = ProlificBonus.objects.get()
    assert response.status_code == 302 and response.url == url(study, f"bonuses/{bonus.pk}/")
    assert bonus.amount == 225 and bonus.lines == [{"who": first.prolific_id, "amount": 150},
                                                   {"who": second.participant_id, "amount": 75}]
    client = logged_in(owner)
    preview = client.get(response.url).content.decode()
    assert "£2.25" in preview and "known once set up on Prolific" in preview
    assert not fake_prolific.calls("POST", r"submissions/bonus-payments/")  # nothing sent yet
    post(url(study, f"bonuses/{bonus.pk}/setup/"))
    bonus.refresh_from_db()
    assert (bonus.state, bonus.fees, bonus.total_amount) == ("set_up", 75, 300)
    page = client.get(response.url).content.decode()
    assert "£0.75" in page and "Pay £3.00 now" in page
    post(url(study, f"bonuses/{bonus.pk}/pay/"))
    post(url(study, f"bonuses/{bonus.pk}/pay/"))  # a double click
    bonus.refresh_from_db()
    assert bonus.state == "paid"
    assert fake_prolific.bonuses[bonus.prolific_id]["payments"] == 1
    assert len(fake_prolific.calls("POST", r"bulk-bonus-payments/[0-9a-f]+/pay/")) == 1


def test_bonus_lines_are_checked(fake_prolific, owner, study, live, waiting, post):
    for lines, error in [
        ("f" * 24 + ",1.00", "Not a submission or participant of this pool's study"),
        (f"{waiting[0].prolific_id},1.005", "two decimals at most"),
        (f"{waiting[0].prolific_id},1.00\n{waiting[0].prolific_id},2.00", "listed twice"),
        (f"{waiting[0].prolific_id},0", "more than 0"),
    ]:
        response = post(url(study, "bonuses/"), {"prolific_study": live.pk, "lines": lines})
        assert response.status_code == 400
        assert error in " ".join(response.context["form"].errors["lines"]), lines
    assert not ProlificBonus.objects.exists()


def test_the_study_page_links_to_the_review(fake_prolific, owner, study, pool):
    body = logged_in(owner).get(f"/prolific/studies/{study.pk}/").content.decode()
    assert url(study) in body


def failed_check(session, *, position=99, overall=5, given=2):
    """The session failed an attention check asking for ``overall`` (given ``given``)."""
    from django.utils import timezone

    from annotation.models import Assignment, CheckAnswer

    study = session.annotator.study
    item = f.make_item(study, "IN", check_kind="attention", expected={"overall": overall})
    now = timezone.now()
    assignment = Assignment.objects.create(
        session=session, annotator=session.annotator, item=item, pool=session.annotator.pool, position=position,
        leased_at=now, expires_at=now, status="submitted",
    )
    CheckAnswer.objects.create(assignment=assignment, annotator=session.annotator, session=session, item=item,
                               kind="attention", answers={"overall": given}, passed=False, time_spent_ms=900)


def test_a_failed_check_submission_is_offered_a_prefilled_rejection_that_is_never_sent_by_itself(
    fake_prolific, owner, study, live, waiting, post
):
    sub = waiting[0]
    failed_check(sub.session, position=13)
    failed_check(sub.session, position=16, overall=1, given=4)
    calls = len(fake_prolific.requests)
    page = logged_in(owner).get(url(study, f"submissions/{sub.pk}/reject/"))
    assert len(fake_prolific.requests) == calls  # shown, not sent
    form = page.context["form"]
    assert form.initial["category"] == "FAILED_CHECK"
    message = form.initial["message"]
    assert len(message) > 100 and "item 13 of your session" in message and "item 16 of your session" in message
    overall = study.spec.field("overall")
    assert f"“{overall.label}”" in message and "2 of them" in message
    assert 'id="prefilled-rejection"' in page.content.decode()
    response = post(url(study, f"submissions/{sub.pk}/reject/"), {"category": "FAILED_CHECK", "message": message})
    assert response.status_code == 302
    sub.refresh_from_db()
    assert sub.status == "REJECTED" == fake_prolific.submissions[sub.prolific_id]["status"]


def test_a_submission_without_failed_checks_gets_an_empty_rejection_form(fake_prolific, owner, study, live, waiting):
    page = logged_in(owner).get(url(study, f"submissions/{waiting[1].pk}/reject/"))
    assert page.context["form"].initial == {} and 'id="prefilled-rejection"' not in page.content.decode()


def test_the_latest_actions_are_the_newest_ten_newest_first(fake_prolific, owner, study, live):
    from datetime import timedelta

    from django.utils import timezone

    jobs = [ProlificJob.objects.create(study=study, prolific_study=live, kind="submissions") for _ in range(12)]
    for age, job in enumerate(reversed(jobs)):  # the last made is the newest
        ProlificJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(minutes=age))
    shown = list(logged_in(owner).get(url(study)).context["jobs"])
    assert [j.pk for j in shown] == [j.pk for j in reversed(jobs)][:10]

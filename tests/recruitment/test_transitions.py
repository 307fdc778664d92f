"""Publish, pause, resume and stop a pool's Prolific study, one pool or all; the mirrored status
follows Prolific's answers only. And the preview before publishing (eligible count, cost)."""

import pytest

from recruitment.models import ProlificAction, ProlificStudy
from recruitment.prolific import ProlificRequestError, ProlificServerError
from recruitment.selectors import prolific_preview
from recruitment.services import (
    FilterPick,
    LaunchOptions,
    RecruitmentRefused,
    prolific_studies_launch,
    prolific_studies_transition,
    prolific_study_launch,
    prolific_study_refresh,
    prolific_study_transition,
)
from recruitment.services.launch import reference_for

OPTIONS = LaunchOptions(reward=150, estimated_minutes=10, filter_picks=(FilterPick("Nationality"),))


@pytest.fixture
def launched(fake_prolific, owner, pool, items):
    return prolific_study_launch(pool=pool, user=owner, options=OPTIONS).prolific_study


def move(row, verb, user):
    return prolific_study_transition(prolific_study=row, verb=verb, user=user)


def remote_status(fake, row):
    return fake.studies[row.prolific_id]["status"]


def test_publish_pause_resume_stop(fake_prolific, launched, owner):
    for verb, status in [("publish", "ACTIVE"), ("pause", "PAUSED"), ("resume", "ACTIVE"), ("stop", "AWAITING REVIEW")]:
        move(launched, verb, owner)
        launched.refresh_from_db()
        assert launched.status == remote_status(fake_prolific, launched) == status
    actions = [c.body for c in fake_prolific.calls("POST", r"studies/[0-9a-f]+/transition/")]
    assert actions == [{"action": "PUBLISH"}, {"action": "PAUSE"}, {"action": "START"}, {"action": "STOP"}]
    kinds = list(ProlificAction.objects.order_by("id").values_list("kind", "ok", "user"))
    assert kinds == [("create", True, owner.pk), ("publish", True, owner.pk), ("pause", True, owner.pk),
                     ("resume", True, owner.pk), ("stop", True, owner.pk)]


def test_publishing_twice_is_done_not_an_error(fake_prolific, launched, owner):
    move(launched, "publish", owner)
    move(launched, "publish", owner)  # Prolific refuses the repeat; the study is where it was sent
    launched.refresh_from_db()
    assert launched.status == "ACTIVE"
    assert [a.ok for a in ProlificAction.objects.filter(kind="publish")] == [True, True]


def test_a_publish_that_timed_out_after_working_is_done(fake_prolific, launched, owner):
    # Prolific published, but its answer came after the client's time-out; the retry is refused
    # (already published) and the status read back says it is done
    fake_prolific.hang_next("POST", r"studies/[0-9a-f]+/transition/", 3, after_processing=True)
    move(launched, "publish", owner)
    launched.refresh_from_db()
    assert launched.status == "ACTIVE" == remote_status(fake_prolific, launched)
    first, retry = fake_prolific.calls("POST", r"studies/[0-9a-f]+/transition/")
    assert first.body == retry.body == {"action": "PUBLISH"} and retry.status == 400


def test_a_refused_transition_leaves_the_status_as_prolific_has_it(fake_prolific, launched, owner):
    with pytest.raises(ProlificRequestError, match="Cannot PAUSE a study whose status is UNPUBLISHED"):
        move(launched, "pause", owner)
    launched.refresh_from_db()
    assert launched.status == "UNPUBLISHED"
    failed = ProlificAction.objects.get(kind="pause")
    assert not failed.ok and failed.status_code == 400 and "Cannot PAUSE" in failed.error


def test_an_empty_wallet_refuses_publishing(fake_prolific, launched, owner):
    fake_prolific.user["available_balance"] = 10
    with pytest.raises(ProlificRequestError, match="Insufficient balance"):
        move(launched, "publish", owner)
    launched.refresh_from_db()
    assert launched.status == "UNPUBLISHED"


def test_prolific_down_during_publish_changes_nothing_here(fake_prolific, launched, owner):
    fake_prolific.fail_next("POST", r"studies/[0-9a-f]+/transition/", 503, times=2)  # one try and one retry
    with pytest.raises(ProlificServerError):
        move(launched, "publish", owner)
    launched.refresh_from_db()
    assert launched.status == "UNPUBLISHED" == remote_status(fake_prolific, launched)
    assert ProlificAction.objects.get(kind="publish").ok is False


def test_a_transient_5xx_is_retried(fake_prolific, launched, owner):
    fake_prolific.fail_next("POST", r"studies/[0-9a-f]+/transition/", 502)
    move(launched, "publish", owner)
    launched.refresh_from_db()
    assert launched.status == "ACTIVE"


def test_a_pool_not_on_prolific_cannot_move(fake_prolific, owner, pool, items):
    row = ProlificStudy.objects.create(
        pool=pool, reference=reference_for(pool), places=2, reward=150, estimated_minutes=10
    )
    with pytest.raises(RecruitmentRefused, match="not on Prolific yet"):
        move(row, "publish", owner)
    assert fake_prolific.requests == []


def test_every_pool_at_once_and_one_failure_does_not_stop_the_others(
    fake_prolific, owner, study, pool, other_pool, items
):
    prolific_studies_launch(study=study, user=owner, options=OPTIONS)
    india = ProlificStudy.objects.get(pool=pool)
    fake_prolific.fail_next("POST", rf"studies/{india.prolific_id}/transition/", 500, times=2)
    results = prolific_studies_transition(study=study, verb="publish", user=owner)
    assert [(r.prolific_study.pool.country, r.ok) for r in results] == [("IN", False), ("JP", True)]
    assert "India: Prolific failed (500" in results[0].message and results[1].message == "Japan: Active"
    assert ProlificStudy.objects.get(pool=other_pool).status == "ACTIVE"
    assert ProlificStudy.objects.get(pool=pool).status == "UNPUBLISHED"


def test_refresh_mirrors_a_change_made_on_prolific(fake_prolific, launched, owner):
    move(launched, "publish", owner)
    fake_prolific.studies[launched.prolific_id]["status"] = "PAUSED"  # paused in Prolific's web app
    prolific_study_refresh(prolific_study=launched, user=owner)
    launched.refresh_from_db()
    assert launched.status == "PAUSED" and launched.synced_at is not None


def test_the_preview_shows_who_is_eligible_and_the_cost(fake_prolific, launched, owner):
    preview = prolific_preview(prolific_study=launched, user=owner)
    assert preview.eligible == 3000  # India residents, halved by the nationality filter in the fake
    assert (preview.rewards, preview.rewards_text) == (300, "£3.00")
    assert (preview.total_cost, preview.total_cost_text) == (400, "£4.00")
    assert fake_prolific.calls("POST", "eligibility-count/")[0].body == {"filters": launched.filters}


def test_an_unknown_verb_is_a_programming_error(launched, owner):
    with pytest.raises(ValueError):
        move(launched, "delete", owner)

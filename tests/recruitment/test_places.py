"""A pool's places on Prolific kept in step with its open slots: raised when Prolific used its
places, paused when the pool is full, resumed when slots reopen (only if the platform paused it)."""

import pytest

from recruitment.models import ProlificAction, ProlificStudy
from recruitment.prolific import ProlificRequestError
from recruitment.services import (
    LaunchOptions,
    RecruitmentRefused,
    prolific_places_sync,
    prolific_study_launch,
    prolific_study_transition,
)
from recruitment.services.launch import reference_for
from studies.models import ItemQuota

from .. import factories as f


@pytest.fixture
def launched(fake_prolific, owner, pool, items):
    """India's draft: three items wanting three annotations, five items a session: two places."""
    options = LaunchOptions(reward=150, estimated_minutes=10)
    return prolific_study_launch(pool=pool, user=owner, options=options).prolific_study


@pytest.fixture
def published(launched, owner):
    prolific_study_transition(prolific_study=launched, verb="publish", user=owner)
    return launched


def sync(row, user):
    return prolific_places_sync(prolific_study=row, user=user)


def remote(fake, row):
    return fake.studies[row.prolific_id]


def test_a_draft_follows_new_items(fake_prolific, launched, owner, study):
    f.make_items(study, "IN", 3)  # nine more open slots
    result = sync(launched, owner)
    assert result.changed == "places set to 4" and remote(fake_prolific, launched)["total_available_places"] == 4
    launched.refresh_from_db()
    assert launched.places == 4


def test_places_used_up_are_raised_to_the_open_slots(fake_prolific, published, owner, pool):
    for n in range(2):
        fake_prolific.submission_start(published.prolific_id, f"pid{n:021d}")
    assert remote(fake_prolific, published)["status"] == "AWAITING REVIEW"  # Prolific filled its places
    quota = ItemQuota.objects.filter(pool=pool).first()
    ItemQuota.objects.filter(pk=quota.pk).update(done=3)  # six slots still open: two more sessions
    result = sync(published, owner)
    assert result.changed == "places raised to 4" and result.open_slots == 6
    assert fake_prolific.calls("PATCH", r"studies/[0-9a-f]+/")[-1].body == {"total_available_places": 4}
    published.refresh_from_db()
    assert (published.status, published.places) == ("ACTIVE", 4)
    assert ProlificAction.objects.filter(kind="places", ok=True).count() == 1


def test_a_full_pool_pauses_and_resumes_when_slots_reopen(fake_prolific, published, owner, pool):
    ItemQuota.objects.filter(pool=pool).update(done=3)
    assert sync(published, owner).changed == "paused: the pool is full"
    published.refresh_from_db()
    assert published.status == "PAUSED" and published.paused_when_full
    reopened = ItemQuota.objects.filter(pool=pool).first()
    ItemQuota.objects.filter(pk=reopened.pk).update(done=2)  # a checker's flag reopened one slot
    assert sync(published, owner).changed == "resumed: slots reopened"
    published.refresh_from_db()
    assert published.status == "ACTIVE" and not published.paused_when_full


def test_a_pool_paused_by_its_researcher_stays_paused(fake_prolific, published, owner):
    prolific_study_transition(prolific_study=published, verb="pause", user=owner)
    assert sync(published, owner).changed == ""
    assert remote(fake_prolific, published)["status"] == "PAUSED"


def test_a_researcher_resuming_takes_the_pause_over(fake_prolific, published, owner, pool):
    ItemQuota.objects.filter(pool=pool).update(done=3)
    sync(published, owner)
    prolific_study_transition(prolific_study=published, verb="resume", user=owner)
    prolific_study_transition(prolific_study=published, verb="pause", user=owner)
    ItemQuota.objects.filter(pool=pool).update(done=0)
    assert sync(published, owner).changed == ""  # the researcher's pause now
    assert remote(fake_prolific, published)["status"] == "PAUSED"


def test_a_stopped_study_is_left_alone(fake_prolific, published, owner, pool):
    prolific_study_transition(prolific_study=published, verb="stop", user=owner)
    f.make_items(pool.study, "IN", 3)
    assert sync(published, owner).changed == ""
    assert remote(fake_prolific, published)["status"] == "AWAITING REVIEW"
    assert fake_prolific.calls("PATCH", r"studies/[0-9a-f]+/") == []


def test_nothing_to_do(fake_prolific, published, owner):
    assert sync(published, owner).changed == ""
    assert fake_prolific.calls("PATCH", r"studies/[0-9a-f]+/") == []


def test_a_refused_change_is_logged_and_raised(fake_prolific, published, owner, pool):
    for n in range(2):
        fake_prolific.submission_start(published.prolific_id, f"pid{n:021d}")
    fake_prolific.fail_next("PATCH", r"studies/[0-9a-f]+/", 400)
    with pytest.raises(ProlificRequestError):
        sync(published, owner)
    assert ProlificAction.objects.get(kind="places").ok is False
    assert remote(fake_prolific, published)["total_available_places"] == 2


def test_a_pool_not_on_prolific(fake_prolific, owner, other_pool, items):
    row = ProlificStudy.objects.create(
        pool=other_pool, reference=reference_for(other_pool), places=1, reward=150, estimated_minutes=10
    )
    with pytest.raises(RecruitmentRefused, match="not on Prolific yet"):
        sync(row, owner)


def test_a_draft_or_closed_study_is_never_published_nor_resumed(fake_prolific, launched, owner, study, pool):
    from studies.models import Study

    Study.objects.filter(pk=study.pk).update(status=Study.Status.DRAFT)
    launched.refresh_from_db()
    with pytest.raises(RecruitmentRefused, match="open the study to annotators first"):
        prolific_study_transition(prolific_study=launched, verb="publish", user=owner)
    assert remote(fake_prolific, launched)["status"] == "UNPUBLISHED"
    Study.objects.filter(pk=study.pk).update(status=Study.Status.OPEN)
    launched.refresh_from_db()
    prolific_study_transition(prolific_study=launched, verb="publish", user=owner)
    ItemQuota.objects.filter(pool=pool).update(done=3)
    assert sync(launched, owner).changed == "paused: the pool is full"
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    ItemQuota.objects.filter(pool=pool).update(done=2)  # slots reopen, but the study is closed
    launched.refresh_from_db()
    assert sync(launched, owner).changed != "resumed: slots reopened"
    assert remote(fake_prolific, launched)["status"] == "PAUSED"

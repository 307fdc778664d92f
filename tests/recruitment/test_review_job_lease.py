"""A review job whose worker died: its lease expires and the reaper decides by kind, by the rule of
``recruitment/services/payouts.py`` ("retried only where a repeat is harmless"): an approval is queued
again and ends done; a bonus set-up goes back to a draft and a payment to "uncertain", their jobs
failed with the reason, and a payment is never sent again."""

from datetime import timedelta

import pytest
from django.db.models.signals import post_save
from django.urls import reverse
from django.utils import timezone

from jobs.lifecycle import jobs_reap
from recruitment.models import ProlificAction, ProlificBonus, ProlificJob
from recruitment.services.payouts import prolific_bonus_draft, prolific_job_start

from .review_helpers import go_live, read_back, take_part

Kind = ProlificAction.Kind
TRANSITION = r"submissions/[0-9a-f]+/transition/"
PAY = r"bulk-bonus-payments/[0-9a-f]+/pay/"
LOST = "The worker running it stopped (lost at "


@pytest.fixture
def live(fake_prolific, owner, pool, items):
    return go_live(fake_prolific, owner, pool)


def lost(job, *, attempt=1):
    """The job as a killed worker leaves it: running, its lease past."""
    ProlificJob.objects.filter(pk=job.pk).update(
        status="running", attempt=attempt, lease_expires_at=timezone.now() - timedelta(seconds=30)
    )


def queued(django_capture_on_commit_callbacks, **kwargs):
    with django_capture_on_commit_callbacks(execute=False):  # the worker that takes it will die
        return prolific_job_start(**kwargs)


def reap(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # a job queued again runs here
        return jobs_reap(models=[ProlificJob])


def test_a_finished_job_lets_its_lease_go(fake_prolific, live, owner, django_capture_on_commit_callbacks):
    sid = take_part(fake_prolific, live)
    with django_capture_on_commit_callbacks(execute=True):
        job = prolific_job_start(prolific_study=live, user=owner, kind=Kind.APPROVE,
                                 submissions=[read_back(live, owner)[sid]])
    job.refresh_from_db()
    assert job.status == "done" and job.lease_expires_at is None


def test_a_lost_approval_is_queued_again_and_done(fake_prolific, live, owner, django_capture_on_commit_callbacks):
    sid = take_part(fake_prolific, live)
    job = queued(django_capture_on_commit_callbacks, prolific_study=live, user=owner, kind=Kind.APPROVE,
                 submissions=[read_back(live, owner)[sid]])
    lost(job)

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 1, "failed": 0}

    job.refresh_from_db()
    assert job.status == "done" and job.attempt == 2, job.error
    assert fake_prolific.submissions[sid]["status"] == "APPROVED"


def test_a_lost_approval_out_of_attempts_fails_with_the_reason(fake_prolific, live, owner,
                                                               django_capture_on_commit_callbacks):
    sid = take_part(fake_prolific, live)
    job = queued(django_capture_on_commit_callbacks, prolific_study=live, user=owner, kind=Kind.APPROVE,
                 submissions=[read_back(live, owner)[sid]])
    lost(job, attempt=ProlificJob.max_attempts)

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 0, "failed": 1}
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith(LOST) and job.error.endswith("start it again.")


def bonus_in(fake, live, owner, state):
    ids = [take_part(fake, live) for _ in range(2)]
    read_back(live, owner)
    bonus = prolific_bonus_draft(prolific_study=live, user=owner, lines=[(ids[0], 100), (ids[1], 50)])
    ProlificBonus.objects.filter(pk=bonus.pk).update(state=state, prolific_id="b" * 24 if state == "paying" else "")
    bonus.refresh_from_db()
    return bonus


def test_a_lost_bonus_set_up_goes_back_to_a_draft(fake_prolific, live, owner, django_capture_on_commit_callbacks):
    bonus = bonus_in(fake_prolific, live, owner, "setting_up")
    job = queued(django_capture_on_commit_callbacks, prolific_study=live, user=owner, kind=Kind.BONUS_SETUP,
                 bonus=bonus)
    lost(job)

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 0, "failed": 1}
    job.refresh_from_db()
    bonus.refresh_from_db()
    assert job.status == "failed" and job.error.startswith(LOST)
    assert bonus.state == "draft"  # set up again by the researcher, at once


def test_a_lost_payment_is_uncertain_and_never_sent_again(fake_prolific, live, owner,
                                                          django_capture_on_commit_callbacks):
    bonus = bonus_in(fake_prolific, live, owner, "paying")
    job = queued(django_capture_on_commit_callbacks, prolific_study=live, user=owner, kind=Kind.BONUS_PAY,
                 bonus=bonus)
    lost(job)

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 0, "failed": 1}
    job.refresh_from_db()
    bonus.refresh_from_db()
    assert job.status == "failed" and "will not send this payment again" in job.error
    assert bonus.state == "uncertain" and not fake_prolific.calls("POST", PAY)


def test_the_reaper_leaves_a_live_job_alone(fake_prolific, live, owner, django_capture_on_commit_callbacks):
    job = queued(django_capture_on_commit_callbacks, prolific_study=live, user=owner, kind=Kind.SUBMISSIONS)
    ProlificJob.objects.filter(pk=job.pk).update(
        status="running", attempt=1, lease_expires_at=timezone.now() + timedelta(minutes=1)
    )

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 0, "failed": 0}
    job.refresh_from_db()
    assert job.status == "running"


# --- a worker that outlived its lease ---------------------------------------------------------

SETUP = r"submissions/bonus-payments/"


@pytest.fixture
def reaped_mid_call():
    """The reaper runs while a slow worker waits on Prolific, its lease past: at the first call the
    worker logs, the running job is reaped. What the reaper returned is kept."""
    reaped = []

    def reap_now(sender, instance, created, **kwargs):
        if created and not reaped:
            ProlificJob.objects.filter(status="running").update(lease_expires_at=timezone.now() - timedelta(seconds=1))
            reaped.append(jobs_reap(models=[ProlificJob]))

    post_save.connect(reap_now, sender=ProlificAction, dispatch_uid="reap-mid-call")
    yield reaped
    post_save.disconnect(sender=ProlificAction, dispatch_uid="reap-mid-call")


def test_a_worker_that_outlived_its_lease_does_not_overwrite_the_reapers_failure(
    fake_prolific, live, owner, reaped_mid_call, django_capture_on_commit_callbacks
):
    bonus = bonus_in(fake_prolific, live, owner, "draft")
    with django_capture_on_commit_callbacks(execute=True):
        job = prolific_job_start(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)

    assert reaped_mid_call == [{"requeued": 0, "failed": 1}]
    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith(LOST) and job.outcome == "", job.outcome


def test_a_worker_that_outlived_its_lease_does_not_queue_a_reaped_job_again(
    fake_prolific, live, owner, reaped_mid_call, django_capture_on_commit_callbacks
):
    bonus = bonus_in(fake_prolific, live, owner, "draft")
    fake_prolific.fail_next("POST", SETUP, 429, headers={"Retry-After": "0"})  # the worker would wait, then retry
    with django_capture_on_commit_callbacks(execute=True):
        job = prolific_job_start(prolific_study=live, user=owner, kind=Kind.BONUS_SETUP, bonus=bonus)

    assert reaped_mid_call == [{"requeued": 0, "failed": 1}]
    job.refresh_from_db()
    bonus.refresh_from_db()
    assert job.status == "failed" and job.error.startswith(LOST), job.error
    assert len(fake_prolific.calls("POST", SETUP)) == 1, "the reaped job was not set up again"
    assert bonus.state == "draft"


# --- a queued job no worker took (its message lost) -------------------------------------------

UNCLAIMED = "No worker took it within "


def unclaimed(job, *, ago):
    """The row as a lost queue message leaves it: still queued, ``ago`` seconds after it was due."""
    then = timezone.now() - timedelta(seconds=ago)
    ProlificJob.objects.filter(pk=job.pk).update(created_at=then, queued_at=then)


def send(client, live, bonus, step):
    return client.post(reverse("recruitment:bonus-send", args=[live.pool.study_id, bonus.pk, step]), follow=True)


def test_a_queued_bonus_job_whose_message_was_lost_is_sent_again_once(
    client, fake_prolific, live, owner, settings, django_capture_on_commit_callbacks
):
    bonus = bonus_in(fake_prolific, live, owner, "draft")
    client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=False):  # its message is lost
        send(client, live, bonus, "setup")
    job = ProlificJob.objects.get()
    assert "Already under way" in send(client, live, bonus, "setup").content.decode()
    unclaimed(job, ago=settings.JOB_QUEUED_GRACE_SECONDS + 5)

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 1, "failed": 0}

    job.refresh_from_db()
    bonus.refresh_from_db()
    assert job.status == "done" and bonus.state == "set_up", job.error


def test_a_queued_bonus_job_no_worker_took_though_sent_again_fails_and_frees_the_send(
    client, fake_prolific, live, owner, settings, django_capture_on_commit_callbacks
):
    bonus = bonus_in(fake_prolific, live, owner, "draft")
    client.force_login(owner)
    with django_capture_on_commit_callbacks(execute=False):  # its message is lost, and the one sent again
        send(client, live, bonus, "setup")
        job = ProlificJob.objects.get()
        unclaimed(job, ago=settings.JOB_QUEUED_GRACE_SECONDS + 5)
        assert jobs_reap(models=[ProlificJob]) == {"requeued": 1, "failed": 0}
        assert jobs_reap(models=[ProlificJob]) == {"requeued": 0, "failed": 0}, "sent again once, then given its grace"
    unclaimed(job, ago=settings.JOB_QUEUED_GRACE_SECONDS + 5)

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 0, "failed": 1}

    job.refresh_from_db()
    bonus.refresh_from_db()
    assert job.status == "failed" and job.error.startswith(UNCLAIMED), job.error
    assert bonus.state == "draft" and not fake_prolific.calls("POST", SETUP)
    with django_capture_on_commit_callbacks(execute=True):
        send(client, live, bonus, "setup")
    bonus.refresh_from_db()
    assert bonus.state == "set_up"


def test_a_job_waiting_for_prolific_is_not_sent_again_before_its_wait_and_grace(
    fake_prolific, live, owner, settings, django_capture_on_commit_callbacks
):
    job = queued(django_capture_on_commit_callbacks, prolific_study=live, user=owner, kind=Kind.SUBMISSIONS)
    later = timezone.now() + timedelta(seconds=600)  # Prolific asked for a long wait
    ProlificJob.objects.filter(pk=job.pk).update(status="waiting", attempt=1, queued_at=later)

    assert reap(django_capture_on_commit_callbacks) == {"requeued": 0, "failed": 0}
    assert ProlificJob.objects.get(pk=job.pk).status == "waiting"

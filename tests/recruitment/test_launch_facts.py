"""What a dataset card says of a study's Prolific launches (``selectors.launch_facts``): the pay of
each launch participants could see; a draft never published, or a row Prolific never created, is
no pay rate anyone was offered."""

import pytest

from recruitment.models import ProlificStudy
from recruitment.selectors import launch_facts
from tests import factories as f

Status = ProlificStudy.Status


def launch(study, country, status, reward=300):
    pool = f.make_pool(study, country, country)
    return ProlificStudy.objects.create(pool=pool, reference=f"ref-{country}", places=10, reward=reward,
                                        currency="GBP", estimated_minutes=15, status=status)


@pytest.mark.parametrize("status", [Status.NOT_CREATED, Status.UNPUBLISHED], ids=["not-created", "draft"])
def test_a_launch_never_published_is_left_out(study, status):
    launch(study, "KE", Status.ACTIVE)
    launch(study, "NG", status, reward=50)
    assert [fact["country"] for fact in launch_facts(study.pk)] == ["KE"]


@pytest.mark.parametrize("status", [Status.PUBLISHING, Status.SCHEDULED, Status.ACTIVE, Status.PAUSED,
                                    Status.AWAITING_REVIEW, Status.COMPLETED])
def test_a_published_launch_states_its_pay(study, status):
    launch(study, "KE", status)
    (fact,) = launch_facts(study.pk)
    assert (fact["reward"], fact["hourly"], fact["places"]) == ("£3.00", "£12.00", 10)


def test_it_counts_the_entries_let_in_without_prolifics_confirmation(study):
    from recruitment.models import ProlificSubmission

    row = launch(study, "KE", Status.ACTIVE)
    Check = ProlificSubmission.Check
    for n, check in enumerate([Check.PENDING, Check.FAILED, Check.VERIFIED, Check.NONE]):
        ProlificSubmission.objects.create(prolific_study=row, prolific_id=f"s{n}", participant_id=f"p{n}",
                                          entry_check=check)
    (fact,) = launch_facts(study.pk)
    assert fact["unverified_entries"] == 2

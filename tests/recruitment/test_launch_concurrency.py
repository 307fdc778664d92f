"""Launches of one pool at once (a double click, two researchers' tabs, a retrying worker), with
real threads on PostgreSQL: Prolific is asked to create one study, whoever wins."""

import pytest

from recruitment.models import ProlificStudy
from recruitment.services import LaunchOptions, RecruitmentRefused, prolific_study_launch
from tests.helpers import run_in_threads

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.django_db(transaction=True),
]


def test_simultaneous_launches_create_one_study(fake_prolific, owner, pool, items):
    fake_prolific.hang_next("POST", "studies/", 0.4, after_processing=True)  # a slow, successful create

    def launch():
        try:
            return prolific_study_launch(pool=pool, user=owner, options=LaunchOptions(reward=150, estimated_minutes=10))
        except RecruitmentRefused as exc:
            return exc

    results = run_in_threads(launch, [() for _ in range(4)])

    assert len(fake_prolific.calls("POST", "studies/")) == 1 and len(fake_prolific.studies) == 1
    assert ProlificStudy.objects.get(pool=pool).prolific_id == next(iter(fake_prolific.studies))
    created = [r for r in results if not isinstance(r, Exception) and r.created]
    refused = [r for r in results if isinstance(r, RecruitmentRefused)]
    assert len(created) == 1
    assert all("already under way" in str(r) for r in refused)

"""The scheduler's lease (jobs/scheduler_lease.py): one holder at a time, renewed by its holder,
taken once lapsed, given back; refused while another's runs."""

import time

import pytest

from jobs.models import SchedulerLease
from jobs.scheduler_lease import holder_name, scheduler_lease_claim, scheduler_lease_release

pytestmark = pytest.mark.django_db


def test_the_first_claim_takes_it_and_its_holder_renews_it():
    assert scheduler_lease_claim(name="beat", holder="a", seconds=30)
    first = SchedulerLease.objects.get(name="beat").expires_at
    time.sleep(0.01)
    assert scheduler_lease_claim(name="beat", holder="a", seconds=30)
    assert SchedulerLease.objects.get(name="beat").expires_at > first


def test_it_refuses_another_holder_while_the_lease_runs():
    assert scheduler_lease_claim(name="beat", holder="a", seconds=30)
    assert not scheduler_lease_claim(name="beat", holder="b", seconds=30)
    assert SchedulerLease.objects.get(name="beat").holder == "a"
    assert scheduler_lease_claim(name="other", holder="b", seconds=30)  # each name its own lease


def test_a_lapsed_lease_is_taken_by_another():
    assert scheduler_lease_claim(name="beat", holder="a", seconds=0.2)
    time.sleep(0.4)
    assert scheduler_lease_claim(name="beat", holder="b", seconds=30)
    assert not scheduler_lease_claim(name="beat", holder="a", seconds=30)


def test_given_back_it_is_free_at_once_and_only_its_holder_gives_it_back():
    assert scheduler_lease_claim(name="beat", holder="a", seconds=30)
    assert not scheduler_lease_release(name="beat", holder="b")
    assert not scheduler_lease_claim(name="beat", holder="b", seconds=30)
    assert scheduler_lease_release(name="beat", holder="a")
    assert scheduler_lease_claim(name="beat", holder="b", seconds=30)


def test_it_refuses_a_lease_of_no_time():
    with pytest.raises(ValueError):
        scheduler_lease_claim(name="beat", holder="a", seconds=0)


def test_each_process_names_itself_apart():
    assert holder_name() != holder_name() and holder_name().count(":") >= 2

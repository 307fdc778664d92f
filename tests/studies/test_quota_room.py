"""The one "has room" rule of a quota (``ItemQuota.objects.with_room()``: done + leased < wanted),
which every lease, renewal, late submit and import takes its slot with."""

import pytest
from django.db.models import F

from studies.models import ItemQuota
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def quota(study, pool):
    item = f.make_items(study, "IN", 1)[0]
    return ItemQuota.objects.get(item=item, pool=pool)


def test_a_quota_with_a_free_slot_has_room(quota):
    ItemQuota.objects.filter(pk=quota.pk).update(wanted=3, done=1, leased=1)
    assert list(ItemQuota.objects.with_room()) == [quota]
    assert ItemQuota.objects.with_room().filter(pk=quota.pk).update(leased=F("leased") + 1) == 1


@pytest.mark.parametrize("done,leased", [(3, 0), (2, 1), (0, 3)])
def test_it_refuses_a_quota_whose_slots_are_done_or_leased(quota, done, leased):
    ItemQuota.objects.filter(pk=quota.pk).update(wanted=3, done=done, leased=leased)
    assert not ItemQuota.objects.with_room().exists()
    assert ItemQuota.objects.with_room().filter(pk=quota.pk).update(leased=F("leased") + 1) == 0
    quota.refresh_from_db()
    assert (quota.done, quota.leased) == (done, leased)

"""The late-submit rule (``annotation.services.quota_count_late``), shared by a submit after the
lease expired and the import of annotations collected elsewhere: counted in the quota while it has
room; beyond it, kept as surplus."""

import pytest

from annotation.services import quota_count_late
from studies.models import ItemQuota
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def quota(study, pool):
    item = f.make_items(study, "IN", 1)[0]
    return ItemQuota.objects.get(item=item, pool=pool)


def test_it_counts_an_annotation_while_the_quota_has_room(quota):
    ItemQuota.objects.filter(pk=quota.pk).update(wanted=3, done=1, leased=1)
    assert quota_count_late(item_id=quota.item_id, pool_id=quota.pool_id) is True
    quota.refresh_from_db()
    assert (quota.done, quota.leased) == (2, 1)


def test_it_refuses_a_full_quota_so_the_annotation_is_surplus(quota):
    ItemQuota.objects.filter(pk=quota.pk).update(wanted=3, done=2, leased=1)
    assert quota_count_late(item_id=quota.item_id, pool_id=quota.pool_id) is False
    quota.refresh_from_db()
    assert (quota.done, quota.leased) == (2, 1)

"""The next item's image fetched ahead: the item page names the image of the item the session's next
lease will likely take (read with the lease's own candidates: no query, no lease, no quota touched),
signed for the session as the next page will show it; never another pool's item."""

import html
import re

import pytest
from django.db.models import Sum
from django.urls import reverse

from annotation.links import item_image_name
from annotation.models import Assignment
from studies.models import Item, ItemQuota
from tests import factories as f
from tests.factories import valid_answers
from tests.helpers import as_annotator

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def items(study, pool, other_pool):
    return f.make_items(study, "IN", 4) + f.make_items(study, "JP", 3)


@pytest.fixture
def annotating(client, session, items):
    as_annotator(client, session)
    return client


def hint(page: str) -> str | None:
    found = re.search(r'data-prefetch-src="([^"]+)"', page)
    return html.unescape(found.group(1)) if found else None


def shown(page: str) -> str:
    return html.unescape(re.search(r'<img src="([^"]+)" alt="The image', page).group(1))


def item_of(link: str) -> Item:
    return Item.objects.get(image=item_image_name(link.rsplit("/", 1)[1].split("?")[0]))


def leased_total() -> int:
    return ItemQuota.objects.aggregate(n=Sum("leased"))["n"]


def test_the_page_names_the_next_lease_image_and_the_submit_shows_that_very_address(annotating, session, pool):
    page = annotating.get(reverse("annotation:items")).content.decode()
    ahead = hint(page)
    assert ahead is not None and ahead != shown(page)
    first = Assignment.objects.get(session=session)
    assert item_of(ahead).country == "IN" and item_of(ahead).pk != first.item_id
    for step in range(3):  # each submit shows the image fetched ahead, at the same address
        response = annotating.post(reverse("annotation:item-submit", args=[first.pk]), valid_answers(), **HX)
        page = response.content.decode()
        assert shown(page) == ahead, f"step {step}"
        first = Assignment.objects.get(session=session, status="leased")
        assert first.item_id == item_of(ahead).pk
        ahead = hint(page)
        if ahead is None:
            break


def test_the_peek_leases_nothing_and_counts_nothing(annotating, session):
    annotating.get(reverse("annotation:items"))
    assert Assignment.objects.filter(session=session).count() == 1
    assert leased_total() == 1  # the item shown; the one named ahead holds no slot
    assert ItemQuota.objects.aggregate(n=Sum("done"))["n"] == 0


def test_another_pools_items_are_never_named(annotating, session):
    page = annotating.get(reverse("annotation:items")).content.decode()
    for _ in range(2):
        a = Assignment.objects.get(session=session, status="leased")
        page = annotating.post(reverse("annotation:item-submit", args=[a.pk]), valid_answers(), **HX).content.decode()
        if hint(page):
            assert item_of(hint(page)).country == "IN"


def test_the_last_open_item_names_nothing_ahead(client, study, pool):
    f.make_items(study, "IN", 1)
    as_annotator(client, f.make_session(f.make_annotator(pool)))
    assert hint(client.get(reverse("annotation:items")).content.decode()) is None


def test_prefetch_can_be_turned_off(annotating, settings):
    settings.ITEM_PREFETCH = False
    assert hint(annotating.get(reverse("annotation:items")).content.decode()) is None


def test_a_reload_names_nothing_and_leases_nothing_more(annotating, session):
    annotating.get(reverse("annotation:items"))
    page = annotating.get(reverse("annotation:items")).content.decode()  # the open lease, shown again
    assert hint(page) is None
    assert Assignment.objects.filter(session=session).count() == 1 and leased_total() == 1


def test_the_page_loads_the_prefetch_script(annotating):
    assert "annotation/prefetch.js" in annotating.get(reverse("annotation:items")).content.decode()

"""An item of several images (a comparison's): each image served by its own signed link, or to
the annotator of the assignment by its position; shown in an order of the assignment's own,
stable across reloads."""

import hashlib

import pytest
from django.test import Client
from django.urls import reverse

from annotation.context import image_order, image_refs
from annotation.links import item_image_link
from annotation.services import assignment_next
from studies.services import quotas_for_items
from tests import factories as f
from tests.helpers import as_annotator


@pytest.fixture
def pair(study, pool):
    pool.annotations_per_item = 20
    pool.save(update_fields=["annotations_per_item"])
    item = f.make_comparison_item(study, "IN", models=("sdxl", "flux", "dalle-3"))
    quotas_for_items(items=[item])
    return item


@pytest.fixture
def leased(pair, session):
    assignment = assignment_next(session=session)
    assert assignment.item_id == pair.pk
    return assignment


def served(response) -> bytes:
    assert response.status_code == 200, response.status_code
    return b"".join(response.streaming_content)


def test_each_image_has_its_own_signed_link_served_to_any_browser(leased, pair):
    for image in pair.images.all():
        link = item_image_link(leased, image)
        body = served(Client().get(link))
        assert hashlib.sha256(body).hexdigest() == image.sha256


def test_the_annotator_of_the_assignment_gets_an_image_by_its_position(client, session, leased, pair):
    as_annotator(client, session)
    url = reverse("annotation:item-image", args=[leased.pk])
    second = pair.images.get(position=2)
    assert hashlib.sha256(served(client.get(url, {"n": 2}))).hexdigest() == second.sha256
    assert client.get(url, {"n": 9}).status_code == 404
    assert client.get(url, {"n": "2x"}).status_code == 404


def test_another_annotators_image_by_position_is_404(client, pool, leased):
    stranger = f.make_session(f.make_annotator(pool))
    as_annotator(client, stranger)
    assert client.get(reverse("annotation:item-image", args=[leased.pk]), {"n": 1}).status_code == 404


def test_a_signed_link_of_one_image_does_not_open_another(leased, pair):
    first, second = pair.images.all()[:2]
    link = item_image_link(leased, first) + "?n=2"  # the signature names the stored file
    assert hashlib.sha256(served(Client().get(link))).hexdigest() == first.sha256
    assert item_image_link(leased, first) != item_image_link(leased, second)


def test_the_order_is_the_assignments_own_and_stable(study, pool, pair):
    orders = set()
    for _ in range(12):
        session = f.make_session(f.make_annotator(pool))
        assignment = assignment_next(session=session)
        shown = [i.ref_id for i in image_order(assignment)]
        assert shown == [i.ref_id for i in image_order(assignment)]  # a reload shows the same order
        assert sorted(shown) == ["1", "2", "3"]
        orders.add(tuple(shown))
    assert len(orders) > 1  # 12 annotators of 3 images do not all see one order


def test_the_engine_names_each_image_by_its_position_with_its_model(leased):
    refs = image_refs(image_order(leased))
    assert {(r.id, r.model) for r in refs} == {("1", "sdxl"), ("2", "flux"), ("3", "dalle-3")}
    assert all((r.width, r.height) == (64, 48) for r in refs)

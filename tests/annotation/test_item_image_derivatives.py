"""An item image's lighter copies on the annotator's page: a srcset of the widths its row records,
each copy served on exactly the original's terms (its signed link, else the assignment's annotator
only), the original when a copy is missing; the box tool told the original's size."""

import html
import re
import time

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from django.urls import reverse
from PIL import Image

from annotation.links import item_image_link, session_image_link
from annotation.models import Assignment
from annotation.services import assignment_next
from studies.derivatives import derivative_name, derivatives_make
from studies.services import quotas_for_items
from tests import factories as f
from tests.helpers import as_annotator

pytestmark = pytest.mark.django_db


@pytest.fixture
def items(study, pool, other_pool):
    made = f.make_items(study, "IN", 2, size=(1400, 900)) + f.make_items(study, "JP", 1, size=(1400, 900))
    derivatives_make(study_id=study.pk)
    return made


@pytest.fixture
def annotating(client, session, items):
    as_annotator(client, session)
    return client


def img_tag(page: str) -> str:
    return re.search(r'<img src="[^"]+"[^>]*alt="The image[^>]*>', page).group(0)


def body(response) -> bytes:
    assert response.status_code == 200, response.status_code
    return b"".join(response.streaming_content)


def image_format(data: bytes) -> tuple[str, tuple[int, int]]:
    import io

    with Image.open(io.BytesIO(data)) as im:
        return im.format, im.size


def test_the_page_offers_the_lighter_copies_by_width(annotating, session):
    tag = img_tag(annotating.get(reverse("annotation:items")).content.decode())
    src = html.unescape(re.search(r'src="([^"]+)"', tag).group(1))
    srcset = html.unescape(re.search(r'srcset="([^"]+)"', tag).group(1))
    assert srcset == f"{src}?w=640 640w, {src}?w=1280 1280w, {src} 1400w"
    assert 'sizes="(max-width: 800px) 100vw, 50vw"' in tag
    assert 'width="1400" height="900"' in tag


def test_an_image_without_copies_has_no_srcset(annotating, items):
    for item in items:
        type(item).objects.filter(pk=item.pk).update(derived_widths=None)  # not made yet
    tag = img_tag(annotating.get(reverse("annotation:items")).content.decode())
    assert "srcset" not in tag


def test_a_copy_is_served_by_the_signed_link_to_any_browser(annotating, session):
    annotating.get(reverse("annotation:items"))
    lease = Assignment.objects.get(session=session)
    link = item_image_link(lease)
    response = Client().get(link + "?w=640")
    assert image_format(body(response)) == ("WEBP", (640, 411))
    assert response["Cache-Control"] == "private, max-age=3600"  # as the original's
    assert image_format(body(Client().get(link))) == ("PNG", (1400, 900))


@pytest.mark.parametrize("width", ["2048", "999", "x", "-640", ""])
def test_a_width_not_made_is_answered_with_the_original(annotating, session, width):
    annotating.get(reverse("annotation:items"))
    link = item_image_link(Assignment.objects.get(session=session))
    assert image_format(body(Client().get(link + "?w=" + width))) == ("PNG", (1400, 900))


def test_a_missing_copy_falls_back_to_the_original(annotating, session):
    annotating.get(reverse("annotation:items"))
    lease = Assignment.objects.get(session=session)
    default_storage.delete(derivative_name(lease.item.image.name, 640))
    assert image_format(body(Client().get(item_image_link(lease) + "?w=640"))) == ("PNG", (1400, 900))
    as_annotator(client := Client(), session)
    url = reverse("annotation:item-image", args=[lease.pk])
    assert image_format(body(client.get(url, {"w": 640}))) == ("PNG", (1400, 900))


def test_the_assignments_annotator_gets_a_copy_without_the_signature(annotating, session):
    annotating.get(reverse("annotation:items"))
    lease = Assignment.objects.get(session=session)
    url = reverse("annotation:item-image", args=[lease.pk])
    assert image_format(body(annotating.get(url, {"w": 1280}))) == ("WEBP", (1280, 823))


def test_a_copy_is_refused_where_the_original_is(annotating, session, pool, other_pool):
    annotating.get(reverse("annotation:items"))
    mine = Assignment.objects.get(session=session)
    url = reverse("annotation:item-image", args=[mine.pk])
    link = item_image_link(mine)
    stranger = f.make_session(f.make_annotator(pool))
    assignment_next(session=stranger)
    elsewhere = f.make_session(f.make_annotator(other_pool))
    assignment_next(session=elsewhere)
    for w in ("640", "1280"):
        assert Client().get(url, {"w": w}).status_code == 403  # no session, no signature
        assert as_annotator(Client(), stranger).get(url, {"w": w}).status_code == 404  # another annotator
        assert as_annotator(Client(), elsewhere).get(url, {"w": w}).status_code == 404  # another pool's
        assert Client().get(link[:-3] + "abc?w=" + w).status_code == 404  # an altered signature
    old = session_image_link(session.pk, mine.item.image.name, now=time.time() - 14 * 3600)
    assert Client().get(old + "?w=640").status_code == 404  # expired


def page_of(client, fields: list[dict], **item) -> str:
    study, pool = f.spec_study({"fields": fields})
    if "models" in item:
        made = f.make_comparison_item(study, "IN", **item)
    else:
        made = f.make_item(study, "IN", **item)
    quotas_for_items(items=[made])
    derivatives_make(study_id=study.pk)
    as_annotator(client, f.make_session(f.make_annotator(pool)))
    response = client.get(reverse("annotation:items"))
    assert response.status_code == 200
    return response.content.decode()


def test_a_comparisons_images_offer_their_copies(client):
    page = page_of(client, [{"key": "better", "type": "pairwise"}], models=("a", "b"), size=(1400, 900))
    srcsets = [html.unescape(s) for s in re.findall(r'srcset="([^"]+)"', page)]
    assert len(srcsets) == 2
    assert all(s.endswith(" 1400w") and "?w=640 640w" in s and s.startswith("/a/images/") for s in srcsets)


def test_the_box_tool_is_told_the_originals_size(client):
    box = {"key": "where", "type": "bbox", "over": "image", "max": 1}
    page = page_of(client, [box], size=(1400, 900))
    tag = re.search(r'<img class="bbox-image"[^>]*>', page).group(0)
    assert 'data-original-width="1400" data-original-height="900"' in tag
    assert "?w=640 640w" in tag

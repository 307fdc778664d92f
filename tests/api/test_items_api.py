"""/api/v1/studies/{id}/items/: the list (the items page's search and filters, a cursor page in
import order, each item with its documents and its quotas per pool), one item; the fixed cast's
refusals; an item of another study is not found in this study's address."""

import pytest
from rest_framework.test import APIClient

from studies.models import Document, Item
from tests import factories as f


def session_of(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def items_url(study) -> str:
    return f"/api/v1/studies/{study.pk}/items/"


def test_the_items_are_listed_in_import_order_with_their_quotas_and_image(study, items, viewer, as_user):
    rows = as_user(viewer).get(items_url(study)).json()["results"]
    assert [r["id"] for r in rows] == sorted(i.pk for i in items)
    first = rows[0]
    assert first["external_id"] == items[0].external_id and first["country"] == "IN"
    assert first["prompt"] == items[0].prompt and first["model"] == "model-a" and first["category"] == "festival"
    assert first["width"] == 64 and first["height"] == 48 and first["documents"] == []
    pool = study.pools.get(country="IN")
    assert first["quotas"] == [{"pool": pool.pk, "country": "IN", "done": 0, "wanted": 3}]
    assert first["image_url"] == f"http://testserver/api/v1/studies/{study.pk}/items/{items[0].pk}/image/"
    assert "author_pid" not in first and "expected" not in first


def test_the_image_address_serves_the_image_to_a_members_token(study, items, viewer, as_user):
    first = as_user(viewer).get(items_url(study)).json()["results"][0]
    response = as_user(viewer).get(first["image_url"])
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content) == items[0].image.open("rb").read()


def test_an_image_is_not_served_to_strangers_nor_through_another_study(
    study, items, other_researcher, checker, anonymous, as_user
):
    image = f"{items_url(study)}{items[0].pk}/image/"
    assert anonymous.get(image).status_code == 401
    assert as_user(other_researcher).get(image).status_code == 404
    assert session_of(checker).get(image).status_code == 403
    elsewhere = f.make_study(other_researcher)
    assert as_user(other_researcher).get(f"{items_url(elsewhere)}{items[0].pk}/image/").status_code == 404


def test_a_comparison_item_lists_its_images_with_their_models_and_addresses(study, pool, viewer, as_user):
    import hashlib

    item = f.make_comparison_item(study, "IN", models=("sdxl", "flux"))
    row = as_user(viewer).get(f"{items_url(study)}{item.pk}/").json()
    assert row["image_url"] is None
    assert [(i["position"], i["model"], i["params"]) for i in row["images"]] == [(1, "sdxl", {"seed": 1}),
                                                                               (2, "flux", {"seed": 2})]
    second = as_user(viewer).get(row["images"][1]["url"])
    assert hashlib.sha256(b"".join(second.streaming_content)).hexdigest() == row["images"][1]["sha256"]
    missing = as_user(viewer).get(f"{items_url(study)}{item.pk}/image/", {"n": 3})
    assert missing.status_code == 404 and missing.json() == {"detail": "This item has no image 3."}
    assert as_user(viewer).get(f"{items_url(study)}{item.pk}/image/", {"n": "x"}).status_code == 404


def test_an_item_without_an_image_has_no_image_address(study, pool, as_user):
    item = Item.objects.create(study=study, external_id="plain", country="IN", prompt="Lamps")
    response = as_user(study.owner).get(f"{items_url(study)}{item.pk}/image/")
    assert response.status_code == 404 and response.json() == {"detail": "This item has no image."}


def test_an_item_without_an_image_says_null_and_its_documents_are_shown(study, pool, as_user):
    item = Item.objects.create(study=study, external_id="text-1", country="IN", prompt="Lamps",
                               metadata={"source": "wiki", "rank": 2})
    Document.objects.create(item=item, position=0, title="Diwali", url="https://en.wikipedia.org/wiki/Diwali", text="…")
    body = as_user(study.owner).get(f"{items_url(study)}{item.pk}/").json()
    assert body["image_url"] is None and body["metadata"] == {"source": "wiki", "rank": 2}
    assert body["documents"] == [{"position": 0, "title": "Diwali", "url": "https://en.wikipedia.org/wiki/Diwali",
                                  "text": "…"}]


def test_the_done_annotations_are_counted_per_pool(study, items, annotated, as_user):
    rows = as_user(study.owner).get(items_url(study), {"country": "IN"}).json()["results"]
    assert [q["done"] for r in rows for q in r["quotas"]] == [2, 2, 2]


@pytest.mark.parametrize("query, wanted", [
    ({"country": "jp"}, ["JP", "JP"]),
    ({"q": "Diwali"}, ["FR"]),
    ({"model": "model-b"}, ["FR"]),
    ({"category": "nope"}, []),
    ({"check": "gold"}, ["FR"]),
    ({"check": "none", "country": "FR"}, []),
    ({"example": "yes"}, []),
])
def test_the_filters_are_the_items_pages(study, items, as_user, query, wanted):
    f.make_item(study, "FR", prompt="Lamps for Diwali", model_name="model-b", check_kind="gold")
    rows = as_user(study.owner).get(items_url(study), query).json()["results"]
    assert [r["country"] for r in rows] == wanted


def test_a_search_by_the_items_own_id_finds_it_exactly(study, items, as_user):
    rows = as_user(study.owner).get(items_url(study), {"q": items[1].external_id}).json()["results"]
    assert [r["id"] for r in rows] == [items[1].pk]


@pytest.mark.parametrize("query, field", [({"example": "perhaps"}, "example"), ({"check": "silver"}, "check")])
def test_a_value_the_filter_does_not_offer_is_a_400_naming_it(study, items, as_user, query, field):
    response = as_user(study.owner).get(items_url(study), query)
    assert response.status_code == 400 and "Select a valid choice" in response.json()[field][0]


def test_a_text_no_column_can_hold_is_no_filter_and_no_error(study, items, as_user):
    client = as_user(study.owner)
    response = client.get(f"{items_url(study)}?q=a%00b")
    assert response.status_code == 200 and len(response.json()["results"]) == 5
    response = client.get(f"{items_url(study)}?model=%ED%A0%80")  # a lone surrogate's bytes: no such model
    assert response.status_code == 200 and response.json()["results"] == []


def test_the_items_are_paged_by_a_cursor(study, items, as_user):
    client = as_user(study.owner)
    page = client.get(items_url(study), {"page_size": 2}).json()
    seen = [r["id"] for r in page["results"]]
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += [r["id"] for r in page["results"]]
    assert seen == sorted(i.pk for i in items)


def test_a_page_of_items_costs_six_queries_however_many_items(study, items, as_user, django_assert_num_queries):
    for item in items:
        Document.objects.create(item=item, position=0, title="A", text="a")
        Document.objects.create(item=item, position=1, title="B", text="b")
    client = as_user(study.owner)
    client.get(items_url(study))  # the token's first use is written once
    # the token with its account, the study scoped, the page, its documents, its images, its quotas
    with django_assert_num_queries(6):
        rows = client.get(items_url(study)).json()["results"]
    assert len(rows) == 5 and all(len(r["documents"]) == 2 for r in rows)
    f.make_items(study, "IN", 20)
    with django_assert_num_queries(6):
        assert len(client.get(items_url(study), {"page_size": 100}).json()["results"]) == 25


def test_one_item_is_read_with_its_quotas(study, items, editor, as_user):
    body = as_user(editor).get(f"{items_url(study)}{items[3].pk}/").json()
    other_pool = study.pools.get(country="JP")
    assert body["id"] == items[3].pk and body["country"] == "JP"
    assert body["quotas"] == [{"pool": other_pool.pk, "country": "JP", "done": 0, "wanted": 3}]


def test_the_cast_is_refused(study, items, other_researcher, checker, as_user, anonymous):
    one = f"{items_url(study)}{items[0].pk}/"
    for address in (items_url(study), one):
        assert anonymous.get(address).status_code == 401
        assert as_user(other_researcher).get(address).status_code == 404
        assert session_of(checker).get(address).status_code == 403  # no token is made for a checker


def test_an_item_of_another_study_is_not_found_in_this_studys_address(study, items, other_researcher, as_user):
    theirs = f.make_item(f.make_study(other_researcher, name="Theirs"), "FR")
    assert as_user(study.owner).get(f"{items_url(study)}{theirs.pk}/").status_code == 404
    assert as_user(other_researcher).get(f"{items_url(theirs.study)}{items[0].pk}/").status_code == 404
    assert as_user(study.owner).get(f"{items_url(study)}{'9' * 30}/").status_code == 404


HUGE = "9" * 30


@pytest.mark.parametrize("path", [
    f"/api/v1/studies/{HUGE}/items/", "/api/v1/studies/{study}/items/" + HUGE + "/",
    "/api/v1/studies/{study}/imports/" + HUGE + "/", f"/api/v1/studies/{HUGE}/imports/",
    "/api/v1/studies/{study}/items/?page_size=-5", "/api/v1/studies/{study}/items/?page_size=" + HUGE,
])
def test_a_hostile_address_is_refused_without_a_500(study, items, as_user, path):
    response = as_user(study.owner).get(path.format(study=study.pk))
    assert response.status_code in (400, 404), response.content


def test_one_item_costs_six_queries(study, items, as_user, django_assert_num_queries):
    client = as_user(study.owner)
    client.get(f"{items_url(study)}{items[0].pk}/")  # the token's first use is written once
    with django_assert_num_queries(6):  # the token with its account, the study, the item, documents, images, quotas
        assert client.get(f"{items_url(study)}{items[0].pk}/").json()["id"] == items[0].pk

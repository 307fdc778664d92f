"""The study's item list: search, filters, paging; for the study's owner only."""

import pytest
from django.urls import reverse

from tests import factories as f
from workspace.views.studies import ITEMS_PER_PAGE

pytestmark = pytest.mark.django_db


def url(study, **query):
    base = reverse("studies:item-list", args=[study.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


@pytest.fixture
def catalogue(study, pool, other_pool):
    return {
        "bride": f.make_item(study, "IN", external_id="in-bride", prompt="A bride in a red sari", model_name="flux"),
        "tea": f.make_item(study, "IN", external_id="in-tea", prompt="Morning tea", category="food"),
        "shrine": f.make_item(study, "JP", external_id="jp-shrine", prompt="A shrine in the snow", model_name="flux"),
        "example": f.make_item(study, "JP", external_id="jp-ex", prompt="A red bicycle", example=True),
    }


def shown(client, study, **query) -> set[str]:
    response = client.get(url(study, **query))
    assert response.status_code == 200
    return {item.external_id for item in response.context["page"].object_list}


def test_it_lists_every_item_with_a_link_to_its_page(client, owner, study, catalogue):
    client.force_login(owner)
    response = client.get(url(study))
    assert {i.external_id for i in response.context["page"].object_list} == {"in-bride", "in-tea", "jp-shrine", "jp-ex"}
    html = response.content.decode()
    assert "4 items." in html
    assert reverse("annotation:study-item", args=[study.pk, catalogue["tea"].pk]) in html


def test_it_searches_the_id_exactly_and_the_prompt_in_part(client, owner, study, catalogue):
    client.force_login(owner)
    assert shown(client, study, q="in-tea") == {"in-tea"}
    assert shown(client, study, q="red") == {"in-bride", "jp-ex"}
    assert shown(client, study, q="in-") == set(), "an id is matched whole, not in part"


def test_it_filters_by_country_model_category_and_example(client, owner, study, catalogue):
    client.force_login(owner)
    assert shown(client, study, country="JP") == {"jp-shrine", "jp-ex"}
    assert shown(client, study, model="flux") == {"in-bride", "jp-shrine"}
    assert shown(client, study, category="food") == {"in-tea"}
    assert shown(client, study, example="yes") == {"jp-ex"}
    assert shown(client, study, example="no", country="JP") == {"jp-shrine"}
    assert shown(client, study, example="maybe") == {"in-bride", "in-tea", "jp-shrine", "jp-ex"}, "nonsense is ignored"


def test_it_pages_with_a_fixed_number_of_queries(client, owner, study, pool, django_assert_num_queries):
    f.make_items(study, "IN", ITEMS_PER_PAGE + 5)
    client.force_login(owner)
    first = client.get(url(study))
    assert len(first.context["page"].object_list) == ITEMS_PER_PAGE
    assert "page 1 of 2" in first.content.decode()
    second = client.get(url(study, page=2, country="IN"))
    assert len(second.context["page"].object_list) == 5
    assert 'href="?country=IN&amp;page=1"' in second.content.decode()
    assert len(client.get(url(study, page=99)).context["page"].object_list) == 5, "past the end: the last page"
    # session + user, study, count, page, three DISTINCTs for the filters
    with django_assert_num_queries(8):
        client.get(url(study, page=2))


def test_another_researcher_gets_404(client, other_researcher, study, catalogue):
    client.force_login(other_researcher)
    assert client.get(url(study)).status_code == 404


def test_a_checker_gets_404(client, checker, study, catalogue):
    client.force_login(checker)
    assert client.get(url(study)).status_code == 404


def test_an_anonymous_visitor_is_sent_to_log_in(client, study):
    response = client.get(url(study))
    assert response.status_code == 302 and "login" in response["Location"]


def test_the_dashboard_links_the_item_list(client, owner, study):
    client.force_login(owner)
    assert url(study) in client.get(reverse("analysis:study-dashboard", args=[study.pk])).content.decode()


def test_it_filters_by_quality_check(client, owner, study, catalogue):
    from studies.models import Item

    Item.objects.filter(external_id="in-tea").update(check_kind="attention", expected={"overall": 5})
    Item.objects.filter(external_id="jp-shrine").update(check_kind="gold", expected={"overall": 3})
    client.force_login(owner)
    assert shown(client, study, check="attention") == {"in-tea"}
    assert shown(client, study, check="gold") == {"jp-shrine"}
    assert shown(client, study, check="none") == {"in-bride", "jp-ex"}
    assert shown(client, study, check="bogus") == {"in-bride", "in-tea", "jp-shrine", "jp-ex"}, "nonsense is ignored"
    page = client.get(reverse("studies:item-list", args=[study.pk]), {"check": "gold"}).content.decode()
    assert "<td>Gold item</td>" in page

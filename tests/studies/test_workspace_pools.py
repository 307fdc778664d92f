"""Country pools in the workspace: add, edit, and what their settings mean (slots, sessions). Removing
one is recruitment:pool-remove (tests/recruitment/test_pool_remove.py)."""

from django.urls import reverse

from studies.models import CountryPool, ItemQuota, Study
from tests import factories as f
from tests.helpers import login


def pool_data(**overrides) -> dict:
    data = {
        "country": "FR", "annotations_per_item": "2", "min_distinct_annotators": "0",
        "require_born": "on", "require_resident": "on",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def test_the_pool_list_shows_slots_and_sessions_needed(
    client, owner, study, pool, other_pool, items, django_assert_num_queries
):
    CountryPool.objects.filter(pk=pool.pk).update(annotations_per_item=4)
    login(client, owner)
    url = reverse("studies:pool-list", args=[study.pk])
    client.get(url)
    with django_assert_num_queries(6):  # session, user, study, item counts, quotas done, pools
        response = client.get(url)
    plans = {p.pool.country: p for p in response.context["plans"]}
    # India: 3 items × 4 wanted = 12 slots, 5 per session → 3 sessions; Japan: 2 × 3 = 6 → 2.
    assert (plans["IN"].items, plans["IN"].slots, plans["IN"].sessions) == (3, 12, 3)
    assert (plans["JP"].items, plans["JP"].slots, plans["JP"].sessions) == (2, 6, 2)


def test_every_pool_counts_every_item_when_items_go_to_every_pool(client, owner, pool, other_pool):
    study = pool.study
    Study.objects.filter(pk=study.pk).update(routing=Study.Routing.ALL_POOLS)
    f.make_items(study, "IN", 3)
    login(client, owner)
    plans = client.get(reverse("studies:pool-list", args=[study.pk])).context["plans"]
    assert [(p.items, p.slots) for p in plans] == [(3, 9), (3, 9)]


def test_the_owner_adds_a_pool_and_its_items_get_quotas(client, owner, study):
    f.make_items(study, "FR", 2)
    login(client, owner)
    response = client.post(reverse("studies:pool-add", args=[study.pk]), pool_data())
    assert response.status_code == 302 and response.url == reverse("studies:pool-list", args=[study.pk])
    france = study.pools.get(country="FR")
    assert france.country_name == "France" and france.annotations_per_item == 2
    assert (france.require_born, france.require_nationality, france.require_resident) == (True, False, True)
    assert sorted(ItemQuota.objects.filter(pool=france).values_list("wanted", flat=True)) == [2, 2]


def test_the_country_picker_lists_countries_by_name(client, owner, study):
    login(client, owner)
    page = client.get(reverse("studies:pool-add", args=[study.pk])).content.decode()
    assert '<option value="IN">India (IN)</option>' in page
    assert '<option value="CI">Côte d&#x27;Ivoire (CI)</option>' in page


def test_it_refuses_a_second_pool_for_a_country_and_an_unknown_country(client, owner, study, pool):
    login(client, owner)
    url = reverse("studies:pool-add", args=[study.pk])
    response = client.post(url, pool_data(country="IN"))
    assert response.status_code == 400
    assert "already" in response.context["form"].errors["country"][0]
    assert client.post(url, pool_data(country="XX")).status_code == 400
    assert client.post(url, pool_data(country="")).status_code == 400
    assert list(study.pools.values_list("country", flat=True)) == ["IN"]


def test_it_refuses_zero_annotations_wanted(client, owner, study):
    login(client, owner)
    response = client.post(reverse("studies:pool-add", args=[study.pk]), pool_data(annotations_per_item="0"))
    assert response.status_code == 400 and "annotations_per_item" in response.context["form"].errors
    assert not study.pools.filter(country="FR").exists()


def test_editing_annotations_wanted_keeps_the_quotas_in_step(client, owner, study, pool, items):
    login(client, owner)
    url = reverse("studies:pool-edit", args=[study.pk, pool.pk])
    response = client.post(url, pool_data(country="IN", annotations_per_item="5", require_born=None))
    assert response.status_code == 302
    pool.refresh_from_db()
    assert pool.annotations_per_item == 5 and not pool.require_born
    assert set(ItemQuota.objects.filter(pool=pool).values_list("wanted", flat=True)) == {5}
    client.post(url, pool_data(annotations_per_item="2"))
    assert set(ItemQuota.objects.filter(pool=pool).values_list("wanted", flat=True)) == {2}


def test_the_country_of_a_pool_stays(client, owner, study, pool):
    login(client, owner)
    client.post(reverse("studies:pool-edit", args=[study.pk, pool.pk]), pool_data(country="FR"))
    pool.refresh_from_db()
    assert (pool.country, pool.country_name) == ("IN", "India")


def test_it_refuses_fewer_annotations_wanted_than_are_done(client, owner, study, pool, annotated):
    """Two annotators have annotated each Indian item: asking for one is refused, nothing changes."""
    login(client, owner)
    response = client.post(
        reverse("studies:pool-edit", args=[study.pk, pool.pk]), pool_data(country="IN", annotations_per_item="1")
    )
    assert response.status_code == 400
    assert "at least 2" in response.context["form"].errors["annotations_per_item"][0]
    pool.refresh_from_db()
    assert pool.annotations_per_item == 3
    assert set(ItemQuota.objects.filter(pool=pool).values_list("wanted", flat=True)) == {3}


def test_a_pool_chooses_its_annotators_language_or_keeps_the_study_s(client, owner, study, pool):
    login(client, owner)
    url = reverse("studies:pool-edit", args=[study.pk, pool.pk])
    page = client.get(url).content.decode()
    assert "The study&#x27;s language (English)" in page and '<option value="ar">العربية</option>' in page
    assert client.post(url, pool_data(country="IN", language="ja")).status_code == 302
    pool.refresh_from_db()
    assert pool.language == "ja"
    assert client.post(url, pool_data(country="IN", language="")).status_code == 302
    pool.refresh_from_db()
    assert pool.language == ""


def test_a_language_we_do_not_ship_is_refused_next_to_the_field(client, owner, study, pool):
    login(client, owner)
    url = reverse("studies:pool-edit", args=[study.pk, pool.pk])
    response = client.post(url, pool_data(country="IN", language="xx"))
    assert response.status_code == 400 and "language" in response.context["form"].errors
    pool.refresh_from_db()
    assert pool.language == ""

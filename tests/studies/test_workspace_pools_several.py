"""Several country pools at once (/studies/<pk>/pools/new-several): a list of countries by ISO code
or English name with shared settings; every pool is added with its quotas, or none is."""

from django.urls import reverse

from studies.models import CountryPool, ItemQuota
from tests import factories as f
from tests.helpers import login

TEN = "BR, DE, EG, ID, IN, JP, KR, MX, NG, US"


def url(study):
    return reverse("studies:pool-add-several", args=[study.pk])


def data(countries, **overrides):
    values = {"countries": countries, "annotations_per_item": "3", "min_distinct_annotators": "0",
              "require_resident": "on", "language": ""}
    values.update(overrides)
    return values


def test_ten_countries_at_once_with_shared_settings(client, owner, study):
    f.make_items(study, "KR", 2)
    login(client, owner)
    assert client.get(url(study)).status_code == 200
    response = client.post(url(study), data(TEN))
    assert response.status_code == 302
    pools = {p.country: p for p in CountryPool.objects.filter(study=study)}
    assert sorted(pools) == sorted(TEN.split(", "))
    assert pools["KR"].country_name == "South Korea"
    assert {(p.annotations_per_item, p.require_resident, p.require_born) for p in pools.values()} == {(3, True, False)}
    assert ItemQuota.objects.filter(pool=pools["KR"]).count() == 2
    text = client.get(response.url).content.decode()
    assert "10 pools are added: Brazil, Germany, Egypt" in text


def test_names_lines_and_case_are_all_understood(client, owner, study):
    login(client, owner)
    client.post(url(study), data("south korea\nTürkiye; Czechia,cote d'ivoire\nbr"))
    assert set(CountryPool.objects.values_list("country", flat=True)) == {"KR", "TR", "CZ", "CI", "BR"}


def test_bad_lists_are_refused_next_to_the_field_and_add_nothing(client, owner, study, pool):
    login(client, owner)
    for countries, said in [
        ("BR, Atlantis, XX", "Not a country: Atlantis, XX"),
        ("BR, br, Brazil", "Given twice: Brazil, Brazil"),
        ("BR, IN", "This study has a pool for India already."),
        (" , ;", "Name at least one country."),
    ]:
        response = client.post(url(study), data(countries))
        assert response.status_code == 400
        assert said in response.content.decode(), countries
    assert list(CountryPool.objects.values_list("country", flat=True)) == ["IN"]


def test_the_shared_settings_are_checked_as_for_one_pool(client, owner, study):
    login(client, owner)
    response = client.post(url(study), data("BR, DE", annotations_per_item="0"))
    assert response.status_code == 400 and "Ask for at least one annotation per item." in response.content.decode()
    assert not CountryPool.objects.exists()


def test_a_viewer_reads_the_page_but_adds_nothing(client, study):
    viewer = f.make_member(study, "vera", "viewer")
    login(client, viewer)
    assert client.get(url(study)).status_code == 200
    assert client.post(url(study), data("BR")).status_code == 403
    assert not CountryPool.objects.exists()


def test_the_service_refuses_a_country_with_a_pool_whatever_the_page_checked(study, pool):
    """The rule is the server's: a second request adding the same country meanwhile is refused too."""
    import pytest

    from studies.services import WorkspaceError, pools_create

    with pytest.raises(WorkspaceError, match="This study has a pool for India already."):
        pools_create(study=study, countries=["BR", "IN"], annotations_per_item=1)
    assert list(CountryPool.objects.values_list("country", flat=True)) == ["IN"]


def test_other_lists_names_are_understood_too(client, owner, study):
    login(client, owner)
    client.post(url(study), data("Turkey, Czech Republic, Ivory Coast"))
    assert set(CountryPool.objects.values_list("country", flat=True)) == {"TR", "CZ", "CI"}

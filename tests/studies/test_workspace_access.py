"""Who reaches the researcher's workspace pages: routes × roles.

The owner gets each page; another researcher and a checker of the study's pool get a 404 (another's
study does not exist for them); a visitor who is not logged in is sent to the login page."""

import pytest
from django.conf import settings
from django.urls import reverse

from studies.models import CountryPool, Study
from tests import factories as f
from tests.helpers import login


def page_urls(study, pool) -> list[str]:
    return [
        reverse("studies:study-settings", args=[study.pk]),
        reverse("studies:pool-list", args=[study.pk]),
        reverse("studies:pool-add", args=[study.pk]),
        reverse("studies:pool-edit", args=[study.pk, pool.pk]),
        f"{reverse('studies:study-new')}?copy={study.pk}",
    ]


def test_the_owner_gets_every_page(client, owner, study, pool):
    login(client, owner)
    new = reverse("studies:study-new")
    for url in [*page_urls(study, pool), new, f"{new}?preset=caire-relevance"]:
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("who", ["other_researcher", "checker"])
def test_it_refuses_another_researcher_and_a_checker_with_404(client, who, request, study, pool):
    login(client, request.getfixturevalue(who))
    for url in page_urls(study, pool):
        assert client.get(url).status_code == 404, url
    assert client.post(reverse("studies:study-settings", args=[study.pk]), {"name": "Taken"}).status_code == 404
    assert client.post(reverse("recruitment:pool-remove", args=[study.pk, pool.pk])).status_code == 404
    assert client.post(reverse("studies:pool-add", args=[study.pk]), {"country": "FR"}).status_code == 404
    assert Study.objects.get(pk=study.pk).name == "CulturalFrames rating"
    assert CountryPool.objects.filter(pk=pool.pk).exists()
    assert not CountryPool.objects.filter(country="FR").exists()


def test_a_checker_may_not_start_a_study(client, checker):
    login(client, checker)
    assert client.get(reverse("studies:study-new")).status_code == 404
    assert client.post(reverse("studies:markdown-preview"), {"instructions_md": "- a"}).status_code == 404


def test_a_pool_is_reached_only_through_its_own_study(client, owner, other_researcher, pool):
    """The owner's pool id under another researcher's study is not found."""
    theirs = f.make_study(other_researcher, name="Theirs")
    login(client, owner)
    assert client.get(reverse("studies:pool-edit", args=[theirs.pk, pool.pk])).status_code == 404


def test_a_visitor_is_sent_to_log_in(client, study, pool):
    for url in [*page_urls(study, pool), reverse("studies:study-new")]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse(settings.LOGIN_URL)), url
    response = client.post(reverse("recruitment:pool-remove", args=[study.pk, pool.pk]))
    assert response.status_code == 302 and CountryPool.objects.filter(pk=pool.pk).exists()

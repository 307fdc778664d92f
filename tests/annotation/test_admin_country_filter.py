"""The admin's lists of annotators, annotations, checkers and reviews filter by their pool's country,
offering only the countries of the researcher's own pools (a superuser: every pool's)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests import factories as f
from tests.helpers import login, review

# Each list, and the parameter its country filter sets.
LISTS = {
    "admin:annotation_annotator_changelist": "pool__country",
    "admin:annotation_annotation_changelist": "pool__country",
    "admin:annotation_checker_changelist": "pool__country",
    "admin:annotation_review_changelist": "annotation__pool__country",
}


@pytest.fixture
def theirs(other_researcher):
    """Another researcher's study with a pool in France: an annotation, its checker and a review."""
    pool = f.make_pool(f.make_study(other_researcher, name="Theirs"), "FR", "France")
    f.make_items(pool.study, "FR", 1)
    checker = f.make_checker(pool, "checker-fr")
    review(f.annotate_pool(pool)[0], checker, "accepted")
    return pool


@pytest.fixture
def mine(owner, pool, items, checker):
    """The owner's India pool: an annotation, its checker and a review."""
    review(f.annotate_pool(pool)[0], checker, "accepted")
    return pool


@pytest.mark.parametrize("name", LISTS)
def test_it_offers_only_the_countries_of_the_researchers_own_pools(client, owner, mine, theirs, name):
    page = login(client, owner).get(reverse(name)).content.decode()

    assert f"?{LISTS[name]}=IN" in page
    assert f"?{LISTS[name]}=FR" not in page and "France" not in page


@pytest.mark.parametrize("name", LISTS)
def test_a_superuser_is_offered_every_pools_country(client, mine, theirs, name):
    root = get_user_model().objects.create_superuser("root", password="x")
    page = login(client, root).get(reverse(name)).content.decode()

    assert f"?{LISTS[name]}=IN" in page and f"?{LISTS[name]}=FR" in page


def test_it_lists_the_rows_of_the_chosen_country(client, owner, mine, other_pool, items, theirs):
    japan = f.annotate_pool(other_pool)[0]
    url = reverse("admin:annotation_annotator_changelist")

    page = login(client, owner).get(url, {"pool__country": "JP"}).content.decode()

    assert japan.annotator.pseudonym in page
    assert not any(a.pseudonym in page for a in mine.annotators.all())

"""The owner scope (``studies.selectors.owned_by``): every admin page and selector that lists a
researcher's rows goes through it."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from annotation.models import Annotator
from studies.models import CountryPool, Item, Study
from studies.selectors import owned_by, studies_for_user
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def others_study(other_researcher):
    study = f.make_study(other_researcher, name="Another's study")
    f.make_pool(study, "JP", "Japan")
    f.make_items(study, "JP", 2)
    return study


def test_a_researcher_sees_the_rows_of_their_own_studies(owner, study, pool, items, others_study):
    assert list(owned_by(Study.objects.all(), owner)) == [study]
    assert set(owned_by(CountryPool.objects.all(), owner, owner_path="study__owner")) == set(study.pools.all())
    assert set(owned_by(Item.objects.all(), owner, owner_path="study__owner")) == set(items)
    assert list(studies_for_user(owner)) == [study]


def test_it_refuses_another_researchers_rows(other_researcher, study, pool, items, annotator, others_study):
    assert list(owned_by(Study.objects.all(), other_researcher)) == [others_study]
    assert not owned_by(Item.objects.filter(study=study), other_researcher, owner_path="study__owner").exists()
    assert not owned_by(Annotator.objects.all(), other_researcher, owner_path="study__owner").exists()


def test_it_refuses_a_visitor_who_is_not_logged_in(study, items):
    assert not owned_by(Study.objects.all(), AnonymousUser()).exists()
    assert not studies_for_user(AnonymousUser()).exists()


def test_a_superuser_sees_every_row(study, items, others_study):
    admin = get_user_model().objects.create_superuser("root", password="pass-for-tests-1")
    assert set(owned_by(Study.objects.all(), admin)) == {study, others_study}
    assert owned_by(Item.objects.all(), admin, owner_path="study__owner").count() == Item.objects.count()

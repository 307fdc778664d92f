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


# --- members: the researcher's scope ------------------------------------------------------------


def test_a_member_sees_a_shared_study_once_and_a_viewer_may_not_change_it(owner, other_researcher, study, others_study):
    viewer = f.make_member(study, "vera", "viewer")
    editor = f.make_member(study, "eddie", "editor")
    f.make_member(others_study, "third", "viewer")
    assert list(studies_for_user(owner)) == [study]  # once, though it has two members
    assert list(studies_for_user(viewer)) == [study]
    assert not studies_for_user(viewer, write=True).exists()
    assert list(studies_for_user(editor, write=True)) == [study]
    assert not owned_by(Study.objects.all(), viewer).exists()  # the admin's scope stays the owner's


def test_study_for_user_says_the_role_and_refuses_by_it(owner, study):
    from django.core.exceptions import PermissionDenied
    from django.http import Http404

    from studies.selectors import study_for_user

    viewer, editor = f.make_member(study, "vera", "viewer"), f.make_member(study, "eddie", "editor")
    assert study_for_user(owner, study.pk, owner_only=True).access.is_owner
    assert study_for_user(viewer, study.pk).access.role == "viewer"
    assert not study_for_user(viewer, study.pk).access.can_edit
    with pytest.raises(PermissionDenied, match="read-only"):
        study_for_user(viewer, study.pk, write=True)
    assert study_for_user(editor, study.pk, write=True).access.can_edit
    with pytest.raises(PermissionDenied, match="owner"):
        study_for_user(editor, study.pk, owner_only=True)
    with pytest.raises(Http404):
        study_for_user(f.make_researcher("stranger"), study.pk)
